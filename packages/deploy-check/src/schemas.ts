import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type ConfigSchema, schemaFromModule } from './config-schema.js';
import type { ServiceSpec } from './services.js';

/**
 * The env variables and defaults a service really reads, from its own config module: a setting added to
 * the service's schema is known here without another list to keep.
 */
export async function loadSchema(root: string, spec: ServiceSpec): Promise<ConfigSchema> {
  const module = (await import(pathToFileURL(join(root, spec.packageDir, spec.configModule)).href)) as Record<
    string,
    unknown
  >;
  return schemaFromModule(module);
}

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServiceLayers } from './layers.js';
import { renderBiomeLayers, renderDesignTable, renderReadmeOrder, replaceBlock } from './render.js';

/** One file `pnpm layers` writes, with what it should hold now. */
export interface RenderedFile {
  readonly path: string;
  readonly text: string;
}

/** The files rendered from the declarations, read and updated under `root` (the repository). */
export function renderedFiles(root: string, services: readonly ServiceLayers[]): RenderedFile[] {
  const files: RenderedFile[] = [{ path: 'biome.layers.jsonc', text: renderBiomeLayers(services) }];
  for (const service of services) {
    const design = `packages/${service.pkg}/docs/design.md`;
    const readme = `packages/${service.pkg}/README.md`;
    const designText = readFileSync(join(root, design), 'utf8');
    files.push({ path: design, text: replaceBlock(designText, `${service.pkg}:table`, renderDesignTable(service)) });
    const readmeText = readFileSync(join(root, readme), 'utf8');
    files.push({ path: readme, text: replaceBlock(readmeText, `${service.pkg}:order`, renderReadmeOrder(service)) });
  }
  return files;
}

/** The folders and the .ts files directly under a service's src/. */
export function sourceEntries(root: string, service: ServiceLayers): { folders: string[]; files: string[] } {
  const entries = readdirSync(join(root, 'packages', service.pkg, 'src'), { withFileTypes: true });
  return {
    folders: entries.filter((e) => e.isDirectory()).map((e) => e.name),
    files: entries.filter((e) => e.isFile() && e.name.endsWith('.ts')).map((e) => e.name),
  };
}

/** What deployment files need from a service's configuration: its env variables and their defaults. */
export interface ConfigSchema {
  readonly envNames: ReadonlySet<string>;
  defaultOf(env: string): unknown;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A setting's variable and the older names it still reads (`aliases`). */
function namesOf(setting: Record<string, unknown>): string[] {
  const aliases = Array.isArray(setting.aliases) ? setting.aliases.filter((a) => typeof a === 'string') : [];
  return [setting.env as string, ...aliases];
}

/**
 * Reads the schema from a config module's exports without knowing its exact shape: either a list of
 * settings `{ key, env, ... }` (the ALS) or a map `key -> { env, ... }` (the position handler, the
 * simulators), plus the defaults object whose keys are the settings' keys.
 */
export function schemaFromModule(exports: Record<string, unknown>): ConfigSchema {
  const keyOfEnv = new Map<string, string>();
  // A schema map has the settings' keys too: it must not be taken for the defaults, whatever the export order.
  const schemas = new Set<unknown>();
  for (const value of Object.values(exports)) {
    if (Array.isArray(value)) {
      for (const item of value) {
        if (isRecord(item) && typeof item.env === 'string' && typeof item.key === 'string')
          for (const env of namesOf(item)) keyOfEnv.set(env, item.key);
      }
    } else if (isRecord(value)) {
      for (const [key, field] of Object.entries(value)) {
        if (isRecord(field) && typeof field.env === 'string') {
          for (const env of namesOf(field)) keyOfEnv.set(env, key);
          schemas.add(value);
        }
      }
    }
  }
  if (keyOfEnv.size === 0) throw new Error('the config module exports no schema with env names');
  const keys = new Set(keyOfEnv.values());
  const defaults = Object.values(exports).find(
    (value): value is Record<string, unknown> =>
      isRecord(value) &&
      !schemas.has(value) &&
      Object.keys(value).length > 0 &&
      Object.keys(value).every((k) => keys.has(k)),
  );
  if (!defaults) throw new Error('the config module exports no defaults object for its schema');
  return {
    envNames: new Set(keyOfEnv.keys()),
    defaultOf(env) {
      const key = keyOfEnv.get(env);
      return key === undefined ? undefined : defaults[key];
    },
  };
}

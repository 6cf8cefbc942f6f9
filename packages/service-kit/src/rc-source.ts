import { existsSync, readFileSync } from 'node:fs';
import { ConfigError, type ConfigErrorClass } from './config-error.js';

/** A JSON tree: the original's config file, with its `rc` environment overrides merged in. */
export type Tree = { [key: string]: unknown };

export interface OriginalSource {
  /** The merged tree (file < rc env), or undefined when neither a file nor an override exists. */
  readonly tree: Tree | undefined;
  /** The file read, if any. */
  readonly file: string | undefined;
  /** Leaf paths that came from the environment, joined by '\u0000', mapped to their env variable. */
  readonly fromEnv: ReadonlyMap<string, string>;
}

export const pathKey = (path: readonly string[]) => path.join('\u0000');

function isTree(value: unknown): value is Tree {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The overrides the `rc` package takes from the environment (rc/index.js `env`): every variable whose
 * name starts with `<app>_` (case-insensitive), the rest of the name split on `__` into a key path,
 * case kept. central-ledger calls `rc('CLEDG', default.json)`, account-lookup-service `rc('ALS', …)`
 * (src/lib/config.js of each). `ours`: our own variables that share the prefix (ALS_PORT), not overrides.
 */
export function rcEnvOverrides(
  app: string,
  env: NodeJS.ProcessEnv,
  ours: ReadonlySet<string> = new Set(),
): { tree: Tree; fromEnv: Map<string, string> } {
  const prefix = `${app}_`.toLowerCase();
  const tree: Tree = {};
  const fromEnv = new Map<string, string>();
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || ours.has(name) || !name.toLowerCase().startsWith(prefix)) continue;
    const path = name
      .slice(prefix.length)
      .split('__')
      .filter((part) => part !== '');
    if (path.length === 0) continue;
    let cursor: Tree = tree;
    for (const [i, part] of path.entries()) {
      if (i === path.length - 1) cursor[part] = value;
      else {
        if (!isTree(cursor[part])) cursor[part] = {};
        cursor = cursor[part] as Tree;
      }
    }
    fromEnv.set(pathKey(path), name);
  }
  return { tree, fromEnv };
}

/** rc merges with deep-extend: objects merge key by key, anything else replaces. */
export function deepMerge(base: Tree, over: Tree): Tree {
  const out: Tree = { ...base };
  for (const [key, value] of Object.entries(over)) {
    out[key] = isTree(value) && isTree(out[key]) ? deepMerge(out[key] as Tree, value) : value;
  }
  return out;
}

/**
 * The original's configuration: the file at CONFIG_FILE, else at `defaultFile` (where the original's image
 * has it) when it exists, with the rc overrides of `app` on top. A CONFIG_FILE that cannot be read or is not
 * a JSON object stops the start naming CONFIG_FILE, in the service's ConfigError (`errorClass`).
 */
export function readOriginalSource(
  app: string,
  env: NodeJS.ProcessEnv,
  defaultFile: string,
  ours: ReadonlySet<string> = new Set(),
  errorClass: ConfigErrorClass = ConfigError,
): OriginalSource {
  const explicit = env.CONFIG_FILE;
  if (explicit === '') throw new errorClass('CONFIG_FILE', 'must not be empty');
  const file = explicit ?? (existsSync(defaultFile) ? defaultFile : undefined);
  let base: Tree | undefined;
  if (file !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(file, 'utf8'));
    } catch (cause) {
      throw new errorClass('CONFIG_FILE', `cannot be read as JSON (${file}): ${(cause as Error).message}`);
    }
    if (!isTree(parsed)) throw new errorClass('CONFIG_FILE', `must hold a JSON object (${file})`);
    base = parsed;
  }
  const overrides = rcEnvOverrides(app, env, ours);
  const tree =
    overrides.fromEnv.size > 0 ? deepMerge(base ?? {}, overrides.tree) : base === undefined ? undefined : base;
  return { tree, file, fromEnv: overrides.fromEnv };
}

/** The value at `path`, or undefined. */
export function valueAt(tree: Tree, path: readonly string[]): unknown {
  let cursor: unknown = tree;
  for (const part of path) {
    if (!isTree(cursor)) return undefined;
    cursor = cursor[part];
  }
  return cursor;
}

/** Every leaf (non-object value, arrays included) with its path. */
export function leaves(tree: Tree, prefix: readonly string[] = []): [string[], unknown][] {
  const out: [string[], unknown][] = [];
  for (const [key, value] of Object.entries(tree)) {
    const path = [...prefix, key];
    if (isTree(value) && Object.keys(value).length > 0) out.push(...leaves(value, path));
    else out.push([path, value]);
  }
  return out;
}

/**
 * The name a message gives a key: its env variable when the value came from there, else its path in the
 * file (rdkafka keys keep their own dots, e.g. `…rdkafkaConf.metadata.broker.list`).
 */
export function keyName(source: OriginalSource, path: readonly string[]): string {
  return source.fromEnv.get(pathKey(path)) ?? path.join('.');
}

/**
 * A value of the file or the environment as the text our own parser reads. rc's env values are strings
 * (parse-strings-in-object turns "true"/"10" into typed values in the original; our parser does the same).
 */
export function asText(value: unknown): string {
  if (Array.isArray(value)) return value.map(String).join(',');
  if (value === null) return '';
  return String(value);
}

// Types only: TypeBox's Static derives each setting's TypeScript type from its JSON Schema, and the schemas
// are the JSON Schema literals Type.* would build, so start-up does not load TypeBox's builder (150-250 ms
// on the measured machine; docs/decisions/0011-config-schema.md). ajv, which the services load anyway, checks them.
import type { Static, TUnsafe } from 'typebox';
import { ConfigError, type ConfigErrorClass } from './config-error.js';
import { defineEnvConfig, type EnvConfig, type EnvSchema, type Setting, type SettingType } from './env-config.js';

/**
 * Settings declared once: each one's variable, JSON Schema (TypeBox, so the TypeScript type is derived from
 * it and fastify could take it as is), default, doc and the original's config key in one object. The
 * defaults, the type, the validator and the configuration page are all read from that declaration
 * (docs/decisions/0011-config-schema.md).
 */
export interface Declared<S extends Json<unknown> = Json<unknown>, Optional extends boolean = boolean> extends Setting {
  readonly schema: S;
  readonly default: Static<S> | undefined;
  readonly optional: Optional;
  /** The original's key (dotted path of its config/default.json) this setting answers to, where there is one. */
  readonly original?: string;
}

/** A JSON Schema whose value TypeScript knows as V: what TypeBox's Type.Unsafe returns, without loading it. */
export type Json<V> = TUnsafe<V> & Readonly<Record<string, unknown>>;

/** What every declaration says besides its type. */
export interface About<V> {
  readonly env: string;
  readonly doc: string;
  readonly default: V;
  readonly original?: string;
  readonly aliases?: readonly string[];
}

/** The value a declaration holds. */
export type ValueOf<D> =
  D extends Declared<infer S, infer O> ? (O extends true ? Static<S> | undefined : Static<S>) : never;

/** A service's configuration type: one readonly field per declared setting. */
export type ConfigOf<D extends Record<string, Declared>> = { readonly [K in keyof D]: ValueOf<D[K]> };

const json = <V>(schema: Record<string, unknown>) => Object.freeze(schema) as unknown as Json<V>;

function declare<V>(schema: Json<V>, type: SettingType, about: About<V>): Declared<Json<V>, false> {
  return Object.freeze({ ...about, schema, type, optional: false });
}

const bounds = (min: number, max: number | undefined) =>
  max === undefined ? { minimum: min } : { minimum: min, maximum: max };

/** One constructor per kind of value; each returns the whole declaration of one setting. */
export const setting = {
  string: (about: About<string> & { readonly allowEmpty?: boolean }) =>
    declare(
      json<string>({ type: 'string', minLength: about.allowEmpty ? 0 : 1 }),
      { kind: 'string', allowEmpty: about.allowEmpty },
      about,
    ),
  int: (about: About<number> & { readonly min: number; readonly max?: number }) =>
    declare(
      json<number>({ type: 'integer', ...bounds(about.min, about.max) }),
      { kind: 'int', min: about.min, max: about.max },
      about,
    ),
  decimal: (about: About<number> & { readonly min: number; readonly max?: number }) =>
    declare(
      json<number>({ type: 'number', ...bounds(about.min, about.max) }),
      { kind: 'decimal', min: about.min, max: about.max },
      about,
    ),
  port: (about: About<number>) =>
    declare(json<number>({ type: 'integer', minimum: 0, maximum: 65_535 }), { kind: 'port' }, about),
  url: (about: About<string>) =>
    declare(json<string>({ type: 'string', pattern: '^https?://' }), { kind: 'url' }, about),
  bool: (about: About<boolean>) => declare(json<boolean>({ type: 'boolean' }), { kind: 'bool' }, about),
  list: (about: About<readonly string[]>) =>
    declare(
      json<readonly string[]>({ type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1 }),
      { kind: 'list' },
      about,
    ),
  enum: <const V extends readonly string[]>(values: V, about: About<V[number]>) =>
    declare(json<V[number]>({ enum: [...values] }), { kind: 'enum', values }, about),
  /** Text of a shape a pattern can say, or one only code can (`check`); `message` says which. */
  text: (
    about: About<string> & {
      readonly pattern?: string;
      readonly check?: (text: string) => boolean;
      readonly message: string;
    },
  ) =>
    declare(
      json<string>({ type: 'string', ...(about.pattern === undefined ? {} : { pattern: about.pattern }) }),
      { kind: 'text', pattern: about.pattern, check: about.check, message: about.message },
      about,
    ),
  /** The same setting, unset by default (an empty variable unsets it too): its part is off. */
  optional: <S extends Json<unknown>>(declared: Declared<S, false>): Declared<S, true> =>
    Object.freeze({ ...declared, default: undefined, optional: true as const }),
};

/** A setting with its key, in declaration order: what the configuration page and the original's mapping read. */
export type Listed = Declared & { readonly key: string };

export interface DeclaredConfig<D extends Record<string, Declared>> extends EnvConfig<ConfigOf<D>> {
  readonly declared: D;
  readonly list: readonly Listed[];
  /** The JSON Schema of the whole configuration object (what fastify or ajv take as is). */
  readonly jsonSchema: Readonly<Record<string, unknown>>;
  /** The name `env` gives `key` under: its variable, else the first alias set; undefined when none is. */
  nameIn(env: NodeJS.ProcessEnv, key: keyof D & string): string | undefined;
  /** Stops the start over a rule that spans settings or needs a library: the error names `key`'s variable. */
  refuse(key: keyof D & string, detail: string): never;
}

/** The settings of one service, from their declarations: the defaults and the validator are read from them. */
export function defineSettings<D extends Record<string, Declared>>(
  declared: D,
  options: { readonly error?: ConfigErrorClass } = {},
): DeclaredConfig<D> {
  const ErrorClass = options.error ?? ConfigError;
  const entries = Object.entries(declared);
  const defaults = Object.fromEntries(entries.map(([key, d]) => [key, d.default])) as ConfigOf<D>;
  const config = defineEnvConfig(declared as unknown as EnvSchema<ConfigOf<D>>, defaults, options);
  return {
    ...config,
    declared,
    list: Object.freeze(entries.map(([key, d]) => Object.freeze({ key, ...d }))),
    jsonSchema: Object.freeze({
      type: 'object',
      properties: Object.fromEntries(entries.map(([key, d]) => [key, d.schema])),
      required: entries.filter(([, d]) => !d.optional).map(([key]) => key),
    }),
    nameIn(env, key) {
      const d = declared[key] as Declared;
      return [d.env, ...(d.aliases ?? [])].find((name) => env[name] !== undefined);
    },
    refuse(key, detail) {
      throw new ErrorClass((declared[key] as Declared).env, detail);
    },
  };
}

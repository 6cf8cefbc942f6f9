import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { ConfigError, type ConfigErrorClass } from './config-error.js';

/** What a setting holds; each kind has one JSON Schema and one sentence for a bad value. */
export type SettingType =
  | { readonly kind: 'string'; readonly allowEmpty?: boolean }
  /** Digits only (no 1e3, no 0x10): a typo must not become a number. */
  | { readonly kind: 'int'; readonly min: number; readonly max?: number }
  /** A decimal number (a share, a rate): digits with an optional fraction, no exponent, `min`..`max`. */
  | { readonly kind: 'decimal'; readonly min: number; readonly max?: number }
  | { readonly kind: 'port' }
  /** http or https; trailing slashes are dropped, so paths join with one. */
  | { readonly kind: 'url' }
  | { readonly kind: 'enum'; readonly values: readonly string[] }
  /** Comma separated, blanks dropped, at least one item. */
  | { readonly kind: 'list' }
  /** true/false, on/off, yes/no, 1/0 (any case): the originals' spellings and this project's older ones. */
  | { readonly kind: 'bool' }
  /** Text of a shape a pattern can say (`pattern`), or one only code can (`check`); `message` names it. */
  | {
      readonly kind: 'text';
      readonly pattern?: string;
      readonly check?: (text: string) => boolean;
      readonly message: string;
    };

export interface Setting {
  /** The environment variable. */
  readonly env: string;
  readonly type: SettingType;
  /** What it means; the package README's table says the same. */
  readonly doc: string;
  /**
   * The setting may be unset: its default is undefined, meaning "off" (no fault injected, no external
   * payer). An empty variable counts as unset, so a compose file can clear one with `NAME=`.
   */
  readonly optional?: boolean;
  /**
   * Older names still read when `env` is unset, so a deployment written for them keeps working; a value
   * from one is named by that name in an error.
   */
  readonly aliases?: readonly string[];
  /** The value's JSON Schema, when the declaration brings its own (settings.ts); else made from `type`. */
  readonly schema?: Readonly<Record<string, unknown>>;
}

export type EnvSchema<T> = { readonly [K in keyof T]: Setting };

export interface EnvConfig<T> {
  readonly schema: EnvSchema<T>;
  readonly defaults: Readonly<T>;
  /**
   * Defaults, then `env`, then `overrides` (tests, or values mapped from an original's file), validated as
   * one object and frozen. The first bad value throws the config's ConfigError naming its variable.
   */
  load(env?: NodeJS.ProcessEnv, overrides?: Partial<T>): Readonly<T>;
  /** One setting's value from text; a bad one throws naming `name` (default: its variable). */
  parse<K extends keyof T>(key: K, text: string, name?: string): T[K];
}

function jsonSchemaOf(type: SettingType): Record<string, unknown> {
  switch (type.kind) {
    case 'string':
      return { type: 'string', minLength: type.allowEmpty ? 0 : 1 };
    case 'int':
      return { type: 'integer', minimum: type.min, ...(type.max === undefined ? {} : { maximum: type.max }) };
    case 'decimal':
      return { type: 'number', minimum: type.min, ...(type.max === undefined ? {} : { maximum: type.max }) };
    case 'port':
      return { type: 'integer', minimum: 0, maximum: 65_535 };
    case 'url':
      return { type: 'string', pattern: '^https?://' };
    case 'enum':
      return { enum: [...type.values] };
    case 'list':
      return { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1 };
    case 'bool':
      return { type: 'boolean' };
    case 'text':
      return { type: 'string', ...(type.pattern === undefined ? {} : { pattern: type.pattern }) };
  }
}

/** The sentence after the key; `shown` is the value as the operator wrote it. */
function detailOf(type: SettingType, shown: string): string {
  const got = `got "${shown}"`;
  switch (type.kind) {
    case 'string':
      return 'must not be empty';
    case 'int':
      return `must be a whole number from ${type.min}${type.max === undefined ? '' : ` to ${type.max}`}, ${got}`;
    case 'decimal':
      return `must be a number from ${type.min}${type.max === undefined ? '' : ` to ${type.max}`}, ${got}`;
    case 'port':
      return `must be a TCP port (0-65535), ${got}`;
    case 'url':
      return `must be an http(s) URL, ${got}`;
    case 'enum':
      return `must be one of ${type.values.join(', ')}, ${got}`;
    case 'list':
      return 'must list at least one value';
    case 'bool':
      return `must be true or false (or on/off, yes/no, 1/0), ${got}`;
    case 'text':
      return `${type.message}, ${got}`;
  }
}

const truthy: ReadonlySet<string> = new Set(['true', 'on', 'yes', '1']);
const falsy: ReadonlySet<string> = new Set(['false', 'off', 'no', '0']);

/**
 * Env text to the value the schema checks. Text that is not of the kind stays text, so the validator
 * refuses it with the rest (a word where a number belongs fails `type: integer`).
 */
function fromText(type: SettingType, text: string): unknown {
  switch (type.kind) {
    case 'int':
    case 'port': {
      const value = Number(text);
      return /^-?\d+$/.test(text.trim()) && Number.isSafeInteger(value) ? value : text;
    }
    case 'decimal':
      // Number() alone would take '', '0x1', '1e3' and 'Infinity'.
      return /^-?(\d+(\.\d*)?|\.\d+)$/.test(text.trim()) ? Number(text) : text;
    case 'url':
      return text.replace(/\/+$/, '');
    case 'list':
      return Object.freeze(
        text
          .split(',')
          .map((item) => item.trim())
          .filter((item) => item !== ''),
      );
    case 'bool': {
      const word = text.trim().toLowerCase();
      return truthy.has(word) ? true : falsy.has(word) ? false : text;
    }
    default:
      return text;
  }
}

/** What JSON Schema cannot say: a URL's syntax, a `check`. An unset optional setting has nothing to check. */
function passesCheck(type: SettingType, value: unknown): boolean {
  if (value === undefined) return true;
  if (type.kind === 'url') return typeof value === 'string' && URL.canParse(value);
  if (type.kind === 'text' && type.check) return type.check(String(value));
  return true;
}

/**
 * One service's settings: a schema (variable, type, doc per key) and a defaults object, checked by ajv, the
 * validator the ALS already ships for FSPIOP bodies. The habit of fastify's lib/initial-config-validation.js:
 * one schema, validated at start, frozen, the bad key named.
 */
export function defineEnvConfig<T extends object>(
  schema: EnvSchema<T>,
  defaults: T,
  options: { readonly error?: ConfigErrorClass } = {},
): EnvConfig<T> {
  const ErrorClass = options.error ?? ConfigError;
  const entries = Object.entries(schema) as [keyof T & string, Setting][];
  const ajv = new Ajv({ allErrors: false, strict: true });
  const validateAll = ajv.compile({
    type: 'object',
    properties: Object.fromEntries(
      entries.map(([key, setting]) => [key, setting.schema ?? jsonSchemaOf(setting.type)]),
    ),
    required: entries.filter(([, setting]) => !setting.optional).map(([key]) => key),
    additionalProperties: false,
  });
  // One setting alone is checked only for values mapped from an original's file: compiled when first asked.
  const validateOne = new Map<keyof T, ValidateFunction>();
  const validatorOf = (key: keyof T & string) => {
    let validate = validateOne.get(key);
    if (!validate) {
      validate = ajv.compile(schema[key].schema ?? jsonSchemaOf(schema[key].type));
      validateOne.set(key, validate);
    }
    return validate;
  };

  const shownOf = (value: unknown) => (Array.isArray(value) ? value.join(',') : String(value));
  const fail = (key: keyof T & string, value: unknown, name?: string): never => {
    const setting = schema[key];
    throw new ErrorClass(name ?? setting.env, detailOf(setting.type, shownOf(value)));
  };
  const keyOf = (error: ErrorObject): keyof T & string => {
    const fromPath = error.instancePath.split('/')[1];
    const missing = (error.params as { missingProperty?: string }).missingProperty;
    return (fromPath ?? missing) as keyof T & string;
  };

  const defaultsFrozen = Object.freeze({ ...defaults });

  return {
    schema,
    defaults: defaultsFrozen,
    load(env = process.env, overrides = {}) {
      const values: Record<string, unknown> = { ...(defaults as Record<string, unknown>) };
      const shown: Record<string, unknown> = {};
      // The name a value was read under, when an alias: the error names what the operator wrote.
      const names = new Map<string, string>();
      for (const [key, setting] of entries) {
        let text = env[setting.env];
        for (const alias of setting.aliases ?? []) {
          if (text !== undefined) break;
          text = env[alias];
          if (text !== undefined) names.set(key, alias);
        }
        if (text === '' && setting.optional) {
          values[key] = undefined;
        } else if (text !== undefined) {
          values[key] = fromText(setting.type, text);
          shown[key] = text;
        }
        if (key in overrides) {
          names.delete(key);
          const value = (overrides as Record<string, unknown>)[key];
          // A URL given in code is normalised like one from the environment.
          values[key] =
            setting.type.kind === 'url' && typeof value === 'string' ? fromText(setting.type, value) : value;
          shown[key] = value;
        }
      }
      if (!validateAll(values)) {
        const key = keyOf((validateAll.errors as ErrorObject[])[0] as ErrorObject);
        fail(key, key in shown ? shown[key] : values[key], names.get(key));
      }
      for (const [key, setting] of entries) {
        if (!passesCheck(setting.type, values[key])) fail(key, key in shown ? shown[key] : values[key], names.get(key));
      }
      return Object.freeze(values) as Readonly<T>;
    },
    parse(key, text, name) {
      const k = key as keyof T & string;
      const setting = schema[k];
      const value = fromText(setting.type, text);
      if (!validatorOf(k)(value) || !passesCheck(setting.type, value)) fail(k, text, name);
      return value as T[typeof key];
    },
  };
}

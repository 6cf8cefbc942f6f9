import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, defineEnvConfig, type EnvSchema, readOriginalSource } from '../src/index.js';

interface Settings {
  name: string;
  note: string;
  port: number;
  workers: number;
  url: string;
  mode: 'on' | 'off';
  topics: readonly string[];
  fresh: boolean;
  schedule: string;
  pair: string;
}

const schema: EnvSchema<Settings> = {
  name: { env: 'T_NAME', type: { kind: 'string' }, doc: 'a name' },
  note: { env: 'T_NOTE', type: { kind: 'string', allowEmpty: true }, doc: 'may be empty' },
  port: { env: 'T_PORT', type: { kind: 'port' }, doc: 'a port' },
  workers: { env: 'T_WORKERS', type: { kind: 'int', min: 1, max: 8 }, doc: 'a count' },
  url: { env: 'T_URL', type: { kind: 'url' }, doc: 'a URL' },
  mode: { env: 'T_MODE', type: { kind: 'enum', values: ['on', 'off'] }, doc: 'a switch' },
  topics: { env: 'T_TOPICS', type: { kind: 'list' }, doc: 'a list' },
  fresh: { env: 'T_FRESH', type: { kind: 'bool' }, doc: 'a flag' },
  schedule: { env: 'T_SCHEDULE', type: { kind: 'text', pattern: '^\\d+s$', message: 'must be seconds' }, doc: 'x' },
  pair: {
    env: 'T_PAIR',
    type: { kind: 'text', check: (text) => text.split(':').length === 2, message: 'must be a:b' },
    doc: 'y',
  },
};

const defaults: Settings = {
  name: 'svc',
  note: '',
  port: 80,
  workers: 1,
  url: 'http://127.0.0.1:1',
  mode: 'off',
  topics: ['t'],
  fresh: true,
  schedule: '5s',
  pair: 'a:b',
};

const config = defineEnvConfig(schema, defaults);

describe('defineEnvConfig', () => {
  it('gives the defaults for an empty environment, frozen', () => {
    const loaded = config.load({});
    expect(loaded).toEqual(defaults);
    expect(Object.isFrozen(loaded)).toBe(true);
  });

  it('converts env text to the kind: numbers, lists, booleans, URLs without trailing slashes', () => {
    expect(
      config.load({
        T_PORT: '0',
        T_WORKERS: ' 8 ',
        T_URL: 'https://x.test/base//',
        T_TOPICS: 'a, ,b',
        T_FRESH: '0',
        T_NOTE: '',
      }),
    ).toMatchObject({ port: 0, workers: 8, url: 'https://x.test/base', topics: ['a', 'b'], fresh: false, note: '' });
  });

  it('lays overrides over the environment and checks them too', () => {
    expect(config.load({ T_WORKERS: '2' }, { workers: 3 }).workers).toBe(3);
    // Bad input: an override out of range is refused like an env value, naming the variable.
    expect(() => config.load({}, { workers: 9 })).toThrow(/^T_WORKERS: must be a whole number from 1 to 8, got "9"$/);
  });

  it.each([
    ['T_NAME', '', /^T_NAME: must not be empty$/],
    ['T_PORT', '70000', /^T_PORT: must be a TCP port \(0-65535\), got "70000"$/],
    ['T_WORKERS', 'ten', /^T_WORKERS: must be a whole number from 1 to 8, got "ten"$/],
    ['T_WORKERS', '1e0', /^T_WORKERS: must be a whole number/],
    ['T_WORKERS', '0', /^T_WORKERS: must be a whole number from 1 to 8, got "0"$/],
    ['T_URL', 'ftp://x', /^T_URL: must be an http\(s\) URL, got "ftp:\/\/x"$/],
    ['T_URL', 'http://', /^T_URL: must be an http\(s\) URL/],
    ['T_MODE', 'maybe', /^T_MODE: must be one of on, off, got "maybe"$/],
    ['T_TOPICS', ' , ', /^T_TOPICS: must list at least one value$/],
    ['T_FRESH', 'maybe', /^T_FRESH: must be true or false \(or on\/off, yes\/no, 1\/0\), got "maybe"$/],
    ['T_SCHEDULE', 'soon', /^T_SCHEDULE: must be seconds, got "soon"$/],
    ['T_PAIR', 'abc', /^T_PAIR: must be a:b, got "abc"$/],
  ])('names the bad variable (bad input %s=%j)', (env, text, message) => {
    expect(() => config.load({ [env]: text })).toThrow(ConfigError);
    expect(() => config.load({ [env]: text })).toThrow(message);
  });

  it('parses one value under another name (an original key), and keeps a subclass separator', () => {
    expect(config.parse('workers', '4', 'ORIGINAL.WORKERS')).toBe(4);
    expect(() => config.parse('workers', '40', 'ORIGINAL.WORKERS')).toThrow(/^ORIGINAL\.WORKERS: must be/);
    class SpacedError extends ConfigError {
      static override separator = ' ';
    }
    const spaced = defineEnvConfig(schema, defaults, { error: SpacedError });
    expect(() => spaced.load({ T_MODE: 'x' })).toThrow(SpacedError);
    expect(() => spaced.load({ T_MODE: 'x' })).toThrow(/^T_MODE must be one of/);
  });
});

describe('readOriginalSource', () => {
  const dir = mkdtempSync(join(tmpdir(), 'service-kit-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('merges the rc overrides of the app over the file, leaving our own variables out', () => {
    const file = join(dir, 'default.json');
    writeFileSync(file, JSON.stringify({ DATABASE: { HOST: 'db', PORT: 3306 }, PORT: 1 }));
    const env = { CONFIG_FILE: file, APP_DATABASE__HOST: 'other', app_PORT: '2', APP_OURS: 'x' };
    const source = readOriginalSource('APP', env, '', new Set(['APP_OURS']));
    expect(source.file).toBe(file);
    expect(source.tree).toEqual({ DATABASE: { HOST: 'other', PORT: 3306 }, PORT: '2' });
    expect(source.fromEnv.get('DATABASE\u0000HOST')).toBe('APP_DATABASE__HOST');
  });

  it('stops on a CONFIG_FILE that is not JSON, in the class it is given (bad input: a text file)', () => {
    const file = join(dir, 'bad.json');
    writeFileSync(file, 'PORT=1');
    expect(() => readOriginalSource('APP', { CONFIG_FILE: file }, '')).toThrow(/^CONFIG_FILE: cannot be read as JSON/);
    class SpacedError extends ConfigError {
      static override separator = ' ';
    }
    expect(() => readOriginalSource('APP', { CONFIG_FILE: file }, '', new Set(), SpacedError)).toThrow(
      /^CONFIG_FILE cannot be read as JSON/,
    );
  });
});

describe('optional settings and decimals', () => {
  interface Faults {
    rate: number;
    dropRate: number | undefined;
    target: string | undefined;
    prefix: string | undefined;
    peers: readonly string[] | undefined;
  }
  const faults = defineEnvConfig<Faults>(
    {
      rate: { env: 'F_RATE', type: { kind: 'decimal', min: 0 }, doc: 'a rate' },
      dropRate: { env: 'F_DROP_RATE', type: { kind: 'decimal', min: 0, max: 1 }, doc: 'a share', optional: true },
      target: { env: 'F_TARGET', type: { kind: 'url' }, doc: 'a URL', optional: true },
      prefix: { env: 'F_PREFIX', type: { kind: 'string', allowEmpty: true }, doc: 'a prefix', optional: true },
      peers: { env: 'F_PEERS', type: { kind: 'list' }, doc: 'a list', optional: true },
    },
    { rate: 2.5, dropRate: undefined, target: undefined, prefix: undefined, peers: undefined },
  );

  it('leaves an optional setting unset (undefined) when its variable is absent or empty', () => {
    const loaded = faults.load({ F_TARGET: '', F_PREFIX: '' });
    expect(loaded).toEqual({ rate: 2.5, dropRate: undefined, target: undefined, prefix: undefined, peers: undefined });
    expect(Object.isFrozen(loaded)).toBe(true);
  });

  it('converts and checks an optional setting that is set like any other', () => {
    expect(
      faults.load({ F_DROP_RATE: '0.25', F_TARGET: 'http://x.test/', F_PREFIX: 'nf-', F_PEERS: 'a,b', F_RATE: '.5' }),
    ).toEqual({ rate: 0.5, dropRate: 0.25, target: 'http://x.test', prefix: 'nf-', peers: ['a', 'b'] });
    // Bad input: a share above 1 and a URL of another scheme, both only when set.
    expect(() => faults.load({ F_DROP_RATE: '1.5' })).toThrow(/^F_DROP_RATE: must be a number from 0 to 1, got "1.5"$/);
    expect(() => faults.load({ F_TARGET: 'ftp://x' })).toThrow(/^F_TARGET: must be an http\(s\) URL, got "ftp:\/\/x"$/);
    // An override may unset an optional setting, never a required one.
    expect(faults.load({ F_DROP_RATE: '0.5' }, { dropRate: undefined }).dropRate).toBeUndefined();
    expect(() => faults.load({}, { rate: undefined as unknown as number })).toThrow(/^F_RATE: must be a number/);
  });

  it.each([
    ['1e-1', 'an exponent'],
    ['0x1', 'hex'],
    ['Infinity', 'a word Number() takes'],
    ['1.2.3', 'two points'],
    ['-0.1', 'below the minimum'],
    [' ', 'blank'],
  ])('refuses %j as a decimal (bad input: %s), naming the variable', (text) => {
    expect(() => faults.load({ F_RATE: text })).toThrow(ConfigError);
    expect(() => faults.load({ F_RATE: text })).toThrow(/^F_RATE: must be a number from 0, got /);
  });

  it('judges one explicit value by its kind (a command-line flag): empty text is a value, not unset', () => {
    expect(faults.parse('prefix', '', '--prefix')).toBe('');
    expect(faults.parse('dropRate', '1', '--drop-rate')).toBe(1);
    expect(() => faults.parse('dropRate', 'half', '--drop-rate')).toThrow(/^--drop-rate: must be a number from 0 to 1/);
  });
});

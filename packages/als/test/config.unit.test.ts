import { readFileSync } from 'node:fs';
import { withSettings } from '@mojafast/service-kit';
import { describe, expect, it } from 'vitest';
import { AlsErrors, ConfigError, defaults, loadConfig, settings } from '../src/index.js';

const failures = readFileSync(new URL('../docs/failures.md', import.meta.url), 'utf8');
const page = readFileSync(new URL('../docs/configuration.md', import.meta.url), 'utf8');

describe('configuration', () => {
  it('uses the defaults without env, frozen', () => {
    const config = loadConfig({});
    expect(config).toEqual(defaults);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('reads env overrides and names the exact bad variable', () => {
    expect(loadConfig({ ALS_PORT: '0', ALS_PROCESSES: '4' })).toMatchObject({ port: 0, processes: 4 });
    expect(() => loadConfig({ ALS_PORT: '70000' })).toThrow(/^ALS_PORT: must be a TCP port/);
    expect(() => loadConfig({ ALS_SWITCH_ENDPOINT: 'ftp://x' })).toThrow(ConfigError);
    expect(() => loadConfig({ ALS_HUB_FSPIOP_VERSION: '3.0' })).toThrow(/^ALS_HUB_FSPIOP_VERSION: must be one of/);
    expect(() => loadConfig({ ALS_PROCESSES: '0' })).toThrow(/^ALS_PROCESSES:/);
    // Bad input: the proxy and timeout settings are checked at start too, naming the variable.
    expect(() => loadConfig({ ALS_PROXY_CACHE_NODES: 'redis-without-port' })).toThrow(
      /^ALS_PROXY_CACHE_NODES: must be host:port/,
    );
    expect(() => loadConfig({ ALS_TIMEOUT_SCHEDULE: 'every 15 s' })).toThrow(/^ALS_TIMEOUT_SCHEDULE: must be a cron/);
    expect(loadConfig({ ALS_PROXY_CACHE_NODES: 'a:7000,b:7001' }).proxyCacheNodes).toBe('a:7000,b:7001');
  });

  it('checks the fields of the timeout schedule when the timeout handler runs (bad input: a seventh field)', () => {
    const on = { ALS_PROXY_CACHE: 'true', ALS_TIMEOUT_HANDLER: 'true' };
    // The shape passes the schema's pattern; the cron library refuses the month 13.
    expect(() => loadConfig({ ...on, ALS_TIMEOUT_SCHEDULE: '0 0 0 1 13 *' })).toThrow(
      /^ALS_TIMEOUT_SCHEDULE: must be a cron expression, got "0 0 0 1 13 \*"$/,
    );
    // With the handler off the schedule is not used, so only its shape is checked.
    expect(loadConfig({ ALS_TIMEOUT_SCHEDULE: '0 0 0 1 13 *' }).timeoutSchedule).toBe('0 0 0 1 13 *');
  });

  it('reads booleans as the originals and this project spelled them', () => {
    for (const [text, value] of [
      ['on', true],
      ['off', false],
      ['true', true],
      ['FALSE', false],
      ['yes', true],
      ['no', false],
      ['1', true],
      ['0', false],
    ] as const) {
      expect(loadConfig({ ALS_JWS_SIGN: text }).jwsSign, text).toBe(value);
    }
    expect(() => loadConfig({ ALS_JWS_SIGN: 'maybe' })).toThrow(
      /^ALS_JWS_SIGN: must be true or false .*, got "maybe"$/,
    );
  });

  it('has one setting per config key, and docs/configuration.md is the table rendered from them (pnpm config:page)', () => {
    expect(settings.map((s) => s.key).sort()).toEqual(Object.keys(defaults).sort());
    expect(withSettings(page, settings)).toBe(page);
  });
});

describe('error catalogue', () => {
  it('matches the table of docs/failures.md: name, code and synchronous status', () => {
    for (const [name, entry] of Object.entries(AlsErrors)) {
      const row = failures.split('\n').find((line) => line.startsWith(`| \`${name}\``));
      expect(row, name).toBeDefined();
      expect(row).toContain(`| ${entry.fspiop.code} |`);
      expect(row).toContain(`| ${entry.status ?? 'callback'} |`);
    }
  });
});

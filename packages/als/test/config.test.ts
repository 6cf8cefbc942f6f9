import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AlsErrors, ConfigError, defaults, loadConfig, settings } from '../src/index.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

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

  it('has one setting per config key, and the README documents every variable with its default', () => {
    expect(settings.map((s) => s.key).sort()).toEqual(Object.keys(defaults).sort());
    for (const setting of settings) {
      const row = readme.split('\n').find((line) => line.startsWith(`| \`${setting.env}\``));
      expect(row, setting.env).toBeDefined();
      expect(row).toContain(`\`${String(defaults[setting.key]) || '(empty)'}\``);
    }
  });
});

describe('error catalogue', () => {
  it('matches the README table: name, code and synchronous status', () => {
    for (const [name, entry] of Object.entries(AlsErrors)) {
      const row = readme.split('\n').find((line) => line.startsWith(`| \`${name}\``));
      expect(row, name).toBeDefined();
      expect(row).toContain(`| ${entry.fspiop.code} |`);
      expect(row).toContain(`| ${entry.status ?? 'callback'} |`);
    }
  });
});

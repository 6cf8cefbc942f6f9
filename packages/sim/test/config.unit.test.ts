import { ConfigError } from '@mojafast/service-kit';
import { describe, expect, it } from 'vitest';
import { loadSimConfig, simConfigDefaults, simConfigSchema, simUsage } from '../src/index.js';

describe('sim settings (flags over SIM_* variables over defaults)', () => {
  it('gives the defaults with nothing set, every fault and option off, frozen', () => {
    const { help, config } = loadSimConfig([], {});
    expect(help).toBe(false);
    expect(config).toEqual(simConfigDefaults);
    expect(config).toMatchObject({ fsps: 10, payers: 0, alsUrl: 'http://127.0.0.1:4002', portBase: 0 });
    expect(config.payeeLatency).toBeUndefined();
    expect(config.dropRate).toBeUndefined();
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('reads the variables and lets a flag override its variable', () => {
    const env = {
      SIM_FSPS: '20',
      SIM_ALS_URL: 'http://als:4002/',
      SIM_PAYEE_LATENCY: '3500-7000',
      SIM_DROP_RATE: '0.1',
      SIM_DEAD_FSPS: 'a, b',
    };
    const { config, nameOf } = loadSimConfig(['--fsps', '3', '--payee-error-rate', '0.5', '--help'], env);
    expect(config).toMatchObject({
      fsps: 3,
      alsUrl: 'http://als:4002',
      payeeLatency: '3500-7000',
      payeeErrorRate: 0.5,
      dropRate: 0.1,
      deadFsps: ['a', 'b'],
    });
    expect(nameOf('fsps')).toBe('--fsps');
    expect(nameOf('dropRate')).toBe('SIM_DROP_RATE');
    expect(loadSimConfig(['--help'], {}).help).toBe(true);
  });

  it('keeps an empty prefix given as a flag (every ID), and takes an empty variable as unset', () => {
    expect(loadSimConfig(['--not-found-prefix', ''], {}).config.notFoundPrefix).toBe('');
    expect(loadSimConfig([], { SIM_NOT_FOUND_PREFIX: '' }).config.notFoundPrefix).toBeUndefined();
  });

  it.each([
    [['--fsps', 'ten'], {}, /^--fsps: must be a whole number from 0, got "ten"$/],
    [[], { SIM_FSPS: '-1' }, /^SIM_FSPS: must be a whole number from 0, got "-1"$/],
    [['--drop-rate', '1.5'], {}, /^--drop-rate: must be a number from 0 to 1, got "1.5"$/],
    [[], { SIM_ORACLE_RESET_RATE: 'half' }, /^SIM_ORACLE_RESET_RATE: must be a number from 0 to 1, got "half"$/],
    [['--payee-latency', '7000-3500'], {}, /^--payee-latency: must be milliseconds .*, got "7000-3500"$/],
    [[], { SIM_ADMIN_LATENCY: 'slow' }, /^SIM_ADMIN_LATENCY: must be milliseconds .*, got "slow"$/],
    [[], { SIM_PAYER_URL: 'ftp://payer' }, /^SIM_PAYER_URL: must be an http\(s\) URL, got "ftp:\/\/payer"$/],
    [['--port-base', '65535'], {}, /^--port-base: must be a whole number from 0 to 65532, got "65535"$/],
  ])('refuses the bad value %j %j, naming the flag or variable it came from', (args, env, message) => {
    expect(() => loadSimConfig(args, env)).toThrow(ConfigError);
    expect(() => loadSimConfig(args, env)).toThrow(message);
  });

  it('refuses an unknown flag (bad input: --fspz)', () => {
    expect(() => loadSimConfig(['--fspz', '3'], {})).toThrow(/Unknown option '--fspz'/);
  });

  it('names every setting of the schema in its --help, as the flag of its variable, with its default', () => {
    const flags = new Set([...simUsage.matchAll(/--([\w-]+)/g)].map(([, flag]) => flag));
    const missing = Object.values(simConfigSchema)
      .map((setting) => setting.env.slice('SIM_'.length).toLowerCase().replaceAll('_', '-'))
      .filter((flag) => !flags.has(flag));
    expect(missing).toEqual([]);
    expect(simUsage).toMatch(/--fsps FSPS +payee FSPs payeefsp1\.\.N \(10\)/);
  });
});

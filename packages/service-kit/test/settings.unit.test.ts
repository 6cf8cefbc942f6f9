import { describe, expect, expectTypeOf, it } from 'vitest';
import { ConfigError, type ConfigOf, defineSettings, renderSettings, setting, withSettings } from '../src/index.js';

const declared = {
  port: setting.port({ env: 'T_PORT', default: 80, doc: 'a port', original: 'SERVER.PORT' }),
  mode: setting.enum(['fast', 'safe'], { env: 'T_MODE', default: 'safe', doc: 'a mode' }),
  fresh: setting.bool({ env: 'T_FRESH', default: false, doc: 'a flag', aliases: ['FRESH'] }),
  topics: setting.list({ env: 'T_TOPICS', default: Object.freeze(['a']), doc: 'topics | pipes' }),
  target: setting.optional(setting.url({ env: 'T_TARGET', default: '', doc: 'where to' })),
};
const config = defineSettings(declared);

describe('settings declared once', () => {
  it('derives the type, the defaults and the JSON Schema from the declarations', () => {
    expectTypeOf<ConfigOf<typeof declared>>().toEqualTypeOf<{
      readonly port: number;
      readonly mode: 'fast' | 'safe';
      readonly fresh: boolean;
      readonly topics: readonly string[];
      readonly target: string | undefined;
    }>();
    expect(config.defaults).toEqual({ port: 80, mode: 'safe', fresh: false, topics: ['a'], target: undefined });
    expect(config.jsonSchema).toMatchObject({
      type: 'object',
      properties: { port: { type: 'integer', minimum: 0, maximum: 65_535 }, mode: { enum: ['fast', 'safe'] } },
      required: ['port', 'mode', 'fresh', 'topics'],
    });
  });

  it('reads an older name when the variable is unset, the variable winning, and names the alias in an error', () => {
    expect(config.load({ FRESH: 'yes' }).fresh).toBe(true);
    expect(config.load({ FRESH: 'yes', T_FRESH: 'off' }).fresh).toBe(false);
    // Bad input under the alias: the operator's own name is in the message.
    expect(() => config.load({ FRESH: 'perhaps' })).toThrow(/^FRESH: must be true or false/);
  });

  it('refuses a rule that spans settings naming the variable', () => {
    expect(() => config.refuse('mode', 'must be safe with T_FRESH')).toThrow(ConfigError);
    expect(() => config.refuse('mode', 'must be safe with T_FRESH')).toThrow(/^T_MODE: must be safe with T_FRESH$/);
  });

  it('renders the configuration table into the marked region only', () => {
    const table = renderSettings(config.list);
    expect(table.split('\n')).toEqual([
      '| variable | type | default | meaning | original key |',
      '|---|---|---|---|---|',
      '| `T_PORT` | port 0–65535 | `80` | a port | `SERVER.PORT` |',
      '| `T_MODE` | `fast`, `safe` | `safe` | a mode |  |',
      '| `T_FRESH`<br>alias `FRESH` | boolean | `false` | a flag |  |',
      '| `T_TOPICS` | comma-separated list | `a` | topics \\| pipes |  |',
      '| `T_TARGET` | http(s) URL | (unset) | where to |  |',
    ]);
    const page = '# x\n\n<!-- settings -->\nstale\n<!-- /settings -->\nafter\n';
    expect(withSettings(page, config.list)).toBe(`# x\n\n<!-- settings -->\n${table}\n<!-- /settings -->\nafter\n`);
    expect(() => withSettings('# no region', config.list)).toThrow(/no <!-- settings -->/);
  });
});

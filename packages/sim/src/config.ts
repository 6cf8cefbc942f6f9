import { parseArgs } from 'node:util';
import { type ConfigOf, defineSettings, setting } from '@mojafast/service-kit';
import { parseLatency } from './faults.js';

/** A share, 0 to 1. */
const share = (env: string, doc: string) => setting.optional(setting.decimal({ env, doc, default: 0, min: 0, max: 1 }));
/** Milliseconds `MS` or a range `MIN-MAX`, checked by the parser the simulators use. */
const latency = (env: string, doc: string) =>
  setting.optional(
    setting.text({
      env,
      doc,
      default: '0',
      check: (text) => {
        try {
          parseLatency(text);
          return true;
        } catch {
          return false;
        }
      },
      message: 'must be milliseconds "MS" or a range "MIN-MAX" with MIN <= MAX',
    }),
  );
/** One simulator's faults, each unset (none injected) by default. */
const faults = (who: 'admin' | 'oracle' | 'payee' | 'payer') => {
  const env = `SIM_${who.toUpperCase()}`;
  return {
    [`${who}Latency`]: latency(`${env}_LATENCY`, `${who} latency, MS or MIN-MAX`),
    [`${who}ErrorRate`]: share(`${env}_ERROR_RATE`, `share of 500 answers of the ${who}`),
    [`${who}ResetRate`]: share(`${env}_RESET_RATE`, `share of reset connections of the ${who}`),
  } as Record<`${typeof who}${'Latency'}`, ReturnType<typeof latency>> &
    Record<`${typeof who}${'ErrorRate' | 'ResetRate'}`, ReturnType<typeof share>>;
};

/**
 * The simulators' settings, each declared once (variable, type, default, doc): the SimConfig type, the
 * defaults, the validator and the `--help` text are read from here. Each is a flag `--name` and the variable
 * `SIM_NAME` (the flag wins); an optional one left unset turns its part off (no fault injected, the built-in
 * payer, no file read).
 */
const declared = {
  fsps: setting.int({ env: 'SIM_FSPS', default: 10, min: 0, doc: 'payee FSPs payeefsp1..N' }),
  payers: setting.int({ env: 'SIM_PAYERS', default: 0, min: 0, doc: 'extra payer FSPs payerfsp1..M' }),
  alsUrl: setting.url({ env: 'SIM_ALS_URL', default: 'http://127.0.0.1:4002', doc: 'where payee callbacks go' }),
  payerUrl: setting.optional(
    setting.url({
      env: 'SIM_PAYER_URL',
      default: '',
      doc: 'an external payer instead of the built-in payer simulator',
    }),
  ),
  // admin P, oracle P+1, payee P+2, payer P+3: the last must still be a port.
  portBase: setting.int({
    env: 'SIM_PORT_BASE',
    default: 0,
    min: 0,
    max: 65_532,
    doc: 'admin P, oracle P+1, payee P+2, payer P+3; 0 = free ports',
  }),
  host: setting.optional(
    setting.string({ env: 'SIM_HOST', default: '', doc: 'address to listen on (127.0.0.1; 0.0.0.0 in a container)' }),
  ),
  publicHost: setting.optional(
    setting.string({
      env: 'SIM_PUBLIC_HOST',
      default: '',
      doc: 'host name in the URLs handed out, e.g. the Service name (the listen address)',
    }),
  ),
  notFoundPrefix: setting.optional(
    setting.string({
      env: 'SIM_NOT_FOUND_PREFIX',
      default: '',
      allowEmpty: true,
      doc: 'oracle IDs with this prefix are not found (404)',
    }),
  ),
  payeeErrorPrefix: setting.optional(
    setting.string({
      env: 'SIM_PAYEE_ERROR_PREFIX',
      default: '',
      allowEmpty: true,
      doc: 'payee answers PUT .../error for IDs with this prefix',
    }),
  ),
  dropRate: share('SIM_DROP_RATE', 'share of lookups the payee never calls back'),
  deadFsps: setting.optional(
    setting.list({ env: 'SIM_DEAD_FSPS', default: [], doc: 'FSPs whose endpoints point at a closed port (a,b)' }),
  ),
  participantsFile: setting.optional(
    setting.string({
      env: 'SIM_PARTICIPANTS_FILE',
      default: '',
      doc: 'JSON {"name":{"endpointBase":"http://...","currencies":["USD"],"isActive":true}}',
    }),
  ),
  partiesFile: setting.optional(
    setting.string({
      env: 'SIM_PARTIES_FILE',
      default: '',
      doc: 'JSON {"MSISDN/123":[{"fspId":"payeefsp1","currency":"USD"}]} for the oracle',
    }),
  ),
  ...faults('admin'),
  ...faults('oracle'),
  ...faults('payee'),
  ...faults('payer'),
};

export type SimConfig = ConfigOf<typeof declared>;
const simConfig = defineSettings(declared);
/** Every setting by key (its variable, type, default, doc). */
export const simConfigSchema = simConfig.declared;
export const simConfigDefaults: SimConfig = simConfig.defaults;

const keys = Object.keys(simConfigSchema) as (keyof SimConfig)[];

/** `SIM_DEAD_FSPS` → `dead-fsps`: every variable is its flag in upper case with the prefix. */
function flagOf(key: keyof SimConfig): string {
  return simConfigSchema[key].env.slice('SIM_'.length).toLowerCase().replaceAll('_', '-');
}

const flagOptions: Record<string, { type: 'string' | 'boolean' }> = {
  help: { type: 'boolean' },
  ...Object.fromEntries(keys.map((key) => [flagOf(key), { type: 'string' as const }])),
};

export interface SimStartup {
  /** `--help`: print the usage, start nothing. */
  readonly help: boolean;
  readonly config: Readonly<SimConfig>;
  /** Where a setting came from, for a message about its value: `--flag` when given, else its variable. */
  nameOf(key: keyof SimConfig): string;
}

/**
 * The command line over the environment over the defaults, validated and frozen. A bad value throws
 * ConfigError naming the flag or variable it came from; an unknown flag throws parseArgs' error.
 */
export function loadSimConfig(args: readonly string[], env: NodeJS.ProcessEnv = process.env): SimStartup {
  const { values } = parseArgs({ args: [...args], options: flagOptions, strict: true });
  const flags = values as Record<string, string | boolean | undefined>;
  const fromFlags: Partial<Record<keyof SimConfig, unknown>> = {};
  for (const key of keys) {
    const text = flags[flagOf(key)];
    if (typeof text === 'string') fromFlags[key] = simConfig.parse(key, text, `--${flagOf(key)}`);
  }
  return {
    help: flags.help === true,
    config: simConfig.load(env, fromFlags as Partial<SimConfig>),
    nameOf: (key) => (key in fromFlags ? `--${flagOf(key)}` : simConfigSchema[key].env),
  };
}

/**
 * The CLI's `--help`: every setting as its flag with its doc, and its default in brackets where it has one.
 */
export const simUsage = [
  'usage: node dist/sim.js [options]   (every option also as env SIM_<NAME>, e.g. SIM_FSPS=10)',
  ...keys.map((key) => {
    const d = simConfigSchema[key];
    const flag = `--${flagOf(key)} ${d.env.slice('SIM_'.length)}`;
    const fallback = d.optional ? '' : ` (${String(d.default)})`;
    return `  ${flag.padEnd(36)} ${d.doc}${fallback}`;
  }),
].join('\n');

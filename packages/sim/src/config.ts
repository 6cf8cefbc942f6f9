import { parseArgs } from 'node:util';
import { defineEnvConfig, type EnvSchema, type Setting, type SettingType } from '@mojafast/service-kit';
import { parseLatency } from './faults.js';

/**
 * The simulators' settings. Each is a flag `--name` and the variable `SIM_NAME` (the flag wins); an optional
 * one left unset turns its part off (no fault injected, the built-in payer, no file read).
 */
export interface SimConfig {
  readonly fsps: number;
  readonly payers: number;
  readonly alsUrl: string;
  readonly payerUrl: string | undefined;
  readonly portBase: number;
  readonly host: string | undefined;
  readonly publicHost: string | undefined;
  readonly notFoundPrefix: string | undefined;
  readonly payeeErrorPrefix: string | undefined;
  readonly dropRate: number | undefined;
  readonly deadFsps: readonly string[] | undefined;
  readonly participantsFile: string | undefined;
  readonly partiesFile: string | undefined;
  readonly adminLatency: string | undefined;
  readonly adminErrorRate: number | undefined;
  readonly adminResetRate: number | undefined;
  readonly oracleLatency: string | undefined;
  readonly oracleErrorRate: number | undefined;
  readonly oracleResetRate: number | undefined;
  readonly payeeLatency: string | undefined;
  readonly payeeErrorRate: number | undefined;
  readonly payeeResetRate: number | undefined;
  readonly payerLatency: string | undefined;
  readonly payerErrorRate: number | undefined;
  readonly payerResetRate: number | undefined;
}

const share: SettingType = { kind: 'decimal', min: 0, max: 1 };
const latency: SettingType = {
  kind: 'text',
  check: (text) => {
    try {
      parseLatency(text);
      return true;
    } catch {
      return false;
    }
  },
  message: 'must be milliseconds "MS" or a range "MIN-MAX" with MIN <= MAX',
};
const optional = (env: string, type: SettingType, doc: string): Setting => ({ env, type, doc, optional: true });

export const simConfigSchema: EnvSchema<SimConfig> = {
  fsps: { env: 'SIM_FSPS', type: { kind: 'int', min: 0 }, doc: 'payee FSPs payeefsp1..N' },
  payers: { env: 'SIM_PAYERS', type: { kind: 'int', min: 0 }, doc: 'extra payer FSPs payerfsp1..M' },
  alsUrl: { env: 'SIM_ALS_URL', type: { kind: 'url' }, doc: 'where payee callbacks go' },
  payerUrl: optional('SIM_PAYER_URL', { kind: 'url' }, 'an external payer instead of the built-in payer simulator'),
  // admin P, oracle P+1, payee P+2, payer P+3: the last must still be a port.
  portBase: {
    env: 'SIM_PORT_BASE',
    type: { kind: 'int', min: 0, max: 65_532 },
    doc: 'admin P, oracle P+1, payee P+2, payer P+3; 0 = free ports',
  },
  host: optional('SIM_HOST', { kind: 'string' }, 'address to listen on (loopback when unset)'),
  publicHost: optional('SIM_PUBLIC_HOST', { kind: 'string' }, 'host name in the URLs handed out'),
  notFoundPrefix: optional(
    'SIM_NOT_FOUND_PREFIX',
    { kind: 'string', allowEmpty: true },
    'oracle IDs with this prefix are not found',
  ),
  payeeErrorPrefix: optional(
    'SIM_PAYEE_ERROR_PREFIX',
    { kind: 'string', allowEmpty: true },
    'payee answers PUT .../error for IDs with this prefix',
  ),
  dropRate: optional('SIM_DROP_RATE', share, 'share of lookups the payee never calls back'),
  deadFsps: optional('SIM_DEAD_FSPS', { kind: 'list' }, 'FSPs whose endpoints point at a closed port'),
  participantsFile: optional('SIM_PARTICIPANTS_FILE', { kind: 'string' }, 'JSON file of participants'),
  partiesFile: optional('SIM_PARTIES_FILE', { kind: 'string' }, 'JSON file of parties for the oracle'),
  adminLatency: optional('SIM_ADMIN_LATENCY', latency, 'admin latency, MS or MIN-MAX'),
  adminErrorRate: optional('SIM_ADMIN_ERROR_RATE', share, 'share of 500 answers of the admin'),
  adminResetRate: optional('SIM_ADMIN_RESET_RATE', share, 'share of reset connections of the admin'),
  oracleLatency: optional('SIM_ORACLE_LATENCY', latency, 'oracle latency, MS or MIN-MAX'),
  oracleErrorRate: optional('SIM_ORACLE_ERROR_RATE', share, 'share of 500 answers of the oracle'),
  oracleResetRate: optional('SIM_ORACLE_RESET_RATE', share, 'share of reset connections of the oracle'),
  payeeLatency: optional('SIM_PAYEE_LATENCY', latency, 'payee latency, MS or MIN-MAX'),
  payeeErrorRate: optional('SIM_PAYEE_ERROR_RATE', share, 'share of 500 answers of the payee'),
  payeeResetRate: optional('SIM_PAYEE_RESET_RATE', share, 'share of reset connections of the payee'),
  payerLatency: optional('SIM_PAYER_LATENCY', latency, 'payer latency, MS or MIN-MAX'),
  payerErrorRate: optional('SIM_PAYER_ERROR_RATE', share, 'share of 500 answers of the payer'),
  payerResetRate: optional('SIM_PAYER_RESET_RATE', share, 'share of reset connections of the payer'),
};

export const simConfigDefaults: SimConfig = {
  fsps: 10,
  payers: 0,
  alsUrl: 'http://127.0.0.1:4002',
  payerUrl: undefined,
  portBase: 0,
  host: undefined,
  publicHost: undefined,
  notFoundPrefix: undefined,
  payeeErrorPrefix: undefined,
  dropRate: undefined,
  deadFsps: undefined,
  participantsFile: undefined,
  partiesFile: undefined,
  adminLatency: undefined,
  adminErrorRate: undefined,
  adminResetRate: undefined,
  oracleLatency: undefined,
  oracleErrorRate: undefined,
  oracleResetRate: undefined,
  payeeLatency: undefined,
  payeeErrorRate: undefined,
  payeeResetRate: undefined,
  payerLatency: undefined,
  payerErrorRate: undefined,
  payerResetRate: undefined,
};

const simConfig = defineEnvConfig(simConfigSchema, simConfigDefaults);
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

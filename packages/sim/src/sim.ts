#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { runService } from '@mojafast/service-kit';
import { type FaultOptions, parseLatency } from './faults.js';
import { startSimSet } from './set.js';

const usage = `usage: node dist/sim.js [options]   (every option also as env SIM_<NAME>, e.g. SIM_FSPS=10)
  --fsps N                 payee FSPs payeefsp1..N (10)
  --payers M               extra payer FSPs payerfsp1..M (0)
  --als-url URL            where payee callbacks go (http://127.0.0.1:4002)
  --payer-url URL          an external payer instead of the built-in payer simulator
  --port-base P            admin P, oracle P+1, payee P+2, payer P+3; 0 = free ports (0)
  --host H                 address to listen on (127.0.0.1; 0.0.0.0 in a container)
  --public-host H          host name in the URLs handed out, e.g. the Service name (the listen address)
  --not-found-prefix S     oracle IDs with this prefix are not found (404)
  --payee-error-prefix S   payee answers PUT .../error for IDs with this prefix
  --drop-rate R            share of lookups the payee never calls back (0)
  --dead-fsps a,b          FSPs whose endpoints point at a closed port
  --participants-file F    JSON {"name":{"endpointBase":"http://...","currencies":["USD"],"isActive":true}}
  --parties-file F         JSON {"MSISDN/123":[{"fspId":"payeefsp1","currency":"USD"}]} for the oracle
  --{admin,oracle,payee,payer}-latency MS|MIN-MAX
  --{admin,oracle,payee,payer}-error-rate R     share of 500 answers
  --{admin,oracle,payee,payer}-reset-rate R     share of reset connections`;

const sims = ['admin', 'oracle', 'payee', 'payer'] as const;
const options: Record<string, { type: 'string' | 'boolean' }> = {
  fsps: { type: 'string' },
  payers: { type: 'string' },
  'als-url': { type: 'string' },
  'payer-url': { type: 'string' },
  'port-base': { type: 'string' },
  host: { type: 'string' },
  'public-host': { type: 'string' },
  'not-found-prefix': { type: 'string' },
  'payee-error-prefix': { type: 'string' },
  'drop-rate': { type: 'string' },
  'dead-fsps': { type: 'string' },
  'participants-file': { type: 'string' },
  'parties-file': { type: 'string' },
  help: { type: 'boolean' },
};
for (const sim of sims) {
  for (const fault of ['latency', 'error-rate', 'reset-rate']) options[`${sim}-${fault}`] = { type: 'string' };
}

function setting(values: Record<string, unknown>, name: string): string | undefined {
  const flag = values[name];
  if (typeof flag === 'string') return flag;
  return process.env[`SIM_${name.toUpperCase().replaceAll('-', '_')}`];
}

function share(values: Record<string, unknown>, name: string): number | undefined {
  const text = setting(values, name);
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0 || value > 1)
    throw new Error(`--${name} must be between 0 and 1, got "${text}"`);
  return value;
}

function count(values: Record<string, unknown>, name: string, fallback: number): number {
  const text = setting(values, name);
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} must be a whole number, got "${text}"`);
  return value;
}

function jsonFile<T>(values: Record<string, unknown>, name: string): T | undefined {
  const path = setting(values, name);
  if (path === undefined) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch (error) {
    throw new Error(`--${name} ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function faults(values: Record<string, unknown>, sim: string): FaultOptions | undefined {
  const latency = setting(values, `${sim}-latency`);
  const errorRate = share(values, `${sim}-error-rate`);
  const resetRate = share(values, `${sim}-reset-rate`);
  if (latency === undefined && errorRate === undefined && resetRate === undefined) return undefined;
  return { latencyMs: latency === undefined ? undefined : parseLatency(latency), errorRate, resetRate };
}

runService({
  async start() {
    const { values } = parseArgs({ options, strict: true });
    if (values.help) {
      process.stdout.write(`${usage}\n`);
      return undefined;
    }
    const set = await startSimSet({
      fsps: count(values, 'fsps', 10),
      payers: count(values, 'payers', 0),
      alsUrl: setting(values, 'als-url') ?? 'http://127.0.0.1:4002',
      payerUrl: setting(values, 'payer-url'),
      portBase: count(values, 'port-base', 0),
      bind: { host: setting(values, 'host'), publicHost: setting(values, 'public-host') },
      notFoundPrefix: setting(values, 'not-found-prefix'),
      payeeErrorPrefix: setting(values, 'payee-error-prefix'),
      dropRate: share(values, 'drop-rate'),
      deadEndpointFsps: setting(values, 'dead-fsps')
        ?.split(',')
        .map((s) => s.trim())
        .filter(Boolean),
      participants: jsonFile(values, 'participants-file'),
      parties: jsonFile(values, 'parties-file'),
      adminFaults: faults(values, 'admin'),
      oracleFaults: faults(values, 'oracle'),
      payeeFaults: faults(values, 'payee'),
      payerFaults: faults(values, 'payer'),
    });
    process.stdout.write(
      `${JSON.stringify({ ready: true, admin: set.admin.url, oracle: set.oracle.url, payee: set.payee.url, payer: set.payerUrl })}\n`,
    );
    return set;
  },
  stop: (set) => set.close(),
  // A bad flag is the usual cause: the message, then the usage.
  startFailed(error) {
    process.stderr.write(`sim: ${error instanceof Error ? error.message : String(error)}\n${usage}\n`);
    return 1;
  },
});

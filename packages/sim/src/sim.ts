#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { runService } from '@mojafast/service-kit';
import { loadSimConfig } from './config.js';
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

function jsonFile<T>(path: string | undefined, name: string): T | undefined {
  if (path === undefined) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch (error) {
    throw new Error(`${name} ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** A simulator's faults; none set, none injected. */
function faults(
  latency: string | undefined,
  errorRate: number | undefined,
  resetRate: number | undefined,
): FaultOptions | undefined {
  if (latency === undefined && errorRate === undefined && resetRate === undefined) return undefined;
  return { latencyMs: latency === undefined ? undefined : parseLatency(latency), errorRate, resetRate };
}

runService({
  async start() {
    const { help, config: c, nameOf } = loadSimConfig(process.argv.slice(2));
    if (help) {
      process.stdout.write(`${usage}\n`);
      return undefined;
    }
    const set = await startSimSet({
      fsps: c.fsps,
      payers: c.payers,
      alsUrl: c.alsUrl,
      payerUrl: c.payerUrl,
      portBase: c.portBase,
      bind: { host: c.host, publicHost: c.publicHost },
      notFoundPrefix: c.notFoundPrefix,
      payeeErrorPrefix: c.payeeErrorPrefix,
      dropRate: c.dropRate,
      deadEndpointFsps: c.deadFsps,
      participants: jsonFile(c.participantsFile, nameOf('participantsFile')),
      parties: jsonFile(c.partiesFile, nameOf('partiesFile')),
      adminFaults: faults(c.adminLatency, c.adminErrorRate, c.adminResetRate),
      oracleFaults: faults(c.oracleLatency, c.oracleErrorRate, c.oracleResetRate),
      payeeFaults: faults(c.payeeLatency, c.payeeErrorRate, c.payeeResetRate),
      payerFaults: faults(c.payerLatency, c.payerErrorRate, c.payerResetRate),
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

#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { runService } from '@mojafast/service-kit';
import { loadSimConfig, simUsage as usage } from './config.js';
import { type FaultOptions, parseLatency } from './faults.js';
import { startSimSet } from './set.js';

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

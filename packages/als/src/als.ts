#!/usr/bin/env node
import cluster from 'node:cluster';
import { type Logger, runService } from '@mojafast/service-kit';
import type { Config } from './config/index.js';
import { readConfig } from './config/original.js';
import { startAls } from './main.js';

/** What SIGINT/SIGTERM and SIGUSR2 act on: one ALS, or the primary of ALS_PROCESSES workers. */
interface Running {
  stop(signal: NodeJS.Signals): Promise<void>;
  profile(): Promise<string> | undefined;
}

/**
 * ALS_PROCESSES workers sharing the ports through node:cluster (the primary accepts and hands connections
 * round-robin; caches are per worker). The primary serves nothing: it relays the signals and writes the one
 * ready line once every worker is ready.
 */
function startWorkers(config: Config, log: Logger): Running {
  for (let i = 0; i < config.processes; i++) cluster.fork();
  const relay = (signal: NodeJS.Signals) => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
  };
  let ready = 0;
  cluster.on('message', (_worker, message: { ready?: boolean; url?: string; adminUrl?: string }) => {
    if (message?.ready && ++ready === config.processes)
      process.stdout.write(
        `${JSON.stringify({ ready: true, url: message.url, admin: message.adminUrl, processes: ready })}\n`,
      );
  });
  cluster.on('exit', (worker, code, signal) => {
    if (code !== 0 && signal === null) log.error({ worker: worker.process.pid, code }, 'worker exited');
  });
  return {
    async stop(signal) {
      relay(signal);
    },
    profile() {
      relay('SIGUSR2');
      return undefined;
    },
  };
}

/**
 * `node dist/als`: one process, or ALS_PROCESSES workers. The service kit runs it: SIGINT/SIGTERM stop after
 * in-flight callbacks drained, SIGUSR2 writes a CPU profile of ALS_PROFILE_SECONDS.
 */
runService<Running>({
  async start(log) {
    const loaded = readConfig(process.env);
    const config = loaded.config;
    if (loaded.notHonoured.length > 0 && cluster.isPrimary) {
      // Named once, never silently ignored (a setting that does nothing must say so): keys of the original's file or ALS_ rc variables
      // without an equivalent here.
      log.warn({ file: loaded.file, keys: loaded.notHonoured }, 'account-lookup-service keys not honoured');
    }
    if (config.processes > 1 && cluster.isPrimary) return startWorkers(config, log);

    const als = await startAls(config);
    if (cluster.isWorker) process.send?.({ ready: true, url: als.url, adminUrl: als.adminUrl });
    else process.stdout.write(`${JSON.stringify({ ready: true, url: als.url, admin: als.adminUrl, processes: 1 })}\n`);
    return {
      async stop() {
        await als.close();
        if (cluster.isWorker) cluster.worker?.disconnect();
      },
      profile: () => (als.profiler.running ? undefined : als.profiler.profile(config.profileSeconds)),
    };
  },
  stop: (running, signal) => running.stop(signal),
  profile: (running) => running.profile(),
  // One plain line naming what is wrong (a key, an unreachable store), as before the kit: an operator reads
  // it in `kubectl logs` without a JSON viewer, and the original-config tests match it.
  startFailed(error) {
    process.stderr.write(`als: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  },
});

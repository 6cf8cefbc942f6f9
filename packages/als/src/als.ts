#!/usr/bin/env node
import cluster from 'node:cluster';
import { readConfig } from './config/original.js';
import { startAls } from './main.js';

/**
 * `node dist/als`: one process, or ALS_PROCESSES workers sharing the ports through node:cluster (the
 * primary accepts and hands connections round-robin; caches are per worker). SIGINT/SIGTERM stop after
 * in-flight callbacks drained; no process.exit, so clinic and the CPU profiler finish writing. SIGUSR2
 * writes a CPU profile of ALS_PROFILE_SECONDS.
 */
async function run(): Promise<void> {
  const loaded = readConfig(process.env);
  const config = loaded.config;
  if (loaded.notHonoured.length > 0 && cluster.isPrimary) {
    // Named once, never silently ignored (issue 16): keys of the original's file or ALS_ rc variables
    // without an equivalent here.
    process.stderr.write(
      `${JSON.stringify({ level: 'warn', msg: 'account-lookup-service keys not honoured', file: loaded.file, keys: loaded.notHonoured })}\n`,
    );
  }
  if (config.processes > 1 && cluster.isPrimary) {
    for (let i = 0; i < config.processes; i++) cluster.fork();
    const relay = (signal: NodeJS.Signals) => () => {
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
    };
    process.on('SIGINT', relay('SIGINT'));
    process.on('SIGTERM', relay('SIGTERM'));
    process.on('SIGUSR2', relay('SIGUSR2'));
    let ready = 0;
    cluster.on('message', (_worker, message: { ready?: boolean; url?: string; adminUrl?: string }) => {
      if (message?.ready && ++ready === config.processes)
        process.stdout.write(
          `${JSON.stringify({ ready: true, url: message.url, admin: message.adminUrl, processes: ready })}\n`,
        );
    });
    cluster.on('exit', (worker, code, signal) => {
      if (code !== 0 && signal === null)
        process.stderr.write(`als: worker ${worker.process.pid} exited with ${code}\n`);
      if (Object.keys(cluster.workers ?? {}).length === 0) process.removeAllListeners('SIGINT');
    });
    return;
  }

  const als = await startAls(config);
  if (cluster.isWorker) process.send?.({ ready: true, url: als.url, adminUrl: als.adminUrl });
  else process.stdout.write(`${JSON.stringify({ ready: true, url: als.url, admin: als.adminUrl, processes: 1 })}\n`);

  // Listeners stay installed after the first signal: a second SIGINT (a terminal sends it to the whole
  // process group, and the cluster primary relays it too) must not kill a draining process.
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    als.close().then(
      () => {
        if (cluster.isWorker) cluster.worker?.disconnect();
      },
      (error: unknown) => {
        process.stderr.write(`als: shutdown failed: ${error instanceof Error ? error.stack : String(error)}\n`);
        process.exitCode = 1;
      },
    );
  };
  const profile = () => {
    if (als.profiler.running) return;
    als.profiler.profile(config.profileSeconds).then(
      (file) => process.stderr.write(`als: CPU profile written to ${file}\n`),
      (error: unknown) => process.stderr.write(`als: CPU profile failed: ${String(error)}\n`),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  process.on('SIGUSR2', profile);
}

run().catch((error: unknown) => {
  process.stderr.write(`als: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});

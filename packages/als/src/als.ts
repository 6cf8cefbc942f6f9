#!/usr/bin/env node
import cluster from 'node:cluster';
import { type Logger, runService } from '@mojafast/service-kit';
import { type AlsRole, CommandLineError, parseCommandLine } from './command-line.js';
import type { Config } from './config/index.js';
import { readConfig } from './config/original.js';
import { type RunningAlsProcess, startAlsProcess } from './main.js';

/** What SIGINT/SIGTERM and SIGUSR2 act on: one ALS, or the primary of ALS_PROCESSES workers. */
interface Running {
  stop(signal: NodeJS.Signals): Promise<void>;
  profile(): Promise<string> | undefined;
}

/** What a worker tells the primary once it serves: where it listens. */
interface ReadyMessage {
  ready?: boolean;
  url?: string | undefined;
  adminUrl?: string | undefined;
  monitoringUrl?: string | undefined;
}

/**
 * The one line tools wait for on stdout: the addresses this process (or its workers) listens on, only those
 * its command line asked for (an API-only process has no `admin`).
 */
function readyLine(role: AlsRole, message: ReadyMessage, processes: number): string {
  return `${JSON.stringify({
    ready: true,
    ...(role.command === '' ? {} : { command: role.command }),
    url: message.url,
    admin: message.adminUrl,
    monitoring: message.monitoringUrl,
    processes,
  })}\n`;
}

/**
 * ALS_PROCESSES workers sharing the ports through node:cluster (the primary accepts and hands connections
 * round-robin; caches are per worker). Each worker reads the same command line (cluster.fork passes
 * process.argv on), so each serves the same role. The primary serves nothing: it relays the signals and
 * writes the one ready line once every worker is ready.
 */
function startWorkers(config: Config, role: AlsRole, log: Logger): Running {
  for (let i = 0; i < config.processes; i++) cluster.fork();
  const relay = (signal: NodeJS.Signals) => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
  };
  let ready = 0;
  cluster.on('message', (_worker, message: ReadyMessage) => {
    if (message?.ready && ++ready === config.processes) process.stdout.write(readyLine(role, message, ready));
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
 * `node dist/als [server [--api|--admin] | handlers --timeout]`: one process, or ALS_PROCESSES workers, in
 * the role of the original's process of that command line (command-line.ts). The service kit runs it:
 * SIGINT/SIGTERM stop after in-flight callbacks drained, SIGUSR2 writes a CPU profile of ALS_PROFILE_SECONDS.
 */
runService<Running>({
  async start(log) {
    const role = parseCommandLine(process.argv.slice(2));
    const loaded = readConfig(process.env, { timeoutHandler: role.timeoutHandler });
    const config = loaded.config;
    if (role.ignored && cluster.isPrimary) log.warn({ command: role.command }, `ignored ${role.ignored}`);
    if (loaded.notHonoured.length > 0 && cluster.isPrimary) {
      // Named once, never silently ignored (a setting that does nothing must say so): keys of the original's file or ALS_ rc variables
      // without an equivalent here.
      log.warn({ file: loaded.file, keys: loaded.notHonoured }, 'account-lookup-service keys not honoured');
    }
    if (config.processes > 1 && cluster.isPrimary) return startWorkers(config, role, log);

    const als: RunningAlsProcess = await startAlsProcess(config, role);
    const ready: ReadyMessage = {
      ready: true,
      url: als.url,
      adminUrl: als.adminUrl,
      monitoringUrl: als.monitoringUrl,
    };
    if (cluster.isWorker) process.send?.(ready);
    else process.stdout.write(readyLine(role, ready, 1));
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
    // A command line the original does not know either: exit 2, the operator's mistake (as the position
    // handler's), with what it takes.
    if (error instanceof CommandLineError) {
      process.stderr.write(`als: invalid command line: ${error.message}\n`);
      return 2;
    }
    process.stderr.write(`als: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  },
});

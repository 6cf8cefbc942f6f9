import { createLogger, type Logger } from './logger.js';

export interface ServiceRun<S> {
  /**
   * Starts the service and resolves once it serves (its ready line written). `log` is the process's own
   * logger for lines about its life (a start-up warning). Undefined: nothing to run (`--help`). `signal` is
   * aborted by SIGINT or SIGTERM during the start: a start that waits (a database not up yet, with back-off)
   * gives up at once, closes what it opened and rejects with the signal's AbortError, and the process ends
   * with 0, as after a stop; steps that do not wait finish, then the service stops.
   */
  start(log: Logger, signal: AbortSignal): Promise<S | undefined>;
  /** Drains and releases everything; the process then exits by itself. */
  stop(service: S, signal: NodeJS.Signals): Promise<void>;
  /** SIGUSR2: a CPU profile; answers its file, or undefined when none is taken (one already runs). */
  profile?(service: S): Promise<string> | undefined;
  /**
   * A start that failed: say why in the service's own words and answer the exit code; undefined for the
   * default, a `start failed` line and exit 1.
   */
  startFailed?(error: unknown): number | undefined;
}

/**
 * The life of a service process, once for all of ours: start; on SIGINT or SIGTERM stop (drain, release),
 * once; SIGUSR2 writes a CPU profile. No process.exit anywhere: the process ends when nothing is left
 * open, so clinic and the inspector finish writing (docs/profiling.md).
 *
 * Exit codes: 0 after a clean stop; 1 when the start or the stop failed; what `startFailed` answers (2 for
 * an operator's mistake, a bad flag or setting). The lines go to stderr as JSON at info whatever the
 * service's log level: a start, stop or profile is rare and always worth its line.
 */
export function runService<S>(run: ServiceRun<S>, log: Logger = createLogger({ level: 'info' })): void {
  // The listeners come first: a service announces it is ready from inside its start (a ready line, a log
  // line), and a SIGTERM sent on that announcement must find them, not Node's default (death, no drain).
  let service: S | undefined;
  let starting = true;
  let pending: NodeJS.Signals | undefined;
  let stopping = false;
  const startAborted = new AbortController();
  const stop = (signal: NodeJS.Signals) => {
    if (starting) {
      // During the start: its waits are given up, and a start that gets through anyway is stopped as soon
      // as it has started (an orchestrator sends one SIGTERM, then SIGKILL after its grace period: a start
      // waiting for a database must not use that up). A second signal ends the process as Node's default would.
      if (pending === undefined) {
        pending = signal;
        log.info({ signal }, 'stopping once started');
        startAborted.abort();
        return;
      }
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      process.kill(process.pid, signal);
      return;
    }
    // Listeners stay installed after the first signal: a second SIGINT (a terminal sends it to the whole
    // process group, a cluster primary relays it too) must not kill a draining process.
    if (stopping || service === undefined) return;
    stopping = true;
    log.info({ signal }, 'stopping');
    run.stop(service, signal).catch((error: unknown) => {
      log.error({ error: error instanceof Error ? error.stack : String(error) }, 'stop failed');
      process.exitCode = 1;
    });
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  const failed = (error: unknown) => {
    starting = false;
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    if (startAborted.signal.aborted && error === startAborted.signal.reason) {
      log.info({ signal: pending }, 'stopped during the start');
      return;
    }
    const code = run.startFailed?.(error);
    if (code === undefined) log.error({ error: String(error) }, 'start failed');
    process.exitCode = code ?? 1;
  };
  run.start(log, startAborted.signal).then((started) => {
    starting = false;
    if (started === undefined) {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      return;
    }
    service = started;
    const profile = run.profile;
    if (profile) {
      process.on('SIGUSR2', () => {
        profile(started)?.then(
          (file) => log.info({ file }, 'cpu profile written'),
          (error: unknown) => log.error({ error: String(error) }, 'cpu profile failed'),
        );
      });
    }
    if (pending !== undefined) stop(pending);
  }, failed);
}

/**
 * Waits `ms`, or rejects with the signal's reason as soon as it is aborted: a start's back-off that a SIGTERM
 * gives up (ServiceRun.start's `signal`).
 */
export function abortableDelay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

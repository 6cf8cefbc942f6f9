import { type DestinationStream, type Level, type Logger, pino } from 'pino';

export type { Logger } from 'pino';
export type LogLevel = Level | 'silent';

export interface LoggerOptions {
  readonly level: LogLevel;
  /** Where lines go; stderr by default (stdout carries only the ready line tools wait for). */
  readonly destination?: DestinationStream;
  /** Fields on every line, e.g. `{ service: 'als' }`. */
  readonly base?: Record<string, unknown>;
}

/**
 * One JSON line per entry: `{"level":"info","time":"<ISO 8601>",…,"msg":"…"}`. Levels as words and an ISO
 * time, so a line reads the same whichever service wrote it and a person can read it without a table.
 * Written synchronously to stderr: a line logged just before the process exits (a failed start) is not lost.
 */
export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level,
      base: { pid: process.pid, ...options.base },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    options.destination ?? pino.destination({ dest: 2, sync: true }),
  );
}

import { createLogger as createKitLogger, type Logger as KitLogger } from '@mojafast/service-kit';

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';

/** The handler's logging calls: message first, then fields (the kit's pino logger takes fields first). */
export interface Logger {
  error(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  debug(message: string, fields?: Record<string, unknown>): void;
}

/** The handler's calls on a pino logger. */
export function handlerLogger(pino: KitLogger): Logger {
  return {
    error: (message, fields) => pino.error(fields ?? {}, message),
    warn: (message, fields) => pino.warn(fields ?? {}, message),
    info: (message, fields) => pino.info(fields ?? {}, message),
    debug: (message, fields) => pino.debug(fields ?? {}, message),
  };
}

/** One JSON line per entry on stderr (the kit's logger); `write` takes the lines instead (tests). */
export function createLogger(level: LogLevel, write?: (line: string) => void): Logger {
  return handlerLogger(createKitLogger({ level, ...(write ? { destination: { write } } : {}) }));
}

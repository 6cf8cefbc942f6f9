import { createLogger as createKitLogger, type Logger as KitLogger } from '@mojafast/service-kit';
import { stdSerializers } from 'pino';

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';

/** One level's call, in pino's order as everywhere in the project: the fields first, then the message. */
export interface LogCall {
  (message: string): void;
  (fields: Record<string, unknown>, message: string): void;
}

/** The handler's logging calls: the kit's pino logger seen through the levels central-services-logger names. */
export interface Logger {
  error: LogCall;
  warn: LogCall;
  info: LogCall;
  debug: LogCall;
}

/** Characters of a failed statement kept in a log line: mysql2 puts the whole batch's SQL, values inlined, on its errors. */
const SQL_CHARS = 300;

type Serialized = ReturnType<typeof stdSerializers.errWithCause> & {
  sql?: unknown;
  cause?: unknown;
  aggregateErrors?: unknown;
};

function shortenSql(serialized: unknown, depth = 0): void {
  if (typeof serialized !== 'object' || serialized === null || depth > 5) return;
  const error = serialized as Serialized;
  if (typeof error.sql === 'string' && error.sql.length > SQL_CHARS) {
    error.sql = `${error.sql.slice(0, SQL_CHARS)}… (${error.sql.length} chars)`;
  }
  shortenSql(error.cause, depth + 1);
  if (Array.isArray(error.aggregateErrors)) for (const inner of error.aggregateErrors) shortenSql(inner, depth + 1);
}

/**
 * The `err` field of a log line: pino's serializer with the cause as an object of its own (type, message, stack,
 * and every property: mysql2's errno, code, sqlState, sqlMessage; a connect error's address and port), the
 * statement cut short.
 */
export function serializeError(error: unknown): unknown {
  const serialized = stdSerializers.errWithCause(error as Error);
  shortenSql(serialized);
  return serialized;
}

const ignore = () => {};

/**
 * The handler's calls on a pino logger; an error goes in the `err` field. `only`: the levels logged at all
 * (central-services-logger's LOG_FILTER, which silences the levels it does not name); undefined: every one.
 */
export function handlerLogger(pino: KitLogger, only?: ReadonlySet<string>): Logger {
  const log = pino.child({}, { serializers: { err: serializeError } });
  const shown = (level: LogLevel) => only === undefined || only.has(level);
  return {
    error: shown('error') ? log.error.bind(log) : ignore,
    warn: shown('warn') ? log.warn.bind(log) : ignore,
    info: shown('info') ? log.info.bind(log) : ignore,
    debug: shown('debug') ? log.debug.bind(log) : ignore,
  };
}

/** One JSON line per entry on stderr (the kit's logger); `write` takes the lines instead (tests). */
export function createLogger(level: LogLevel, write?: (line: string) => void, only?: ReadonlySet<string>): Logger {
  return handlerLogger(createKitLogger({ level, ...(write ? { destination: { write } } : {}) }), only);
}

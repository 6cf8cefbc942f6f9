/**
 * What kind of failure stopped a chunk, for the metrics, the logs and /health. Both kinds are retried for as long
 * as it takes (skipping a message would skip money); the class only says whether waiting is likely to heal it:
 * - transient: the database, the broker or the network is busy, down, read-only or full of connections;
 * - permanent: something a person must fix: the schema does not match (a missing column or table), a constraint
 *   refuses the rows, or our own code failed (a decoding or planning bug: a TypeError, RangeError...).
 * An error with a server error number we do not list is permanent: it needs a look.
 */
export type ErrorClass = 'transient' | 'permanent';

/** The facts of a failure worth showing on /health: no stack, no SQL (those go to the log). */
export interface FailureSummary {
  readonly class: ErrorClass;
  readonly type: string;
  readonly message: string;
  readonly code?: string;
  readonly errno?: number;
}

/**
 * MySQL/MariaDB server error numbers that heal by themselves: deadlock (1213), lock wait timeout (1205), too many
 * connections (1040, 1203 per user, 1226 a user resource), read-only (1290 --read-only, 1792 a read-only
 * transaction, 1836 read-only mode), shutdown in progress (1053), the connection killed (1927 MariaDB,
 * 1317 a query interrupted), a statement to prepare again (1615), a server that closed an idle connection (4031).
 */
const TRANSIENT_ERRNOS = new Set([1213, 1205, 1040, 1203, 1226, 1290, 1792, 1836, 1053, 1927, 1317, 1615, 4031]);

/** The client's and Node's codes for a connection lost, refused or timed out. */
const TRANSIENT_CODES = new Set([
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

interface ErrorFields {
  readonly name?: unknown;
  readonly message?: unknown;
  readonly code?: unknown;
  readonly errno?: unknown;
  readonly fatal?: unknown;
  readonly retriable?: unknown;
  readonly canRetry?: unknown;
  readonly cause?: unknown;
  readonly errors?: unknown;
}

function isTransient(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 5) return false;
  const fields = error as ErrorFields;
  // mysql2 marks an error that ended the connection fatal (the server went away mid-query).
  if (fields.fatal === true) return true;
  // The Kafka clients' own verdict: kafkajs's retriable, @platformatic/kafka's canRetry (a broker refusing a
  // produce for lack of in-sync replicas, a coordinator moving).
  if (fields.retriable === true || fields.canRetry === true) return true;
  if (typeof fields.errno === 'number' && TRANSIENT_ERRNOS.has(fields.errno)) return true;
  if (typeof fields.code === 'string' && TRANSIENT_CODES.has(fields.code)) return true;
  // A connect to a host with several addresses fails with an AggregateError of one error per address.
  if (Array.isArray(fields.errors) && fields.errors.length > 0) {
    return fields.errors.every((inner) => isTransient(inner, depth + 1));
  }
  return isTransient(fields.cause, depth + 1);
}

export function classifyError(error: unknown): ErrorClass {
  return isTransient(error) ? 'transient' : 'permanent';
}

export function summarizeError(error: unknown): FailureSummary {
  const fields = (typeof error === 'object' && error !== null ? error : {}) as ErrorFields;
  const type =
    error instanceof Error ? error.constructor.name : typeof fields.name === 'string' ? fields.name : typeof error;
  const message = typeof fields.message === 'string' ? fields.message : String(error);
  return {
    class: classifyError(error),
    type,
    message,
    ...(typeof fields.code === 'string' ? { code: fields.code } : {}),
    ...(typeof fields.errno === 'number' ? { errno: fields.errno } : {}),
  };
}

import { FastCounter } from '@mojafast/service-kit';
import type { Registry } from 'prom-client';
import type { SettlingSend } from '../discovery/types.js';

/** What the failure reporter logs through (pino's signature); declared here so observe imports no logger. */
export interface FailureLogger {
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** One synchronous error answer, as the HTTP layer wrote it. */
export interface ErrorAnswer {
  readonly status: number;
  readonly errorCode: string;
  readonly errorDescription: string;
  readonly method?: string | undefined;
  readonly url?: string | undefined;
  readonly traceparent?: string | string[] | undefined;
  /** The exception behind it, when it was not one of the catalogue's errors (logged with its stack). */
  readonly cause?: unknown;
}

/**
 * Every failure the ALS answers, counted and logged, at the two edges where all of them pass: the synchronous
 * error answers (the HTTP layer's error, not-found and framework handlers and Node's client errors) and the
 * error callbacks sent out (the egress `send`). Nothing runs for a request that succeeds; an error costs a
 * counter child bound once per code and, at most once per `logIntervalMs` per code, a log line with the
 * trace id and cause, which also says how many like it were not logged since the previous one.
 */
export interface FailureReporter {
  answered(answer: ErrorAnswer): void;
  /**
   * An upstream call that got no answer (refused, reset, timed out, a certificate refused): counted by
   * upstream and code, logged (rate-limited per both) with the origin and the error. What the requester
   * then hears (1001, 2001...) is counted where it is sent.
   */
  upstreamFailed(upstream: string, origin: string, error: Error): void;
  /** Wraps the egress send: an error callback (PUT …/error) is counted and logged, sent or failed. */
  watchSend(send: SettlingSend, hubName: string): SettlingSend;
}

export const FAILURE_LOG_INTERVAL_MS = 10_000;

/** The trace id of a W3C traceparent (`00-{trace id}-{parent id}-{flags}`), undefined when there is none. */
export function traceIdOf(traceparent: string | string[] | undefined): string | undefined {
  const value = Array.isArray(traceparent) ? traceparent[0] : traceparent;
  if (value === undefined || value.length < 35 || value[2] !== '-') return undefined;
  return value.slice(3, 35);
}

// An FSPIOP error code is four digits; anything else an FSP sent is counted as one label value, so a body
// cannot grow the metric's label set.
const errorCodePattern = /"errorCode"\s*:\s*"(\d{4})"/;
const errorDescriptionPattern = /"errorDescription"\s*:\s*"((?:[^"\\]|\\.){0,300})/;

const transportCode = /^[A-Z][A-Z0-9_]{1,63}$/;

export function createFailureReporter(
  registry: Registry,
  log: FailureLogger,
  logIntervalMs = FAILURE_LOG_INTERVAL_MS,
): FailureReporter {
  const answers = new FastCounter(
    'als_error_answers_total',
    'synchronous FSPIOP error answers, by errorCode and HTTP status',
    registry,
  );
  const callbacks = new FastCounter(
    'als_error_callbacks_total',
    'error callbacks (PUT …/error) sent out, by errorCode, origin (hub: the ALS own; fsp: forwarded) and result (sent, failed)',
    registry,
  );
  const transport = new FastCounter(
    'als_upstream_failures_total',
    'upstream calls that got no answer (refused, reset, timed out, certificate refused), by upstream (oracle, central-ledger, fsp) and code',
    registry,
  );
  const children = new Map<string, { inc(): void }>();
  const child = (key: string, make: () => { inc(): void }) => {
    let found = children.get(key);
    if (found === undefined) {
      found = make();
      children.set(key, found);
    }
    return found;
  };

  /** Per kind and code: when the last line was written, and how many were not written since. */
  const lastLogged = new Map<string, { at: number; suppressed: number }>();
  const shouldLog = (key: string): number | undefined => {
    const now = Date.now();
    const seen = lastLogged.get(key);
    if (seen === undefined || now - seen.at >= logIntervalMs) {
      const suppressed = seen?.suppressed ?? 0;
      lastLogged.set(key, { at: now, suppressed: 0 });
      return suppressed;
    }
    seen.suppressed++;
    return undefined;
  };

  return {
    answered(answer) {
      const status = String(answer.status);
      child(`a ${answer.errorCode} ${status}`, () => answers.child({ errorCode: answer.errorCode, status })).inc();
      const suppressed = shouldLog(`a ${answer.errorCode} ${status}`);
      if (suppressed === undefined) return;
      const fields = {
        errorCode: answer.errorCode,
        status: answer.status,
        traceId: traceIdOf(answer.traceparent),
        method: answer.method,
        url: answer.url,
        cause: answer.errorDescription,
        ...(answer.cause !== undefined ? { err: answer.cause } : {}),
        suppressedSinceLastLog: suppressed,
      };
      if (answer.status >= 500) log.error(fields, 'error answered');
      else log.warn(fields, 'error answered');
    },
    upstreamFailed(upstream, origin, error) {
      const raw = (error as { code?: unknown }).code;
      // Node's and undici's codes are a closed set; anything else is one label value.
      const code = typeof raw === 'string' && transportCode.test(raw) ? raw : 'other';
      const key = `u ${upstream} ${code}`;
      child(key, () => transport.child({ upstream, code })).inc();
      const suppressed = shouldLog(key);
      if (suppressed === undefined) return;
      log.warn({ upstream, origin, code, err: error, suppressedSinceLastLog: suppressed }, 'upstream failed');
    },
    watchSend(send, hubName) {
      return (request, settled) => {
        // Only error callbacks are looked at: every other message passes with one string comparison.
        if (request.method !== 'PUT' || !request.url.endsWith('/error')) return send(request, settled);
        const sent = send(request, settled);
        const report = (result: 'sent' | 'failed', error?: unknown) => {
          const body = request.body === undefined ? '' : request.body.toString();
          const errorCode = errorCodePattern.exec(body)?.[1] ?? 'other';
          const origin = request.headers['fspiop-source'] === hubName ? 'hub' : 'fsp';
          const key = `c ${errorCode} ${origin} ${result}`;
          child(key, () => callbacks.child({ errorCode, origin, result })).inc();
          const suppressed = shouldLog(key);
          if (suppressed === undefined) return;
          log.warn(
            {
              errorCode,
              origin,
              result,
              traceId: traceIdOf(request.headers.traceparent),
              source: request.headers['fspiop-source'],
              destination: request.headers['fspiop-destination'],
              url: request.url,
              cause: errorDescriptionPattern.exec(body)?.[1],
              ...(error !== undefined ? { err: error } : {}),
              suppressedSinceLastLog: suppressed,
            },
            result === 'sent' ? 'error callback sent' : 'error callback could not be sent',
          );
        };
        return sent.then(
          () => report('sent'),
          (error: unknown) => {
            report('failed', error);
            throw error;
          },
        );
      };
    },
  };
}

import type { IncomingMessage, ServerResponse } from 'node:http';

/** A latency: fixed milliseconds, or a uniform range [min, max] like the slow mocks of Mojaloop load tests. */
export type Latency = number | readonly [number, number];

export interface FaultOptions {
  /** Delay before the answer. */
  readonly latencyMs?: Latency;
  /** Share (0..1) of requests answered 500 with an FSPIOP 2001 body. */
  readonly errorRate?: number;
  /** Share (0..1) of requests whose connection is destroyed without an answer (ECONNRESET at the client). */
  readonly resetRate?: number;
  /** Source of randomness; tests pass a fixed sequence. */
  readonly random?: () => number;
}

export function pickLatency(latency: Latency | undefined, random: () => number): number {
  if (latency === undefined) return 0;
  if (typeof latency === 'number') return latency;
  const [min, max] = latency;
  return min + Math.floor(random() * (max - min + 1));
}

const serverErrorBody = Buffer.from(
  JSON.stringify({
    errorInformation: { errorCode: '2001', errorDescription: 'Internal server error - injected fault' },
  }),
);

export type FaultOutcome = 'pass' | 'handled';

/**
 * Applies the faults to one request. Returns 'handled' when the fault answered (or dropped) the request;
 * otherwise the caller answers after the returned delay has elapsed.
 */
export function applyFaults(
  faults: FaultOptions | undefined,
  req: IncomingMessage,
  res: ServerResponse,
): FaultOutcome | Promise<FaultOutcome> {
  if (!faults) return 'pass';
  const random = faults.random ?? Math.random;
  if (faults.resetRate && random() < faults.resetRate) {
    req.socket.destroy();
    return 'handled';
  }
  const fail = faults.errorRate !== undefined && faults.errorRate > 0 && random() < faults.errorRate;
  const delay = pickLatency(faults.latencyMs, random);
  const finish = (): FaultOutcome => {
    if (!fail) return 'pass';
    res.writeHead(500, { 'content-type': 'application/json', 'content-length': serverErrorBody.length });
    res.end(serverErrorBody);
    return 'handled';
  };
  if (delay <= 0) return finish();
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(finish()), delay);
    // A client that gives up must not keep a timer (and the server's close) waiting for minutes.
    res.once('close', () => {
      if (!res.writableEnded) {
        clearTimeout(timer);
        resolve('handled');
      }
    });
  });
}

/**
 * Answers a request with `answer` unless a fault took it: at once, or after the injected latency. A request a
 * fault answered (500) or dropped (reset) has its body drained, so a keep-alive connection can carry the next.
 */
export function answerUnlessFaulted(
  faults: FaultOptions | undefined,
  req: IncomingMessage,
  res: ServerResponse,
  answer: (req: IncomingMessage, res: ServerResponse) => void,
): void {
  const outcome = applyFaults(faults, req, res);
  if (outcome === 'pass') answer(req, res);
  else if (outcome === 'handled') req.resume();
  else void outcome.then((after) => (after === 'pass' ? answer(req, res) : req.resume()));
}

/** Parses "250" or "3500-7000" (CLI and env form of a latency). */
export function parseLatency(text: string): Latency {
  const range = /^(\d+)\s*-\s*(\d+)$/.exec(text.trim());
  if (range) {
    const min = Number(range[1]);
    const max = Number(range[2]);
    if (min > max) throw new Error(`latency range "${text}": min is greater than max`);
    return [min, max];
  }
  const fixed = Number(text);
  if (!Number.isFinite(fixed) || fixed < 0) throw new Error(`latency "${text}" is neither "ms" nor "min-max"`);
  return fixed;
}

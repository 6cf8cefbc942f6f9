import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * What the plays (smoke, kube play, chart play) ask of the services they started, each once: wait for a
 * condition, see that a port is closed, register the oracle, make one lookup and fetch its callback.
 */

/** Polls `probe` until it answers a value; past `withinMs` fails naming the play and what was awaited. */
export async function until<T>(
  play: string,
  what: string,
  withinMs: number,
  probe: () => T | undefined | Promise<T | undefined>,
  intervalMs = 200,
): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${play}: ${what} not within ${withinMs} ms`);
    await sleep(intervalMs);
  }
}

/** Whether a connection to the port on loopback is refused (nothing listens). */
export async function refused(port: number): Promise<boolean> {
  try {
    const answer = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(5000) });
    await answer.arrayBuffer();
    return false;
  } catch (error) {
    return (error as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED';
  }
}

export interface LookupOutcome {
  /** The ALS's answer to GET /parties (202 when accepted). */
  readonly status: number;
  /** The callback the payer simulator received: `success` or `error`, none when it came in no time. */
  readonly callback: { readonly kind?: string; readonly path?: string };
  /** The status of the simulator's callback query (200 when one came). */
  readonly polledStatus: number;
}

/**
 * One lookup as the payer FSP makes it (GET /parties/MSISDN/46750000001 at FSPIOP 1.1 from payerfsp, its own
 * trace id), then the callback it received, asked of the payer simulator (`payerUrl`) within `timeoutMs`.
 */
export async function lookupParty(alsUrl: string, payerUrl: string, timeoutMs: number): Promise<LookupOutcome> {
  const traceId = randomBytes(16).toString('hex');
  const lookup = await fetch(`${alsUrl}/parties/MSISDN/46750000001`, {
    headers: {
      accept: 'application/vnd.interoperability.parties+json;version=1.1',
      'content-type': 'application/vnd.interoperability.parties+json;version=1.1',
      date: new Date().toUTCString(),
      'fspiop-source': 'payerfsp',
      traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01`,
    },
    signal: AbortSignal.timeout(timeoutMs),
  });
  await lookup.arrayBuffer();
  const waitMs = Math.min(timeoutMs, 120_000);
  const polled = await fetch(`${payerUrl}/callbacks/${traceId}?timeoutMs=${waitMs}`, {
    signal: AbortSignal.timeout(waitMs + 5_000),
  });
  const callback = (polled.status === 200 ? await polled.json() : {}) as LookupOutcome['callback'];
  if (polled.status !== 200) await polled.arrayBuffer();
  return { status: lookup.status, callback, polledStatus: polled.status };
}

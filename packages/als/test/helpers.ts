import { randomBytes } from 'node:crypto';
import { type SimSet, type SimSetOptions, startSimSet } from '@mojafast/sim';
import { request } from 'undici';
import { expect, vi } from 'vitest';
import { type ConfigValues, loadConfig } from '../src/config/index.js';
import { type RunningAls, startAls } from '../src/main.js';

export interface Stack {
  readonly sims: SimSet;
  readonly als: RunningAls;
  close(): Promise<void>;
}

/** Simulators and an ALS on free loopback ports, wired to each other. */
export async function startStack(
  options: { sims?: SimSetOptions; config?: Partial<ConfigValues> } = {},
): Promise<Stack> {
  const sims = await startSimSet({ fsps: 5, recordHistory: true, ...options.sims });
  try {
    const config = loadConfig(
      {},
      {
        host: '127.0.0.1',
        port: 0,
        adminPort: 0,
        logLevel: 'silent',
        switchEndpoint: sims.admin.url,
        oracleUrl: sims.oracle.url,
        headersTimeoutMs: 3_000,
        ...options.config,
      },
    );
    const als = await startAls(config);
    sims.payee.setAlsUrl(als.url);
    return {
      sims,
      als,
      async close() {
        await als.close();
        await sims.close();
      },
    };
  } catch (error) {
    await sims.close();
    throw error;
  }
}

export const newTraceId = () => randomBytes(16).toString('hex');
export const traceparent = (traceId: string) => `00-${traceId}-0123456789abcdef-01`;

export function lookupHeaders(
  traceId: string,
  extra: Record<string, string> = {},
  resource: 'parties' | 'participants' = 'parties',
): Record<string, string> {
  return {
    accept: `application/vnd.interoperability.${resource}+json;version=1.1`,
    // The original requires Content-Type on every FSPIOP request, GET and DELETE included.
    'content-type': `application/vnd.interoperability.${resource}+json;version=1.1`,
    date: new Date().toUTCString(),
    'fspiop-source': 'payerfsp',
    traceparent: traceparent(traceId),
    ...extra,
  };
}

export function callbackHeaders(
  traceId: string,
  extra: Record<string, string> = {},
  resource: 'parties' | 'participants' = 'parties',
): Record<string, string> {
  return {
    'content-type': `application/vnd.interoperability.${resource}+json;version=1.1`,
    date: new Date().toUTCString(),
    'fspiop-source': 'payeefsp1',
    'fspiop-destination': 'payerfsp',
    traceparent: traceparent(traceId),
    ...extra,
  };
}

export async function call(
  url: string,
  method: 'GET' | 'PUT' | 'POST' | 'DELETE',
  headers: Record<string, string>,
  body?: string | Buffer,
): Promise<{ status: number; body: string }> {
  const res = await request(url, { method, headers, body });
  return { status: res.statusCode, body: await res.body.text() };
}

/** The ALS's lookups in flight (als_lookups_in_flight{state="in_flight"}), read from its registry. */
export async function lookupsInFlight(als: RunningAls): Promise<number> {
  const gauge = als.registry.getSingleMetric('als_lookups_in_flight');
  if (!gauge) throw new Error('no als_lookups_in_flight gauge');
  const { values } = await gauge.get();
  return values.find((v) => v.labels.state === 'in_flight')?.value ?? Number.NaN;
}

/**
 * Resolves once the ALS has finished every request it accepted: its lookups-in-flight gauge is back to 0 (a
 * forwarded GET /parties holds its slot until the payee's callback reaches the ALS, its own error callback ends
 * it, or ALS_LOOKUP_CALLBACK_WAIT_MS passes; docs/failures.md), and then no background work of an
 * accepted request is running (RunningAls.idle). A test proves that nothing more arrives by waiting for the
 * callbacks it expects, then for this, then counting, instead of sleeping. (A payee slower than the callback
 * wait no longer holds a slot: wait for its callback first.)
 */
export async function settled(als: RunningAls, timeout = 5_000): Promise<void> {
  await vi.waitFor(async () => expect(await lookupsInFlight(als)).toBe(0), { timeout, interval: 20 });
  await als.idle();
}

/** The error code of an FSPIOP error body. */
export function errorCodeOf(body: Buffer | string): string | undefined {
  return (JSON.parse(body.toString()) as { errorInformation?: { errorCode?: string } }).errorInformation?.errorCode;
}

/** GET /parties/{path} on the ALS at `alsUrl`, asked as a payer FSP asks it: lookupHeaders of `traceId` and `extra`. */
export function getParties(alsUrl: string, path: string, traceId: string, extra: Record<string, string> = {}) {
  return call(`${alsUrl}/parties/${path}`, 'GET', lookupHeaders(traceId, extra));
}

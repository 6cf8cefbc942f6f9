import { randomBytes } from 'node:crypto';

export type FspiopVersion = '1.1' | '2.0';

export interface LookupRequest {
  readonly path: string;
  readonly traceId: string;
  readonly headers: Record<string, string>;
}

/**
 * The GET /parties a payer FSP sends, with the headers the Mojaloop harness sends: FSPIOP 1.1 or 2.0
 * content negotiation (API section 3.3.4), a W3C traceparent whose trace id keys the callback, and
 * `tx_end2end_start_ts` in tracestate so ALS can record the end-to-end time (Mojaloop issue #3431).
 */
export function lookupRequest(
  partyId: string,
  options: { version: FspiopVersion; source: string; destination?: string | undefined; now: number },
): LookupRequest {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  const media = `application/vnd.interoperability.parties+json;version=${options.version}`;
  const headers: Record<string, string> = {
    accept: media,
    'content-type': media,
    date: new Date(options.now).toUTCString(),
    'fspiop-source': options.source,
    traceparent: `00-${traceId}-${spanId}-01`,
    tracestate: `tx_end2end_start_ts=${options.now}`,
  };
  if (options.destination) headers['fspiop-destination'] = options.destination;
  return { path: `/parties/MSISDN/${partyId}`, traceId, headers };
}

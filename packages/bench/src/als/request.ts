import { randomBytes } from 'node:crypto';
import { httpDate } from '@mojafast/sim';

export type FspiopVersion = '1.1' | '2.0';
export type ApiType = 'fspiop' | 'iso20022';

export interface LookupRequest {
  readonly path: string;
  readonly traceId: string;
  readonly headers: Record<string, string>;
}

// Trace ids: a random half per generator process and a counter, unique per lookup without a call into
// the CSPRNG each time (it was 5% of the generator's CPU). W3C only asks for 16 non-zero random-looking bytes.
const traceIdPrefix = randomBytes(8).toString('hex');
let traceCounter = 0;

/**
 * The GET /parties a payer FSP sends, with the headers the Mojaloop harness sends: FSPIOP 1.1 or 2.0
 * content negotiation (API section 3.3.4), a W3C traceparent whose trace id keys the callback, and
 * `tx_end2end_start_ts` in tracestate so ALS can record the end-to-end time (the Mojaloop performance harness's stamp).
 */
export function lookupRequest(
  partyId: string,
  options: {
    version: FspiopVersion;
    source: string;
    destination?: string | undefined;
    now: number;
    /** The ALS's API_TYPE: `iso20022` sends the ISO 20022 media types (the payee simulator answers in kind). */
    apiType?: ApiType | undefined;
  },
): LookupRequest {
  const counter = (++traceCounter).toString(16).padStart(16, '0');
  const traceId = `${traceIdPrefix}${counter}`;
  const infix = options.apiType === 'iso20022' ? 'iso20022.' : '';
  const media = `application/vnd.interoperability.${infix}parties+json;version=${options.version}`;
  const headers: Record<string, string> = {
    accept: media,
    'content-type': media,
    date: httpDate(options.now),
    'fspiop-source': options.source,
    traceparent: `00-${traceId}-${counter}-01`,
    tracestate: `tx_end2end_start_ts=${options.now}`,
  };
  if (options.destination) headers['fspiop-destination'] = options.destination;
  return { path: `/parties/MSISDN/${partyId}`, traceId, headers };
}

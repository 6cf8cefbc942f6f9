import type { IncomingHttpHeaders } from 'node:http';

/**
 * The headers of each exchange of the relay floor (relay.ts), as the ALS sends them at its defaults, so the
 * floor moves the same bytes and undici checks the same headers: the request's own headers on every
 * exchange (the framing ones dropped), FSPIOP-Destination set, the lookup to the payee with a span of its
 * own in traceparent and tracestate, the callback without Accept. Computed the cheapest way that gives the
 * same bytes: the relay makes no decisions, it only writes what the ALS writes.
 */

/** The ALS's hub name at its defaults (ALS_HUB_NAME): the oracle's FSPIOP-Destination when the GET named none. */
const hubName = 'Hub';

function forwarded(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const { host: _host, connection: _connection, 'content-length': _length, ...rest } = headers;
  return rest;
}

/** GET to the oracle: the requester's headers, FSPIOP-Destination its own or the hub. */
export function toOracle(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const out = forwarded(headers);
  out['fspiop-destination'] ??= hubName;
  return out;
}

let spans = 0;

/**
 * GET to the payee: the requester's headers with FSPIOP-Destination the payee and a new span: the same
 * trace id and flags with another 16-hex-digit span id, tracestate led by the vendor member naming it.
 * The span id is a counter, not random: as long, and without the ALS's random draw.
 */
export function toPayee(headers: IncomingHttpHeaders, fsp: string): IncomingHttpHeaders {
  const out = forwarded(headers);
  out['fspiop-destination'] = fsp;
  const spanId = (++spans).toString(16).padStart(16, '0');
  const parent = headers.traceparent;
  if (typeof parent === 'string') out.traceparent = `${parent.slice(0, 36)}${spanId}${parent.slice(52)}`;
  const own = `acmevendor=${btoa(`{"spanId":"${spanId}"}`)}`;
  const state = headers.tracestate;
  out.tracestate = typeof state === 'string' && state !== '' ? `${own},${state}` : own;
  return out;
}

/** PUT to the payer: the payee's headers without Accept (a PUT carries none). */
export function toPayer(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const { accept: _accept, ...out } = forwarded(headers);
  return out;
}

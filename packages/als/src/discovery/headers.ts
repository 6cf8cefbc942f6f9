import { contentType, type FspiopVersion } from '../fspiop/versions.js';
import type { HeaderMap, OutboundHeaders } from './types.js';

/**
 * Headers never passed on: hop-by-hop ones (RFC 9110 section 7.6.1) and the framing ones the client
 * regenerates (Host, Content-Length).
 */
const dropped = new Set([
  'host',
  'content-length',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'expect',
  'proxy-authorization',
  'proxy-connection',
]);

function copy(incoming: HeaderMap): OutboundHeaders {
  const out: OutboundHeaders = {};
  for (const name in incoming) {
    if (dropped.has(name)) continue;
    const value = incoming[name];
    if (value === undefined) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/**
 * Headers of a request forwarded from one FSP to another: everything the FSP sent (Accept, Content-Type,
 * FSPIOP-Signature and FSPIOP-URI stay as they are, the signature covers them), with FSPIOP-Source and
 * FSPIOP-Destination set explicitly and FSPIOP-HTTP-Method the outbound method. A PUT carries no Accept.
 */
export function forwardHeaders(
  incoming: HeaderMap,
  source: string,
  destination: string,
  method: 'GET' | 'PUT' | 'POST' | 'DELETE',
): OutboundHeaders {
  const out = copy(incoming);
  out['fspiop-source'] = source;
  out['fspiop-destination'] = destination;
  out['fspiop-http-method'] = method;
  if (method === 'PUT') delete out.accept;
  out.date ??= new Date().toUTCString();
  return out;
}

/**
 * Headers of a message the Hub originates (an error callback, or a /participants answer): the request's
 * trace headers and Date kept; Source the hub, Destination the requester; Content-Type in the requester's
 * version (the original always sends 2.0, issue #3); no signature (the hub does not sign), no
 * FSPIOP-Proxy, no Accept on a PUT.
 */
export function hubHeaders(
  incoming: HeaderMap,
  hubName: string,
  destination: string,
  uri: string,
  resource: string,
  version: FspiopVersion,
): OutboundHeaders {
  const out = copy(incoming);
  delete out.accept;
  delete out['fspiop-signature'];
  delete out['fspiop-proxy'];
  out['content-type'] = contentType(resource, version);
  out['fspiop-source'] = hubName;
  out['fspiop-destination'] = destination;
  out['fspiop-http-method'] = 'PUT';
  out['fspiop-uri'] = uri;
  out.date ??= new Date().toUTCString();
  return out;
}

/**
 * The `tx_end2end_start_ts` member of a W3C tracestate (Mojaloop issue #3431: the harness stamps the
 * start of a lookup there). Undefined when absent or not a number.
 */
export function endToEndStart(tracestate: string | string[] | undefined): number | undefined {
  if (tracestate === undefined) return undefined;
  const text = Array.isArray(tracestate) ? tracestate.join(',') : tracestate;
  const at = text.indexOf('tx_end2end_start_ts=');
  if (at === -1) return undefined;
  const start = at + 'tx_end2end_start_ts='.length;
  let end = start;
  while (end < text.length && text.charCodeAt(end) >= 48 && text.charCodeAt(end) <= 57) end++;
  if (end === start) return undefined;
  return Number(text.slice(start, end));
}

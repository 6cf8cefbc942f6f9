import { type ApiType, contentType, type FspiopVersion } from '../fspiop/versions.js';
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
 * FSPIOP-HTTP-Method as the original's header transformer (central-services-shared headers/transformer.js)
 * writes it: only when the request carried one, then naming the outbound method (kept as written when it
 * already does). Never added.
 */
function setHttpMethod(out: OutboundHeaders, method: string): void {
  const given = out['fspiop-http-method'];
  if (given !== undefined && given.toUpperCase() !== method) out['fspiop-http-method'] = method;
}

/**
 * Trace ids of requests that came without a traceparent, by their headers object: the original's event-sdk
 * opens a span for every request (one trace id) and writes a traceparent with a new span id on each message
 * it sends with that span. A WeakMap: nothing to clean up, nothing kept past the request.
 */
const createdTraceIds = new WeakMap<object, string>();

/** Random bytes drawn a few KB at a time (one getRandomValues per ~200 messages, not one per id). */
const randomPool = new Uint8Array(4096);
let randomAt = randomPool.length;
const hexOfByte = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

function randomHex(bytes: number): string {
  if (randomAt + bytes > randomPool.length) {
    crypto.getRandomValues(randomPool);
    randomAt = 0;
  }
  let text = '';
  for (let end = randomAt + bytes; randomAt < end; randomAt++) text += hexOfByte[randomPool[randomAt] as number];
  return text;
}

/** The original's event-sdk vendor key in tracestate (its VENDOR_PREFIX default). */
const traceVendor = 'acmevendor';
const traceparentShape = /^[\da-f]{2}-[\da-f]{32}-[\da-f]{16}-[\da-f]{2}$/;

/**
 * The trace headers of a message the original sends with the request's span (event-sdk
 * Span.injectContextToHttpRequest): traceparent with the request's trace id and flags and a new span id (a
 * request without one gets a new trace id and flags 00), and tracestate led by the vendor member
 * `acmevendor=base64({"spanId":...})`, the other members kept. Which messages: forwarded lookups, the
 * /parties error callbacks of a lookup, forwarded /parties error callbacks, the Hub's GET and POST
 * /participants answers and batch answers (what the original sends with a span).
 */
export function withSpan(out: OutboundHeaders, incoming: HeaderMap): void {
  const spanId = randomHex(8);
  const given = out.traceparent;
  let traceId: string;
  let flags: string;
  if (given !== undefined && traceparentShape.test(given)) {
    traceId = given.slice(3, 35);
    flags = given.slice(53, 55);
  } else {
    traceId = createdTraceIds.get(incoming) ?? randomHex(16);
    createdTraceIds.set(incoming, traceId);
    flags = '00';
  }
  out.traceparent = `00-${traceId}-${spanId}-${flags}`;
  const own = `${traceVendor}=${btoa(`{"spanId":"${spanId}"}`)}`;
  const state = out.tracestate;
  if (state === undefined || state === '') {
    out.tracestate = own;
    return;
  }
  let rest = state;
  if (state.includes(traceVendor)) {
    rest = state
      .split(',')
      .filter((member) => member.split('=')[0]?.trim() !== traceVendor)
      .join(',');
  }
  out.tracestate = rest === '' ? own : `${own},${rest}`;
}

/** The resource named by an FSPIOP Accept or Content-Type (`application/vnd.interoperability.parties+json;...`). */
const resourceOfHeader = /^application\/vnd\.interoperability\.(?:iso20022\.)?(\w+)\+json/;

/**
 * The original's header transformer (central-services-shared headers/transformer.js) passes an FSP's Accept
 * and Content-Type on unchanged, but rewrites them when the message's FSPIOP-Source is the hub (its name
 * matched whole, any case): to the Hub's configured version on messages to FSPs (PROTOCOL_VERSIONS.*.DEFAULT,
 * Accept in its major), to the library's per-resource default (1.0, Accept 1) on requests to the oracle,
 * which it sends without configured versions. It also drops a signature the hub did not make. In ISO 20022
 * mode the media types it writes to FSPs are the ISO ones; the oracle's stay FSPIOP (it is given no API type).
 */
function rewriteForHub(out: OutboundHeaders, version: string, api: ApiType): void {
  const accept = version.slice(0, version.indexOf('.'));
  const infix = api === 'iso20022' ? 'iso20022.' : '';
  for (const name of ['accept', 'content-type'] as const) {
    const given = out[name];
    const resource = given === undefined ? undefined : resourceOfHeader.exec(given)?.[1];
    if (resource !== undefined)
      out[name] =
        `application/vnd.interoperability.${infix}${resource}+json;version=${name === 'accept' ? accept : version}`;
  }
  delete out['fspiop-signature'];
}

/** The version of a hub-sourced request to the oracle: the library default of every lookup resource. */
const oracleDefaultVersion = '1.0';

/**
 * Headers of a request forwarded from one FSP to another: everything the FSP sent (Accept, Content-Type,
 * FSPIOP-Signature and FSPIOP-URI stay as they are, the signature covers them), with FSPIOP-Source and
 * FSPIOP-Destination set explicitly and FSPIOP-HTTP-Method, when present, the outbound method. A PUT carries
 * no Accept. A message whose source is `hubName` gets `hubVersion` in the media types of `api` (rewriteForHub).
 */
export function forwardHeaders(
  incoming: HeaderMap,
  source: string,
  destination: string,
  method: 'GET' | 'PUT' | 'POST' | 'DELETE',
  hubName?: string,
  hubVersion?: string,
  api: ApiType = 'fspiop',
): OutboundHeaders {
  const out = copy(incoming);
  out['fspiop-source'] = source;
  out['fspiop-destination'] = destination;
  setHttpMethod(out, method);
  if (hubName !== undefined && hubVersion !== undefined && source.toLowerCase() === hubName.toLowerCase())
    rewriteForHub(out, hubVersion, api);
  if (method === 'PUT') delete out.accept;
  out.date ??= new Date().toUTCString();
  return out;
}

/**
 * Headers of a request to the oracle: the requester's, with FSPIOP-Destination the request's own, or the hub
 * when it named none (the original's oracleRequest); a hub-sourced one in the library's default versions.
 */
export function oracleHeaders(
  incoming: HeaderMap,
  source: string,
  hubName: string,
  method: 'GET' | 'PUT' | 'POST' | 'DELETE',
): OutboundHeaders {
  const given = incoming['fspiop-destination'];
  const destination = (Array.isArray(given) ? given[0] : given) || hubName;
  return forwardHeaders(incoming, source, destination, method, hubName, oracleDefaultVersion);
}

/**
 * Headers of a message the Hub originates (an error callback, or a /participants answer): the request's
 * trace headers and Date kept; Source the hub, Destination the requester; Content-Type in `version`; no
 * signature (the hub does not sign), no FSPIOP-Proxy, no Accept on a PUT. `uri` set: FSPIOP-HTTP-Method PUT
 * and FSPIOP-URI that path, as the original's /parties error callbacks (src/lib/headers.js
 * createCallbackHeaders); undefined: those two only as the request carried them, as its /participants
 * callbacks. Content-Type in the media type of `api`.
 */
export function hubHeaders(
  incoming: HeaderMap,
  hubName: string,
  destination: string,
  uri: string | undefined,
  resource: string,
  version: FspiopVersion,
  api: ApiType = 'fspiop',
): OutboundHeaders {
  const out = copy(incoming);
  delete out.accept;
  delete out['fspiop-signature'];
  delete out['fspiop-proxy'];
  out['content-type'] = contentType(resource, version, api);
  out['fspiop-source'] = hubName;
  out['fspiop-destination'] = destination;
  if (uri === undefined) setHttpMethod(out, 'PUT');
  else {
    out['fspiop-http-method'] = 'PUT';
    out['fspiop-uri'] = uri;
  }
  out.date ??= new Date().toUTCString();
  return out;
}

/**
 * The `tx_end2end_start_ts` member of a W3C tracestate (the Mojaloop performance harness stamps
 * the start of a lookup there). Undefined when absent or not a number.
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

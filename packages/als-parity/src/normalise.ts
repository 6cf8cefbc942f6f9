import type { IncomingHttpHeaders } from 'node:http';
import { type CaseValues, unfill } from './case.js';
import type { Received } from './sims.js';

/** A request an upstream received, normalised. */
export interface UpstreamRequest {
  /** For FSP callbacks: which of the case's FSPs (`{payer}`, ...), else absent. */
  readonly fsp?: string;
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}

/** Everything recorded of one case, with run-specific values replaced by stable placeholders. */
export interface CaseRecord {
  readonly id: string;
  readonly request: { readonly method: string; readonly path: string };
  readonly answer: { readonly status: number; readonly contentType?: string; readonly body: unknown };
  readonly oracle: readonly UpstreamRequest[];
  readonly fsp: readonly UpstreamRequest[];
  /** central-ledger admin API requests, as sorted unique `METHOD url` lines (its answers are cached, so counts are not behaviour). */
  readonly ledger: readonly string[];
}

/** Run-specific URLs and the values a case sent, to put placeholders in their stead. */
export interface RunContext {
  readonly urls: Readonly<Record<string, string>>;
  /** The Date header the case sent. */
  readonly date: string;
}

/** Headers of the transport, not of the protocol: they differ between HTTP clients and say nothing of behaviour. */
const transport = new Set(['host', 'connection', 'keep-alive', 'user-agent', 'accept-encoding', 'transfer-encoding']);

function text(value: string, v: CaseValues, ctx: RunContext): string {
  let out = value;
  for (const [name, url] of Object.entries(ctx.urls)) out = out.split(url).join(`<${name}>`);
  return unfill(out, v);
}

/** Values random by design, compared by their shape: a ULID (ISO 20022 message ids) and a UTC time with ms. */
const ulid = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const utcTime = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

export function normaliseValue(value: unknown, v: CaseValues, ctx: RunContext): unknown {
  if (typeof value === 'string') {
    if (ulid.test(value)) return '<ulid>';
    if (utcTime.test(value)) return '<utc-time>';
    return text(value, v, ctx);
  }
  if (Array.isArray(value)) return value.map((item) => normaliseValue(item, v, ctx));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = normaliseValue(item, v, ctx);
    return out;
  }
  return value;
}

/** A body as JSON when it parses (then normalised), else its text; an empty body is null. */
export function normaliseBody(raw: string, v: CaseValues, ctx: RunContext): unknown {
  if (raw === '') return null;
  try {
    return normaliseValue(JSON.parse(raw), v, ctx);
  } catch {
    return { text: text(raw, v, ctx) };
  }
}

function traceparent(value: string, v: CaseValues): string {
  const parts = value.split('-');
  if (parts.length !== 4) return `<malformed:${value}>`;
  const [version, trace, span, flags] = parts as [string, string, string, string];
  const traceText = trace === v.values.trace ? '{trace}' : /^[0-9a-f]{32}$/.test(trace) ? '<trace>' : `<bad:${trace}>`;
  const spanText = span === v.values.span ? '{span}' : /^[0-9a-f]{16}$/.test(span) ? '<span>' : `<bad:${span}>`;
  return `${version}-${traceText}-${spanText}-${flags}`;
}

/**
 * tracestate members: a timestamp value (e.g. tx_end2end_start_ts) as `<ts>`; a base64 JSON value (the
 * event-sdk's `acmevendor={"spanId":...}`) decoded, its span ids as `<span>`.
 */
function tracestate(value: string): string {
  return value
    .split(',')
    .map((member) => {
      const eq = member.indexOf('=');
      if (eq < 0) return member;
      const key = member.slice(0, eq).trim();
      const raw = member.slice(eq + 1).trim();
      if (/^\d{10,}$/.test(raw)) return `${key}=<ts>`;
      try {
        const decoded = Buffer.from(raw, 'base64').toString('utf8');
        if (decoded.startsWith('{')) {
          JSON.parse(decoded);
          return `${key}=base64(${decoded.replace(/"[0-9a-f]{16}"/g, '"<span>"')})`;
        }
      } catch {
        // not base64 JSON: kept as it is
      }
      return `${key}=${raw}`;
    })
    .join(',');
}

export function normaliseHeaders(headers: IncomingHttpHeaders, v: CaseValues, ctx: RunContext): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(headers).sort()) {
    if (transport.has(name)) continue;
    const raw = headers[name];
    const value = Array.isArray(raw) ? raw.join(', ') : (raw ?? '');
    if (name === 'content-length') out[name] = '<n>';
    else if (name === 'date')
      out[name] = value === ctx.date ? '{date}' : Number.isNaN(Date.parse(value)) ? value : '<date>';
    else if (name === 'traceparent') out[name] = traceparent(value, v);
    else if (name === 'tracestate') out[name] = tracestate(text(value, v, ctx));
    else out[name] = text(value, v, ctx);
  }
  return out;
}

const fspPath = /^\/fsp\/([^/]+)(\/.*)?$/;

export function normaliseReceived(r: Received, v: CaseValues, ctx: RunContext): UpstreamRequest {
  const headers = normaliseHeaders(r.headers, v, ctx);
  const body = normaliseBody(r.body, v, ctx);
  if (r.to === 'fsp') {
    const m = fspPath.exec(r.url);
    if (m) {
      return {
        fsp: unfill(decodeURIComponent(m[1] as string), v),
        method: r.method,
        url: text(m[2] ?? '/', v, ctx),
        headers,
        body,
      };
    }
  }
  return { method: r.method, url: text(r.url, v, ctx), headers, body };
}

const order = (a: UpstreamRequest, b: UpstreamRequest): number => {
  const ka = `${a.fsp ?? ''} ${a.method} ${a.url} ${JSON.stringify(a.body)}`;
  const kb = `${b.fsp ?? ''} ${b.method} ${b.url} ${JSON.stringify(b.body)}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
};

/** The case's record from its answer and the requests attributed to it (sorted: arrival order is not behaviour). */
export function buildRecord(
  id: string,
  request: { method: string; path: string },
  answer: { status: number; contentType?: string; body: string },
  received: readonly Received[],
  v: CaseValues,
  ctx: RunContext,
): CaseRecord {
  const oracle = received.filter((r) => r.to === 'oracle').map((r) => normaliseReceived(r, v, ctx));
  const fsp = received.filter((r) => r.to === 'fsp').map((r) => normaliseReceived(r, v, ctx));
  const ledger = [
    ...new Set(received.filter((r) => r.to === 'ledger').map((r) => `${r.method} ${text(r.url, v, ctx)}`)),
  ].sort();
  return {
    id,
    request,
    answer: {
      status: answer.status,
      ...(answer.contentType === undefined ? {} : { contentType: answer.contentType }),
      body: normaliseBody(answer.body, v, ctx),
    },
    oracle: oracle.sort(order),
    fsp: fsp.sort(order),
    ledger,
  };
}

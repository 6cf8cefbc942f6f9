import { Agent, request } from 'undici';
import { type Case, type CaseValues, caseValues, fill, fillDeep } from './case.js';
import { buildRecord, type CaseRecord, type RunContext } from './normalise.js';
import type { Received, RecordingSims } from './sims.js';

/** The ALS under test. */
export interface Target {
  readonly api: string;
  readonly admin: string;
}

export interface RunOptions {
  /** Cases of the `api` phase in flight at once. */
  readonly concurrency?: number;
  /** A case is over when nothing arrived for it for this long after its answer. */
  readonly quietMs?: number;
  /** ... or when this much time passed since its request. */
  readonly maxMs?: number;
  /** Only the cases whose id matches (setup cases always run). */
  readonly filter?: RegExp;
  readonly onCase?: (record: CaseRecord) => void;
}

export interface RunRecord {
  readonly cases: CaseRecord[];
  /** Requests no case's tag was found in (e.g. central-ledger asked for the Hub), by `to METHOD url`. */
  readonly unattributed: readonly string[];
  readonly durationMs: number;
}

function media(resource: string, version: string, iso: boolean): string {
  return `application/vnd.interoperability.${iso ? 'iso20022.' : ''}${resource}+json;version=${version}`;
}

/** The request's headers: the base set for its kind and method, then the case's `set` and `unset`. */
export function requestHeaders(
  c: Case,
  v: CaseValues,
  date: string,
  extra: Record<string, string>,
): Record<string, string> {
  const iso = c.media === 'iso20022';
  const version = c.version ?? (iso ? '2.0' : '1.1');
  const headers: Record<string, string> = {};
  if (c.headerSet === 'parties' || c.headerSet === 'participants') {
    const resource = c.headerSet;
    const callback = c.method === 'PUT';
    if (!callback) headers.accept = media(resource, version, iso);
    headers['content-type'] = media(resource, version, iso);
    headers.date = date;
    headers['fspiop-source'] =
      callback && c.headerSet === 'parties' ? (v.names.payee as string) : (v.names.payer as string);
    if (callback && c.headerSet === 'parties') headers['fspiop-destination'] = v.names.payer as string;
    headers.traceparent = `00-${v.values.trace}-${v.values.span}-01`;
  } else if (c.headerSet === 'admin') {
    headers.accept = 'application/json';
    headers['content-type'] = 'application/json';
    headers.date = date;
  }
  for (const [name, value] of Object.entries(c.set ?? {}))
    headers[name.toLowerCase()] = fill(value, v, { ...extra, date });
  for (const name of c.unset ?? []) delete headers[name.toLowerCase()];
  return headers;
}

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `{oracle:TYPE}` → the id of the active oracle of that type, read from the admin API. */
async function oracleIds(c: Case, target: Target, dispatcher: Agent): Promise<Record<string, string>> {
  const wanted = new Set<string>();
  const scan = `${c.path} ${JSON.stringify(c.body ?? '')}`;
  for (const m of scan.matchAll(/\{oracle:([A-Z_]+)\}/g)) wanted.add(m[1] as string);
  if (wanted.size === 0) return {};
  const res = await request(`${target.admin}/oracles`, {
    dispatcher,
    headers: { accept: 'application/json', 'content-type': 'application/json', date: new Date().toUTCString() },
  });
  const list = (await res.body.json()) as { oracleId: number; oracleIdType: string }[];
  const out: Record<string, string> = {};
  for (const type of wanted) {
    const found = list.find((o) => o.oracleIdType === type);
    out[`oracle:${type}`] = found ? String(found.oracleId) : '0';
  }
  return out;
}

async function runCase(
  c: Case,
  index: number,
  target: Target,
  sims: RecordingSims,
  dispatcher: Agent,
  options: Required<Pick<RunOptions, 'quietMs' | 'maxMs'>>,
): Promise<CaseRecord> {
  const v = caseValues(index);
  const extra = { ...(await oracleIds(c, target, dispatcher)), oracleUrl: sims.oracleUrl, deadUrl: sims.deadUrl };
  for (const [role, spec] of Object.entries(c.fsps)) {
    sims.setParticipant(v.names[role] ?? role, { active: spec.active ?? true, endpoints: spec.endpoints ?? 'ok' });
  }
  if (c.oracle) sims.setOracleScript(v.tag, fillDeep(c.oracle, v, extra));
  const date = new Date().toUTCString();
  const headers = requestHeaders(c, v, date, extra);
  const path = fill(c.path, v, extra);
  const body =
    c.body === undefined
      ? undefined
      : typeof c.body === 'string'
        ? fill(c.body, v, extra)
        : JSON.stringify(fillDeep(c.body, v, extra));
  const origin = c.port === 'api' ? target.api : target.admin;
  const first = sims.received.length;
  const started = Date.now();
  const res = await dispatcher.request({ origin, path, method: c.method as 'GET', headers, body: body ?? null });
  const answerBody = await res.body.text();
  const contentType = res.headers['content-type'];
  const mine = (r: Received) => r.url.includes(v.tag) || r.body.includes(v.tag);
  let last = Date.now();
  let seen = 0;
  for (;;) {
    const count = sims.received.slice(first).filter(mine).length;
    if (count !== seen) {
      seen = count;
      last = Date.now();
    }
    const now = Date.now();
    const lasted = now - started;
    if (lasted >= (c.minMs ?? 0) && (now - last >= options.quietMs || lasted >= options.maxMs)) break;
    await wait(20);
  }
  if (c.oracle) sims.removeOracleScript(v.tag);
  const ctx: RunContext = {
    date,
    urls: {
      ledger: sims.ledgerUrl,
      oracle: sims.oracleUrl,
      fsp: sims.fspUrl,
      dead: sims.deadUrl,
      api: target.api,
      admin: target.admin,
    },
  };
  return buildRecord(
    c.id,
    { method: c.method, path: c.path },
    {
      status: res.statusCode,
      contentType: Array.isArray(contentType) ? contentType.join(', ') : contentType,
      body: answerBody,
    },
    sims.received.filter(mine),
    v,
    ctx,
  );
}

/**
 * Runs the corpus against `target`: the setup cases one by one, then the api cases `concurrency` at a time,
 * then the admin cases one by one. Each case's values are its own (caseValues of its index in `cases`), so
 * cases share no participant, party or trace.
 */
export async function runCorpus(
  cases: readonly Case[],
  target: Target,
  sims: RecordingSims,
  options: RunOptions = {},
): Promise<RunRecord> {
  const started = Date.now();
  const dispatcher = new Agent({ connections: 16, headersTimeout: 15_000, bodyTimeout: 15_000 });
  const timing = { quietMs: options.quietMs ?? 300, maxMs: options.maxMs ?? 5_000 };
  const records = new Map<string, CaseRecord>();
  const indexed = cases.map((c, index) => ({ c, index }));
  const chosen = indexed.filter(({ c }) => c.phase === 'setup' || !options.filter || options.filter.test(c.id));
  const done = (record: CaseRecord) => {
    records.set(record.id, record);
    options.onCase?.(record);
  };
  try {
    for (const { c, index } of chosen.filter(({ c }) => c.phase === 'setup'))
      done(await runCase(c, index, target, sims, dispatcher, timing));
    const api = chosen.filter(({ c }) => c.phase === 'api');
    let next = 0;
    const worker = async () => {
      for (;;) {
        const item = api[next++];
        if (!item) return;
        done(await runCase(item.c, item.index, target, sims, dispatcher, timing));
      }
    };
    await Promise.all(Array.from({ length: options.concurrency ?? 8 }, worker));
    for (const { c, index } of chosen.filter(({ c }) => c.phase === 'admin'))
      done(await runCase(c, index, target, sims, dispatcher, timing));
  } finally {
    await dispatcher.close();
  }
  const tags = indexed.map(({ index }) => caseValues(index).tag);
  const unattributed = [
    ...new Set(
      sims.received
        .filter((r) => !tags.some((tag) => r.url.includes(tag) || r.body.includes(tag)))
        .map((r) => `${r.to} ${r.method} ${r.url}`),
    ),
  ].sort();
  return {
    cases: chosen.map(({ c }) => records.get(c.id) as CaseRecord),
    unattributed,
    durationMs: Date.now() - started,
  };
}

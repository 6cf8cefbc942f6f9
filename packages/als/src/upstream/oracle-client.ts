import { LRUCache } from 'lru-cache';
import { encodeSegment } from '../discovery/endpoints.js';
import { type OutboundHeaders, type PartyEntry, type PartyRef, UpstreamError } from '../discovery/types.js';
import { type Cache, type CacheResult, createCache } from './cache.js';
import { errorInformationOf, type HttpClient, type UpstreamResponse } from './http-client.js';

export interface OracleClientOptions {
  readonly answerTtlMs: number;
  readonly maxStaleMs: number;
  readonly maxEntries: number;
  readonly record?: (cache: string, result: CacheResult) => void;
}

export interface OracleClient {
  lookup(
    oracleUrl: string,
    party: PartyRef,
    currency: string | undefined,
    headers: OutboundHeaders,
  ): Promise<readonly PartyEntry[]>;
  write(
    oracleUrl: string,
    method: 'POST' | 'PUT' | 'DELETE',
    party: PartyRef,
    body: string | undefined,
    headers: OutboundHeaders,
  ): Promise<number>;
  batch(oracleUrl: string, body: string, headers: OutboundHeaders): Promise<Buffer>;
  forget(party: PartyRef): void;
}

/** The oracle path of a party, its sub-id as a segment (our writes; see lookupUrl for lookups). */
function partyPath(party: PartyRef): string {
  const base = `/participants/${encodeSegment(party.type)}/${encodeSegment(party.id)}`;
  return party.subId === undefined ? base : `${base}/${encodeSegment(party.subId)}`;
}

/**
 * A lookup's URL as the original's oracle facade builds it (central-services-shared
 * ORACLE_PARTICIPANTS_TYPE_ID[_CURRENCY][_SUB_ID]): the sub-id, and the currency, as query parameters.
 */
function lookupUrl(oracleUrl: string, party: PartyRef, currency: string | undefined): string {
  const base = `${oracleUrl}/participants/${encodeSegment(party.type)}/${encodeSegment(party.id)}`;
  const sub = party.subId === undefined ? '' : `partySubIdOrType=${encodeURIComponent(party.subId)}`;
  if (currency) return `${base}?currency=${encodeURIComponent(currency)}${sub ? `&${sub}` : ''}`;
  return sub ? `${base}?${sub}` : base;
}

function answered(what: string, status: number, body: Buffer): UpstreamError {
  return new UpstreamError('oracle', `${what} answered ${status}`, status, errorInformationOf(body));
}

const noParties: readonly PartyEntry[] = Object.freeze([]);

/**
 * The entries that name an FSP. The parsed list itself when all do (the usual answer): no second array per
 * lookup; nothing else holds it.
 */
function withFspIds(list: unknown[]): readonly PartyEntry[] {
  for (let i = 0; i < list.length; i++) {
    if (typeof (list[i] as PartyEntry | undefined)?.fspId !== 'string')
      return (list as PartyEntry[]).filter((e) => typeof e?.fspId === 'string');
  }
  return list as PartyEntry[];
}

const partyKey = (party: PartyRef) => `${party.type}\u0000${party.id}\u0000${party.subId ?? ''}`;

/**
 * The oracle API (GET|POST|DELETE /participants/{Type}/{ID}[/{SubId}], POST /participants), with the
 * answers of GET cached per oracle, party and currency. The headers of the first caller of a coalesced
 * load are the ones the oracle sees; an oracle ignores them beyond tracing.
 */
export function createOracleClient(http: HttpClient, options: OracleClientOptions): OracleClient {
  // The load of a cache entry needs the request's URL and headers; they ride along keyed by cache key.
  const pending = new Map<string, { url: string; headers: OutboundHeaders }>();
  // party key → cache keys (one per oracle and currency), so a write can drop all of them.
  // Bounded like the answers: lookups of ever-new IDs must not grow it.
  const keysOfParty = new LRUCache<string, Set<string>>({ max: options.maxEntries });

  const fetchAnswer = async (
    url: string,
    headers: OutboundHeaders,
    settled?: () => void,
  ): Promise<readonly PartyEntry[]> => {
    let answer: UpstreamResponse;
    try {
      answer = await http.request({ url, method: 'GET', headers }, 'oracle');
    } finally {
      // Told here, before the answer is read: a reaction of its own on the load was a promise per lookup.
      settled?.();
    }
    const { status, body } = answer;
    // Any status but 2xx is a failure the flow maps as the original (a 404 is not "no party").
    if (status < 200 || status >= 300) throw answered('GET', status, body);
    // A 2xx that is not JSON or has no partyList array is an empty list, as the original reads it
    // (BasePartiesService.sendOracleDiscoveryRequest, participants.js): the requester hears "not found".
    let parsed: { partyList?: unknown } | undefined;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      return noParties;
    }
    if (!Array.isArray(parsed?.partyList)) return noParties;
    return withFspIds(parsed.partyList);
  };

  const answers: Cache<readonly PartyEntry[]> = createCache({
    name: 'oracle_answer',
    ttlMs: options.answerTtlMs,
    maxStaleMs: options.maxStaleMs,
    max: options.maxEntries,
    record: options.record,
    load(key) {
      const call = pending.get(key);
      if (!call) return Promise.reject(new UpstreamError('oracle', 'internal: no request for a cache load'));
      return fetchAnswer(call.url, call.headers);
    },
  });

  // With the answer cache off (the default, as the original): no cache entry, its key or its pending
  // request per lookup; concurrent lookups of the same URL still share one GET, counted as misses like the
  // cache's.
  const loading = new Map<string, Promise<readonly PartyEntry[]>>();
  const lookUpUncached = (url: string, headers: OutboundHeaders): Promise<readonly PartyEntry[]> => {
    options.record?.('oracle_answer', 'miss');
    const running = loading.get(url);
    if (running !== undefined) return running;
    const load: Promise<readonly PartyEntry[]> = fetchAnswer(url, headers, () => {
      if (loading.get(url) === load) loading.delete(url);
    });
    loading.set(url, load);
    return load;
  };

  const lookUpCached = async (url: string, party: PartyRef, headers: OutboundHeaders) => {
    const key = url;
    const pKey = partyKey(party);
    let keys = keysOfParty.get(pKey);
    if (!keys) {
      keys = new Set();
      keysOfParty.set(pKey, keys);
    }
    keys.add(key);
    if (!pending.has(key)) pending.set(key, { url, headers });
    try {
      return await answers.get(key);
    } finally {
      pending.delete(key);
    }
  };

  return {
    lookup(oracleUrl, party, currency, headers) {
      const url = lookupUrl(oracleUrl, party, currency);
      if (options.answerTtlMs <= 0) return lookUpUncached(url, headers);
      return lookUpCached(url, party, headers);
    },
    async write(oracleUrl, method, party, body, headers) {
      const outbound = body === undefined ? headers : { 'content-type': 'application/json', ...headers };
      const answer = await http.request(
        { url: `${oracleUrl}${partyPath(party)}`, method, headers: outbound, body },
        'oracle',
      );
      this.forget(party);
      if (answer.status < 200 || answer.status >= 300) throw answered(method, answer.status, answer.body);
      return answer.status;
    },
    async batch(oracleUrl, body, headers) {
      const { status, body: answer } = await http.request(
        {
          url: `${oracleUrl}/participants`,
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body,
        },
        'oracle',
      );
      if (status < 200 || status >= 300) throw answered('batch POST', status, answer);
      return answer;
    },
    forget(party) {
      const pKey = partyKey(party);
      const keys = keysOfParty.get(pKey);
      if (!keys) return;
      keysOfParty.delete(pKey);
      for (const key of keys) answers.delete(key);
    },
  };
}

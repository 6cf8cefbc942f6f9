import { type Cached, type Participant, UpstreamError } from '../discovery/types.js';
import { type Cache, type CacheResult, createCache } from './cache.js';
import type { HttpClient } from './http-client.js';

export interface CentralLedgerOptions {
  readonly switchEndpoint: string;
  readonly participantTtlMs: number;
  readonly endpointTtlMs: number;
  readonly maxStaleMs: number;
  readonly maxEntries: number;
  readonly record?: (cache: string, result: CacheResult) => void;
}

export interface CentralLedger {
  /** Held answers as they are (Cached), not in a promise. */
  participant(name: string): Cached<Participant | undefined>;
  endpoints(name: string): Cached<ReadonlyMap<string, string>>;
  /**
   * The active proxies' names: GET /participants?isProxy=true, kept like a participant (the original's
   * central-services-shared proxies cache, getAllProxiesNames(switchUrl, onlyActive = true)).
   */
  proxyNames(): Cached<readonly string[]>;
  /** DELETE /endpointcache of the original admin API. */
  clear(): void;
}

const unknown = Object.freeze({ unknown: true as const });
type ParticipantAnswer = Participant | typeof unknown;
const known = (answer: ParticipantAnswer): Participant | undefined => ('unknown' in answer ? undefined : answer);

interface ParticipantBody {
  name?: string;
  isActive?: number | boolean;
  accounts?: { currency?: string; isActive?: number | boolean }[];
}

/**
 * central-ledger's admin API: GET /participants/{name} and /participants/{name}/endpoints, each behind a
 * cache. An unknown name (central-ledger answers 3200 with 400 or 404) is an answer and is cached like
 * the original's; a 5xx or a transport failure is not, and surfaces as UpstreamError.
 */
export function createCentralLedger(http: HttpClient, options: CentralLedgerOptions): CentralLedger {
  const base = options.switchEndpoint;
  const fetchJson = async (path: string): Promise<unknown> => {
    const { status, body } = await http.request(
      { url: `${base}${path}`, method: 'GET', headers: { accept: 'application/json' } },
      'central-ledger',
    );
    if (status === 400 || status === 404) return undefined;
    if (status !== 200) throw new UpstreamError('central-ledger', `GET ${path} answered ${status}`, status);
    try {
      return JSON.parse(body.toString('utf8'));
    } catch {
      throw new UpstreamError('central-ledger', `GET ${path} answered a body that is not JSON`);
    }
  };

  const participants: Cache<ParticipantAnswer> = createCache({
    name: 'participant',
    ttlMs: options.participantTtlMs,
    maxStaleMs: options.maxStaleMs,
    max: options.maxEntries,
    record: options.record,
    async load(name) {
      const body = (await fetchJson(`/participants/${encodeURIComponent(name)}`)) as ParticipantBody | undefined;
      if (!body || typeof body !== 'object') return unknown;
      const currencies = [...new Set((body.accounts ?? []).map((a) => a.currency).filter((c) => c !== undefined))];
      return { name: body.name ?? name, isActive: body.isActive === 1 || body.isActive === true, currencies };
    },
  });

  const endpoints: Cache<ReadonlyMap<string, string>> = createCache({
    name: 'endpoints',
    ttlMs: options.endpointTtlMs,
    maxStaleMs: options.maxStaleMs,
    max: options.maxEntries,
    record: options.record,
    async load(name) {
      const body = await fetchJson(`/participants/${encodeURIComponent(name)}/endpoints`);
      const map = new Map<string, string>();
      if (Array.isArray(body)) {
        for (const item of body as { type?: unknown; value?: unknown }[]) {
          if (typeof item?.type === 'string' && typeof item.value === 'string') map.set(item.type, item.value);
        }
      }
      return map;
    },
  });

  const proxies: Cache<readonly string[]> = createCache({
    name: 'proxies',
    ttlMs: options.participantTtlMs,
    maxStaleMs: options.maxStaleMs,
    max: 1,
    record: options.record,
    async load() {
      const body = await fetchJson('/participants?isProxy=true');
      if (!Array.isArray(body)) throw new UpstreamError('central-ledger', 'GET /participants?isProxy=true: no list');
      return (body as ParticipantBody[])
        .filter((p) => p?.isActive === 1 && typeof p.name === 'string')
        .map((p) => p.name as string);
    },
  });

  return {
    proxyNames: () => proxies.get('all'),
    participant(name) {
      const answer = participants.get(name);
      return answer instanceof Promise ? answer.then(known) : known(answer);
    },
    endpoints: (name) => endpoints.get(name),
    clear() {
      participants.clear();
      endpoints.clear();
      proxies.clear();
    },
  };
}

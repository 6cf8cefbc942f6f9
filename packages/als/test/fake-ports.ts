import type { ErrorInformation } from '@mojafast/fspiop';
import { Endpoint } from '../src/discovery/endpoints.js';
import type { AlsRequest, ProxyCache } from '../src/discovery/proxy-cache.js';
import type {
  DiscoveryEvent,
  DiscoveryPorts,
  OutboundRequest,
  Participant,
  PartyEntry,
  PartyRef,
  ProxyPorts,
  Stage,
} from '../src/discovery/types.js';
import { UpstreamError } from '../src/discovery/types.js';
import { AlsError, type AlsErrorName } from '../src/fspiop/errors.js';

/**
 * Discovery ports over plain values, for the flows' unit tests: a scheme of FSPs with every endpoint,
 * one oracle, an egress that records what is sent. Each test changes what it needs on the returned world.
 */
export interface World {
  readonly ports: DiscoveryPorts;
  /** name → participant; absent: central-ledger does not know it. */
  readonly participants: Map<string, Participant>;
  /** name → endpoint type → template; a participant without an entry has every endpoint. */
  readonly endpoints: Map<string, Map<string, string>>;
  /** Names whose participant check throws (central-ledger down for them). */
  readonly ledgerDown: Set<string>;
  /** `type/id` → the oracle's entries. */
  readonly oracle: Map<string, PartyEntry[]>;
  readonly oracleCalls: { method: string; party: PartyRef; body?: string | undefined; url: string }[];
  /** Set to make each oracle call fail (a lookup, a write, a batch). */
  oracleFailure: { lookup?: unknown; write?: unknown; batch?: unknown; oracleFor?: unknown };
  writeStatus: number;
  batchAnswer: Buffer;
  readonly forgotten: PartyRef[];
  readonly sent: OutboundRequest[];
  /** Names whose endpoint refuses what is sent (a 500). */
  readonly unreachable: Set<string>;
  readonly events: DiscoveryEvent[];
  readonly stages: Stage[];
  readonly endToEnd: number[];
}

export const hubName = 'Hub';
export const allEndpointTypes = Object.values(Endpoint);

const template = (name: string, type: string) =>
  type.includes('BATCH')
    ? `http://${name}.test/${type}/{{requestId}}`
    : `http://${name}.test/${type}/{{partyIdType}}/{{partyIdentifier}}${type.includes('SUB_ID') ? '/{{partySubIdOrType}}' : ''}`;

export function fakeWorld(names: readonly string[] = ['payerfsp', 'payeefsp']): World {
  const world: World = {
    participants: new Map(names.map((name) => [name, { name, isActive: true, currencies: ['XXX'] }])),
    endpoints: new Map(),
    ledgerDown: new Set(),
    oracle: new Map(),
    oracleCalls: [],
    oracleFailure: {},
    writeStatus: 201,
    batchAnswer: Buffer.from('{"partyList":[]}'),
    forgotten: [],
    sent: [],
    unreachable: new Set(),
    events: [],
    stages: [],
    endToEnd: [],
    ports: undefined as unknown as DiscoveryPorts,
  };
  const endpointsOf = (name: string): ReadonlyMap<string, string> =>
    world.endpoints.get(name) ?? new Map(allEndpointTypes.map((type) => [type, template(name, type)]));
  const checkLedger = (name: string) => {
    if (world.ledgerDown.has(name)) throw new UpstreamError('central-ledger', `GET /participants/${name} answered 503`);
  };
  const fail = (error: unknown) => {
    if (error !== undefined) throw error;
  };
  (world as { ports: DiscoveryPorts }).ports = {
    hubName,
    hubVersion: '1.1',
    apiType: 'fspiop',
    directory: {
      async participant(name) {
        checkLedger(name);
        return world.participants.get(name);
      },
      async endpoint(name, type) {
        checkLedger(name);
        return endpointsOf(name).get(type);
      },
      async endpoints(name) {
        checkLedger(name);
        return endpointsOf(name);
      },
    },
    oracles: {
      async oracleFor() {
        fail(world.oracleFailure.oracleFor);
        return 'http://oracle.test';
      },
      async lookup(url, party) {
        world.oracleCalls.push({ method: 'GET', party, url });
        fail(world.oracleFailure.lookup);
        return world.oracle.get(`${party.type}/${party.id}`) ?? [];
      },
      async write(url, method, party, body) {
        world.oracleCalls.push({ method, party, body, url });
        fail(world.oracleFailure.write);
        return world.writeStatus;
      },
      async batch(url, body) {
        world.oracleCalls.push({ method: 'BATCH', party: { type: '', id: '' }, body, url });
        fail(world.oracleFailure.batch);
        return world.batchAnswer;
      },
      forget(party) {
        world.forgotten.push(party);
      },
    },
    egress: {
      async send(request) {
        world.sent.push(request);
        if (request.participant !== undefined && world.unreachable.has(request.participant)) {
          throw new UpstreamError('fsp', 'answered 500', 500);
        }
      },
    },
    codec: {
      error: (information) => JSON.stringify({ errorInformation: information }),
      fspId: (fspId) => JSON.stringify({ fspId }),
      partyList: (body) => JSON.stringify(body),
    },
    observe: {
      stage: (stage) => {
        world.stages.push(stage);
        return performance.now();
      },
      endToEnd: (ms) => world.endToEnd.push(ms),
      event: (event) => world.events.push(event),
    },
  };
  return world;
}

/** The errorInformation of a request the Hub sent, or undefined when it carries none. */
export function errorOf(request: OutboundRequest | undefined): ErrorInformation | undefined {
  if (request?.body === undefined) return undefined;
  return (JSON.parse(request.body.toString()) as { errorInformation?: ErrorInformation }).errorInformation;
}

export const info = (name: AlsErrorName, values?: Record<string, string>) => new AlsError(name, values).information();

/** An in-memory proxy cache with the library's semantics the flows rely on; `down` makes every call throw. */
export class MemoryProxyCache implements ProxyCache {
  readonly dfsps = new Map<string, string>();
  readonly lookups = new Map<string, { awaited: Set<string>; success?: string }>();
  readonly removedTimeouts: string[] = [];
  mappingRefused = false;
  listRefused = false;
  down = false;

  #check() {
    if (this.down) throw new Error('redis down');
  }
  #key(req: AlsRequest) {
    return `als:${req.sourceId}:${req.type}:${req.partyId}`;
  }
  async addDfspIdToProxyMapping(dfspId: string, proxyId: string) {
    this.#check();
    if (this.mappingRefused) return false;
    this.dfsps.set(dfspId, proxyId);
    return true;
  }
  async lookupProxyByDfspId(dfspId: string) {
    this.#check();
    return this.dfsps.get(dfspId) ?? null;
  }
  async removeDfspIdFromProxyMapping(dfspId: string) {
    return this.dfsps.delete(dfspId);
  }
  async setSendToProxiesList(req: AlsRequest, proxyIds: readonly string[]) {
    this.#check();
    if (this.listRefused || this.lookups.has(this.#key(req))) return false;
    this.lookups.set(this.#key(req), { awaited: new Set(proxyIds) });
    return true;
  }
  async isPendingCallback(req: AlsRequest, proxyId: string | undefined) {
    return proxyId !== undefined && (this.lookups.get(this.#key(req))?.awaited.has(proxyId) ?? false);
  }
  async receivedSuccessResponse(req: AlsRequest, proxyId: string) {
    const lookup = this.lookups.get(this.#key(req));
    if (!lookup?.awaited.has(proxyId)) return 'not-awaited' as const;
    lookup.awaited.delete(proxyId);
    if (lookup.success !== undefined) return 'late' as const;
    lookup.success = proxyId;
    return 'first' as const;
  }
  async receivedErrorResponse(req: AlsRequest, proxyId: string) {
    this.#check();
    const lookup = this.lookups.get(this.#key(req));
    if (!lookup?.awaited.delete(proxyId)) return false;
    return lookup.awaited.size === 0 && lookup.success === undefined;
  }
  async removeProxyGetPartiesTimeout(req: AlsRequest, proxyId: string | undefined) {
    this.removedTimeouts.push(`${this.#key(req)}/${proxyId}`);
    return true;
  }
  async processExpiredAlsKeys() {
    return 0;
  }
  async healthCheck() {
    return true;
  }
}

export function proxyPorts(cache: MemoryProxyCache, names: string[] = ['proxyA', 'proxyB']): ProxyPorts {
  return { cache, proxyNames: async () => names, expiresInSec: 30 };
}

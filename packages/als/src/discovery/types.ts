import type { ErrorInformation } from '@mojafast/fspiop';
import type { ParticipantPartyList } from '../fspiop/bodies.js';
import type { FspiopVersion } from '../fspiop/versions.js';
import type { ProxyCache } from './proxy-cache.js';

/** Request headers as Node gives them: lower-case names. */
export type HeaderMap = Readonly<Record<string, string | string[] | undefined>>;
export type OutboundHeaders = Record<string, string>;

export interface Participant {
  readonly name: string;
  readonly isActive: boolean;
  readonly currencies: readonly string[];
}

/** One entry of an oracle's partyList. */
export interface PartyEntry {
  readonly fspId: string;
  readonly currency?: string;
  readonly partySubIdOrType?: string;
}

export interface PartyRef {
  readonly type: string;
  readonly id: string;
  readonly subId?: string | undefined;
}

/**
 * A failed call to another service (central-ledger, an oracle, an FSP); `reason` is for the error text;
 * `information` is the error body the service answered, when it answered one.
 */
export class UpstreamError extends Error {
  constructor(
    readonly upstream: string,
    readonly reason: string,
    readonly status?: number,
    readonly information?: ErrorInformation,
  ) {
    super(`${upstream}: ${reason}`);
    this.name = 'UpstreamError';
  }
}

export interface OutboundRequest {
  readonly url: string;
  readonly method: 'GET' | 'PUT' | 'POST' | 'DELETE';
  readonly headers: OutboundHeaders;
  readonly body?: Buffer | string;
}

export type Stage = 'validation' | 'oracle' | 'endpoint' | 'forward' | 'callback';

/**
 * The original's egress timers (src/models/participantEndpoint/facade.js): checking a participant with
 * central-ledger, resolving one of its endpoints of a type, and sending it a request.
 */
export type EgressStep = 'validateParticipant' | 'getParticipantEndpoint' | 'sendRequestToParticipant';

export type DiscoveryEvent =
  | 'unknown_source'
  | 'error_callback_failed'
  | 'error_callback_sent'
  | 'forward_failed'
  | 'callback_forwarded'
  | 'proxy_error_dropped'
  | 'proxy_success_dropped'
  | 'lookup_expired'
  /** An accepted request's flow ended without any callback; the routes sent the error callback. */
  | 'callback_missing';

/**
 * Inter-scheme discovery (the original's PROXY_CACHE.enabled): present only when it is on, so a lookup
 * with it off does no proxy work at all.
 */
export interface ProxyPorts {
  readonly cache: ProxyCache;
  /** The active proxies' names (central-ledger GET /participants?isProxy=true); throws UpstreamError. */
  proxyNames(): Promise<readonly string[]>;
  /** How long a lookup across the scheme may take (the original's PROXY_CACHE_EXPIRES_IN_SEC). */
  readonly expiresInSec: number;
}

/** Everything a flow needs from the outside, passed in: the flows import no HTTP client, cache or database. */
export interface DiscoveryPorts {
  readonly hubName: string;
  readonly proxy?: ProxyPorts | undefined;
  readonly hubVersion: FspiopVersion;
  /** Undefined when central-ledger does not know the name; throws UpstreamError when it cannot be asked. */
  participant(name: string): Promise<Participant | undefined>;
  /** Endpoint type → URL template of a participant; throws UpstreamError. */
  endpoints(name: string): Promise<ReadonlyMap<string, string>>;
  /**
   * The oracle URL for a party ID type, and for a currency when one is given (only lookups give one);
   * throws AlsError NO_ORACLE / NO_ORACLE_FOR_CURRENCY / NO_DEFAULT_ORACLE.
   */
  oracleFor(type: string, currency: string | undefined): Promise<string>;
  oracleLookup(
    oracleUrl: string,
    party: PartyRef,
    currency: string | undefined,
    headers: OutboundHeaders,
  ): Promise<readonly PartyEntry[]>;
  /**
   * POST, PUT or DELETE one party at the oracle; drops its cached answer; answers the oracle's status
   * (2xx); throws UpstreamError for any other.
   */
  oracleWrite(
    oracleUrl: string,
    method: 'POST' | 'PUT' | 'DELETE',
    party: PartyRef,
    body: string | undefined,
    headers: OutboundHeaders,
  ): Promise<number>;
  /** POST /participants (batch) at the oracle; answers the oracle's body. */
  oracleBatch(oracleUrl: string, body: string, headers: OutboundHeaders): Promise<Buffer>;
  /** Drops the cached oracle answer for a party (https://github.com/mojaloop/project/issues/4227). */
  forgetParty(party: PartyRef): void;
  send(request: OutboundRequest): Promise<void>;
  serialiseError(information: ErrorInformation): string;
  serialiseFspId(fspId: string): string;
  /** The `{partyList:[...],currency}` answer of POST/PUT /participants/{Type}/{ID}. */
  serialisePartyList(body: ParticipantPartyList): string;
  observe(stage: Stage, startedAt: number): void;
  endToEnd(startedAtMs: number): void;
  count(event: DiscoveryEvent): void;
  /**
   * One egress step that started at `startedAt` (performance.now()) ended, `ok` or not. `endpointType` and
   * `participant` name the endpoint resolved or the participant sent to; both are '' for validateParticipant,
   * whose timer the original labels with `success` only.
   */
  egress(step: EgressStep, endpointType: string, participant: string, ok: boolean, startedAt: number): void;
}

import type { ErrorInformation } from '@mojafast/fspiop';
import type { ParticipantPartyList } from '../fspiop/bodies.js';
import type { AlsError } from '../fspiop/errors.js';
import type { ApiType, FspiopVersion } from '../fspiop/versions.js';
import type { Resource } from './endpoints.js';
import type { Dropped, FlowOutcome } from './outcome.js';
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
    options?: ErrorOptions,
  ) {
    super(`${upstream}: ${reason}`, options);
    this.name = 'UpstreamError';
  }
}

export interface OutboundRequest {
  readonly url: string;
  readonly method: 'GET' | 'PUT' | 'POST' | 'DELETE';
  readonly headers: OutboundHeaders;
  readonly body?: Buffer | string;
  /**
   * Whom it goes to (the FSP or proxy whose endpoint the URL is) and that endpoint's type: the labels the
   * egress timer at the upstream edge gives it (the original's egress_sendRequestToParticipant).
   */
  readonly participant?: string;
  readonly endpointType?: string;
}

export type Stage = 'validation' | 'oracle' | 'endpoint' | 'forward' | 'callback';

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
  proxyNames(): Cached<readonly string[]>;
  /** How long a lookup across the scheme may take (the original's PROXY_CACHE_EXPIRES_IN_SEC). */
  readonly expiresInSec: number;
}

/**
 * A value the caches may hold: as it is when they do, a promise when it must be read upstream. Awaited by
 * the flows either way; a lookup reads the directory six times, and a promise chain per read was a
 * measurable share of its CPU.
 */
export type Cached<T> = T | Promise<T>;

/**
 * central-ledger as the flows see it: who is in the scheme and where their endpoints are. Its
 * implementation times every call at the upstream edge (the original's egress_validateParticipant and
 * egress_getParticipantEndpoint), so the flows measure nothing of it. A failure is always a rejected
 * promise, never a throw.
 */
export interface Directory {
  /** Undefined when central-ledger does not know the name; rejects with UpstreamError when it cannot be asked. */
  participant(name: string): Cached<Participant | undefined>;
  /** The URL template of a participant's endpoint of `type`, undefined when it has none; rejects with UpstreamError. */
  endpoint(name: string, type: string): Cached<string | undefined>;
  /** Every endpoint of a participant (type → URL template), not timed: only whether they can be read matters. */
  endpoints(name: string): Cached<ReadonlyMap<string, string>>;
}

/** The oracles: which one serves a party ID type, and its API (lookups, writes, batches). */
export interface Oracles {
  /**
   * The oracle URL for a party ID type, and for a currency when one is given (only lookups give one);
   * throws AlsError NO_ORACLE / NO_ORACLE_FOR_CURRENCY / NO_DEFAULT_ORACLE.
   */
  oracleFor(type: string, currency: string | undefined): Promise<string>;
  lookup(
    oracleUrl: string,
    party: PartyRef,
    currency: string | undefined,
    headers: OutboundHeaders,
  ): Promise<readonly PartyEntry[]>;
  /**
   * POST, PUT or DELETE one party at the oracle; drops its cached answer; answers the oracle's status
   * (2xx); throws UpstreamError for any other.
   */
  write(
    oracleUrl: string,
    method: 'POST' | 'PUT' | 'DELETE',
    party: PartyRef,
    body: string | undefined,
    headers: OutboundHeaders,
  ): Promise<number>;
  /** POST /participants (batch) at the oracle; answers the oracle's body. */
  batch(oracleUrl: string, body: string, headers: OutboundHeaders): Promise<Buffer>;
  /** Drops the cached oracle answer for a party: the next lookup must see a write. */
  forget(party: PartyRef): void;
}

/** Sending to FSPs and proxies: lookups, callbacks and the Hub's own answers. Timed at the upstream edge. */
export interface Egress {
  /** Resolves once the peer answered 2xx; throws UpstreamError otherwise. */
  send(request: OutboundRequest): Promise<void>;
}

/**
 * A send below the egress port (the HTTP client, and what wraps it: signing, the failure reporter). When
 * given, `settled` is told the result (true: answered 2xx) once, as the exchange completes, just before the
 * promise settles: the egress timer learns the end without a reaction and a promise of its own per send.
 * A send that throws instead of returning a promise need not call it.
 */
export type SettlingSend = (request: OutboundRequest, settled?: (ok: boolean) => void) => Promise<void>;

/** The bodies the Hub writes itself (compiled serialisers). */
export interface Codec {
  /**
   * An error callback's body; `cause`, the error it reports, gives the `cause` extension when the
   * deployment asks for one (ERROR_HANDLING.includeCauseExtension, fspiop/error-handling.ts).
   */
  error(information: ErrorInformation, cause?: unknown): string;
  /**
   * ISO 20022 mode only: a /parties error callback's body, an IdentificationVerificationReport from
   * `assigner` (the Hub) to `assignee` carrying the error's code.
   */
  partiesError?(information: ErrorInformation, assigner: string, assignee: string): string;
  fspId(fspId: string): string;
  /** The `{partyList:[...],currency}` answer of POST/PUT /participants/{Type}/{ID}. */
  partyList(body: ParticipantPartyList): string;
}

/** What the flows report themselves: the stages of a request, end-to-end time and outcomes. */
export interface FlowObserver {
  /**
   * A stage that started at `startedAt` (performance.now()) ended. Returns the end it read: the start of a
   * stage that follows at once, one clock read for both.
   */
  stage(stage: Stage, startedAt: number): number;
  /** A callback whose lookup the harness stamped at `startedAtMs` (epoch ms) arrived. */
  endToEnd(startedAtMs: number): void;
  event(event: DiscoveryEvent): void;
}

/**
 * Everything a flow needs from the outside, by role, passed in: the flows import no HTTP client, cache or
 * database. Configuration is plain values.
 */
export interface DiscoveryPorts {
  readonly hubName: string;
  readonly hubVersion: FspiopVersion;
  /** The API served: the media types of the Hub's messages to FSPs, the body of its /parties error callbacks. */
  readonly apiType: ApiType;
  readonly directory: Directory;
  readonly oracles: Oracles;
  readonly egress: Egress;
  readonly codec: Codec;
  readonly observe: FlowObserver;
  /**
   * Inter-scheme discovery (the original's PROXY_CACHE.enabled): the strategy the /parties flows follow when
   * it is on (inter-scheme.ts); absent, they stay in this scheme and do no proxy work at all.
   */
  readonly interScheme?: Scheme | undefined;
}

export interface PartyLookup {
  readonly party: PartyRef;
  readonly currency: string | undefined;
  /**
   * FSPIOP-Source: an active participant, or (inter-scheme discovery on) an FSP of another scheme whose
   * request came through the proxy named in FSPIOP-Proxy.
   */
  readonly source: string;
  /** Who gets the answers: the source, or the proxy it came through. Undefined: the source. */
  readonly requester?: string | undefined;
  /** FSPIOP-Proxy as received (inter-scheme discovery only). */
  readonly proxy?: string | undefined;
  readonly destination: string | undefined;
  /** The version the requester asked for in Accept; its error callback uses it. */
  readonly version: FspiopVersion;
  readonly headers: HeaderMap;
}

export interface PartyCallback {
  readonly resource: Resource;
  readonly party: PartyRef;
  readonly isError: boolean;
  readonly source: string;
  readonly destination: string | undefined;
  /** The version of the callback's Content-Type: an error back to its source uses it. */
  readonly version: FspiopVersion;
  readonly headers: HeaderMap;
  /** The body exactly as received: forwarded as these bytes, never re-serialised (a signature covers them). */
  readonly body: Buffer;
  /** FSPIOP-Proxy as received (inter-scheme discovery only). */
  readonly proxy?: string | undefined;
}

/** What an error callback carries: a catalogue error of ours, or an error another service answered. */
export interface CallbackError {
  information(): ErrorInformation;
}

/** Sends the request's one error callback; resolves to how that ended. */
export type Fail = (error: CallbackError) => Promise<FlowOutcome>;

/**
 * Where the /parties flows (parties.ts) differ between a lookup that stays in this scheme and inter-scheme
 * discovery (inter-scheme.ts): the one flow asks its scheme at each of these points. `requester` is whom
 * the lookup's answers go to (its source, or the proxy it came through).
 */
/**
 * Whom a callback's error goes to: a name, or how to find it when an error is sent (the original asks
 * central-ledger about the callback's source only then, in handleError).
 */
export type ErrorRecipient = string | (() => Promise<string>);

export interface Scheme {
  /** Before the lookup: refused, or undefined to go on (a source of another scheme: its proxy remembered). */
  admitLookup(ports: DiscoveryPorts, request: PartyLookup, requester: string): Cached<CallbackError | undefined>;
  /** FSPIOP-Destination names an FSP of this scheme: refused, or undefined to send it the lookup. */
  checkLocalDestination(
    ports: DiscoveryPorts,
    request: PartyLookup,
    requester: string,
    destination: string,
  ): Promise<CallbackError | undefined>;
  /** The proxy an FSP that is not in this scheme sits behind, when one is known. */
  proxyOf(fsp: string): Promise<string | undefined>;
  /** Sends the lookup to one FSP of the oracle's answer: sent, skipped, or the error the requester would get. */
  toOracleFsp(
    ports: DiscoveryPorts,
    request: PartyLookup,
    requester: string,
    fsp: string,
  ): Promise<'sent' | 'skipped' | CallbackError>;
  /** The party is not in this scheme: `error` is this scheme's answer for it. */
  notFound(ports: DiscoveryPorts, request: PartyLookup, error: AlsError, fail: Fail): Promise<FlowOutcome>;
  /** No FSP of the oracle's answer was sent the lookup; `outcomes` says why, one per FSP. */
  noneReached(
    ports: DiscoveryPorts,
    request: PartyLookup,
    outcomes: readonly ('skipped' | CallbackError)[],
    fail: Fail,
  ): Promise<FlowOutcome>;
  /**
   * A PUT /parties callback before its destination is resolved: `forward` to go on, dropped (counted) when
   * nothing is to be sent, or the error for its source. `answerTo` redirects the error callback (to the proxy
   * a source of another scheme came through).
   */
  admitCallback(
    ports: DiscoveryPorts,
    callback: PartyCallback,
    answerTo: (name: ErrorRecipient) => void,
  ): Cached<'forward' | Dropped | CallbackError>;
  /** Where a message for an FSP goes: itself when central-ledger knows it, else the proxy it sits behind. */
  sendTo(ports: DiscoveryPorts, fsp: string): Cached<string | undefined>;
  /**
   * central-ledger failed while a /parties callback was resolved: true when the lookup's requester (the
   * callback's destination) is told too, not only the callback's source.
   */
  readonly tellsRequesterOfSwitchFailure: boolean;
}

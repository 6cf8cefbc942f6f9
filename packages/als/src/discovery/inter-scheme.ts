import { AlsError } from '../fspiop/errors.js';
import { type CallbackError, errorTarget, oracleError, sendErrorCallback } from './failures.js';
import { forwardLookup } from './forward.js';
import { forwardHeaders, oracleHeaders } from './headers.js';
import { askOracle, dropOracleEntry } from './oracles.js';
import { type Dropped, drop, type FlowOutcome, SENT } from './outcome.js';
import { type AlsRequest, type ProxyCache, parseAlsKey } from './proxy-cache.js';
import type {
  DiscoveryPorts,
  ErrorRecipient,
  Fail,
  HeaderMap,
  PartyCallback,
  PartyLookup,
  ProxyPorts,
  Scheme,
} from './types.js';

/**
 * Inter-scheme discovery, as the original's v17 services do it (src/domain/parties/services/
 * GetPartiesService.js, PutPartiesService.js, PutPartiesErrorService.js, TimeoutPartiesService.js): a party
 * the oracle does not place in this scheme is looked for behind the scheme's proxies; the first proxy that
 * finds it is remembered; the oracle learns or forgets parties of other schemes as their answers come.
 * A Scheme the /parties flows of parties.ts follow when the proxy cache is on (ports.interScheme).
 */

const alsRequest = (sourceId: string, party: { type: string; id: string }): AlsRequest => ({
  sourceId,
  type: party.type,
  partyId: party.id,
});

/**
 * Whether central-ledger knows the FSP, active or not: the original's validateParticipant only fetches it
 * (src/models/participantEndpoint/facade.js), so an inactive FSP is still in the scheme.
 */
async function isKnown(ports: DiscoveryPorts, name: string): Promise<boolean> {
  return (await ports.directory.participant(name)) !== undefined;
}

/**
 * Where a message for an FSP goes: the FSP itself when it is in this scheme, else the proxy remembered for
 * it (BasePartiesService.identifyDestinationForCallback). Undefined: neither.
 */
export async function sendToFor(ports: DiscoveryPorts, proxy: ProxyPorts, fsp: string): Promise<string | undefined> {
  if (await isKnown(ports, fsp)) return fsp;
  return (await proxy.cache.lookupProxyByDfspId(fsp)) ?? undefined;
}

/** The inter-scheme discovery strategy over the proxy cache and the scheme's proxies. */
export function acrossSchemes(proxy: ProxyPorts): Scheme {
  const { cache } = proxy;
  return {
    async admitLookup(_ports, request, requester) {
      // A source of another scheme: remember which proxy it sits behind, so answers find their way back
      // (GetPartiesService.validateRequester).
      if (requester === request.source || (await cache.addDfspIdToProxyMapping(request.source, requester))) {
        return undefined;
      }
      return new AlsError('PROXY_MAPPING_FAILED');
    },

    async checkLocalDestination(ports, request, requester, destination) {
      // A request from another scheme for a local FSP: only when the oracle places the party there
      // (OSS-4203, #validateLocalDestinationForExternalSource).
      if (requester === request.source) return undefined;
      const entries = await askOracle(ports, request);
      if (!Array.isArray(entries)) return entries as CallbackError;
      return entries.some((e) => e.fspId === destination) ? undefined : new AlsError('EXTERNAL_PARTY_ERROR');
    },

    async proxyOf(fsp) {
      return (await cache.lookupProxyByDfspId(fsp)) ?? undefined;
    },

    /**
     * One FSP of the oracle's answer (#processSingleOracleParty): in the scheme, it gets the GET; behind a
     * known proxy and asked by a local source, the proxy gets it; of another scheme with no known proxy, the
     * oracle's entry is dropped.
     */
    async toOracleFsp(ports, request, requester, fsp) {
      if (await isKnown(ports, fsp)) return (await forwardLookup(ports, request, fsp)) ?? 'sent';
      const behind = await cache.lookupProxyByDfspId(fsp);
      if (behind === null) {
        // The original logs a failed clean-up and goes on to ask the proxies.
        await dropOracleEntry(ports, request);
        return 'skipped';
      }
      if (requester !== request.source) return 'skipped';
      return (await forwardLookup(ports, request, behind, fsp)) ?? 'sent';
    },

    notFound: (ports, request, _error, fail) => fanOutToProxies(ports, proxy, request, fail),

    noneReached(ports, request, outcomes, fail) {
      const failed = outcomes.find((o) => o instanceof AlsError);
      return failed instanceof AlsError ? fail(failed) : fanOutToProxies(ports, proxy, request, fail);
    },

    admitCallback: (ports, callback, answerTo) =>
      callback.isError
        ? admitProxyError(ports, cache, callback, answerTo)
        : admitSuccess(ports, cache, callback, answerTo),

    sendTo: (ports, fsp) => sendToFor(ports, proxy, fsp),

    // As the original's PutPartiesService: only the callback's source hears a central-ledger failure.
    tellsRequesterOfSwitchFailure: false,
  };
}

/**
 * A PUT /parties success across schemes (PutPartiesService): a source of another scheme needs the proxy it
 * came through (remembered); the first proxy that found the party of a lookup teaches the oracle where the
 * party lives, a later one is dropped.
 */
async function admitSuccess(
  ports: DiscoveryPorts,
  cache: ProxyCache,
  callback: PartyCallback,
  answerTo: (name: ErrorRecipient) => void,
): Promise<'forward' | Dropped | CallbackError> {
  const viaProxy = callback.proxy;
  const { destination, party } = callback;
  // PutPartiesService.validateSourceParticipant: a source of another scheme needs its proxy.
  if (!(await isKnown(ports, callback.source))) {
    if (viaProxy === undefined) return drop(ports, 'unknown_source');
    answerTo(viaProxy);
    if (!(await cache.addDfspIdToProxyMapping(callback.source, viaProxy))) return new AlsError('PROXY_MAPPING_FAILED');
  }
  if (viaProxy === undefined || destination === undefined) return 'forward';
  const req = alsRequest(destination, party);
  const success = await cache.receivedSuccessResponse(req, viaProxy);
  // Another proxy found the party first and the requester has its answer: one callback per lookup.
  if (success === 'late') return drop(ports, 'proxy_success_dropped');
  if (success !== 'first') {
    await cache.removeProxyGetPartiesTimeout(req, viaProxy);
    return 'forward';
  }
  // The first proxy that found the party: the oracle learns where the party lives.
  if (await isKnown(ports, destination)) {
    try {
      const oracle = await ports.oracles.oracleFor(party.type, undefined);
      const headers = oracleHeaders(callback.headers, callback.source, ports.hubName, 'POST');
      await ports.oracles.write(oracle, 'POST', party, ports.codec.fspId(callback.source), headers);
    } catch (error) {
      return oracleError(error, false);
    }
  }
  return 'forward';
}

/**
 * A PUT /parties/…/error across schemes (PutPartiesErrorService): one proxy's error in an inter-scheme lookup
 * is passed on only when it was the last one awaited and none found the party; an error about a party the
 * oracle placed in another scheme makes the oracle forget it.
 */
async function admitProxyError(
  ports: DiscoveryPorts,
  cache: ProxyCache,
  callback: PartyCallback,
  answerTo: (name: ErrorRecipient) => void,
): Promise<'forward' | Dropped | CallbackError> {
  const viaProxy = callback.proxy;
  const { destination, party } = callback;
  if (viaProxy === undefined || destination === undefined) return 'forward';
  // Asked only when an error is sent, as the original's handleError does; one central-ledger cannot tell about
  // is sent through the proxy (its validateParticipant counts a failed call as not known).
  answerTo(async () => ((await isKnown(ports, callback.source).catch(() => false)) ? callback.source : viaProxy));
  const req = alsRequest(destination, party);
  if (await cache.isPendingCallback(req, viaProxy)) {
    // PutPartiesErrorService.checkLastProxyCallback.
    if (await cache.receivedErrorResponse(req, viaProxy)) return 'forward';
    return drop(ports, 'proxy_error_dropped');
  }
  if (await isPartyOfOtherScheme(ports, callback)) {
    // The party is not there: forget it (cleanupOracle, with source and destination swapped).
    try {
      const oracle = await ports.oracles.oracleFor(party.type, undefined);
      const headers = forwardHeaders(callback.headers, destination, callback.source, 'DELETE');
      await ports.oracles.write(oracle, 'DELETE', party, undefined, headers);
    } catch (error) {
      return oracleError(error, false);
    }
    await cache.removeProxyGetPartiesTimeout(req, viaProxy);
  }
  return 'forward';
}

/**
 * Asks every active proxy but the one the request came through (triggerInterSchemeDiscoveryFlow): the
 * lookup is recorded with its expiry first, so the answers and the timeout handler can find it.
 */
async function fanOutToProxies(
  ports: DiscoveryPorts,
  proxy: ProxyPorts,
  request: PartyLookup,
  fail: Fail,
): Promise<FlowOutcome> {
  const names = (await proxy.proxyNames()).filter((name) => name !== request.proxy);
  if (names.length === 0) return fail(new AlsError('PARTY_NOT_FOUND'));
  const req = alsRequest(request.source, request.party);
  if (!(await proxy.cache.setSendToProxiesList(req, names, proxy.expiresInSec))) {
    return fail(new AlsError('PROXY_LIST_NOT_CACHED'));
  }
  const withoutDestination: PartyLookup = { ...request, destination: undefined };
  let sent = 0;
  let wasLast = false;
  await Promise.all(
    names.map(async (name) => {
      const failure = await forwardLookup(ports, withoutDestination, name, null);
      if (failure === undefined) {
        sent++;
        return;
      }
      // A proxy that cannot be reached counts as its error answer.
      try {
        if (await proxy.cache.receivedErrorResponse(req, name)) wasLast = true;
      } catch {
        // The timeout handler answers the lookup when its expiry passes.
      }
    }),
  );
  if (sent === 0) return fail(new AlsError('PROXY_CONNECTION_ERROR'));
  if (wasLast) return fail(new AlsError('NO_SUCCESSFUL_PROXY_RESPONSES'));
  return SENT;
}

/** #isPartyFromExternalDfsp: the oracle's first entry for the party is no FSP of this scheme. */
async function isPartyOfOtherScheme(ports: DiscoveryPorts, callback: PartyCallback): Promise<boolean> {
  try {
    const oracle = await ports.oracles.oracleFor(callback.party.type, undefined);
    const headers = oracleHeaders(callback.headers, callback.source, ports.hubName, 'GET');
    const [first] = await ports.oracles.lookup(oracle, callback.party, undefined, headers);
    return first !== undefined && !(await isKnown(ports, first.fspId));
  } catch {
    return false;
  }
}

/**
 * The timeout handler's answer to one expired inter-scheme lookup (TimeoutPartiesService.handleExpiredKey):
 * 3300 from the Hub to the FSP that asked, or to the proxy it sits behind. Throws when neither is known
 * (the original's identifyDestinationForCallback), so nothing is sent.
 */
export async function answerExpiredLookup(ports: DiscoveryPorts, proxy: ProxyPorts, key: string): Promise<void> {
  const { sourceId, type, partyId } = parseAlsKey(key);
  const sendTo = await sendToFor(ports, proxy, sourceId);
  if (sendTo === undefined) throw new AlsError('CALLBACK_DESTINATION_UNKNOWN', { destination: sourceId });
  const headers: HeaderMap = { date: new Date().toUTCString() };
  const lookup = { party: { type, id: partyId }, source: sourceId, version: ports.hubVersion, headers };
  // As the original's timeout handler: a trace of its own (no request's to continue), no path named.
  await sendErrorCallback(
    ports,
    errorTarget('parties', lookup, { via: sendTo, traced: true, unnamed: true }),
    new AlsError('LOOKUP_EXPIRED'),
  );
  ports.observe.event('lookup_expired');
}

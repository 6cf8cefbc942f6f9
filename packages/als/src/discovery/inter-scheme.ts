import { AlsError } from '../fspiop/errors.js';
import { partyIdProblem } from '../fspiop/party-id.js';
import { callbackEndpoint, fillTemplate } from './endpoints.js';
import { asAlsError, type CallbackError, oracleError, sendErrorCallback } from './failures.js';
import { forwardLookup, sendCallback } from './forward.js';
import { endToEndStart, forwardHeaders, oracleHeaders } from './headers.js';
import { selectParties } from './oracles.js';
import type { PartyCallback, PartyLookup } from './parties.js';
import type { AlsRequest } from './proxy-cache.js';
import type { DiscoveryPorts, HeaderMap, PartyEntry, ProxyPorts } from './types.js';

/**
 * Inter-scheme discovery, as the original's v17 services do it (src/domain/parties/services/
 * GetPartiesService.js, PutPartiesService.js, PutPartiesErrorService.js, TimeoutPartiesService.js): a party
 * the oracle does not place in this scheme is looked for behind the scheme's proxies; the first proxy that
 * finds it is remembered; the oracle learns or forgets parties of other schemes as their answers come.
 * Only used when the proxy cache is on (ports.proxy).
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
async function isActive(ports: DiscoveryPorts, name: string): Promise<boolean> {
  return (await ports.participant(name)) !== undefined;
}

/**
 * Where a message for an FSP goes: the FSP itself when it is in this scheme, else the proxy remembered for
 * it (BasePartiesService.identifyDestinationForCallback). Undefined: neither.
 */
export async function sendToFor(ports: DiscoveryPorts, proxy: ProxyPorts, fsp: string): Promise<string | undefined> {
  if (await isActive(ports, fsp)) return fsp;
  return (await proxy.cache.lookupProxyByDfspId(fsp)) ?? undefined;
}

/** GET /parties after the 202 with inter-scheme discovery on. */
export async function lookUpPartyAcrossSchemes(
  ports: DiscoveryPorts,
  proxy: ProxyPorts,
  request: PartyLookup,
): Promise<void> {
  const { party } = request;
  const requester = request.requester ?? request.source;
  const fail = (error: CallbackError) =>
    sendErrorCallback(
      ports,
      {
        resource: 'parties',
        party,
        requester,
        destination: request.source,
        version: request.version,
        headers: request.headers,
        traced: true,
      },
      error,
    );

  const problem = partyIdProblem(party.type, party.id, party.subId);
  if (problem !== undefined) return fail(new AlsError('INVALID_PARTY_ID', { reason: problem }));

  try {
    // A source of another scheme: remember which proxy it sits behind, so answers find their way back
    // (GetPartiesService.validateRequester).
    if (requester !== request.source) {
      if (!(await proxy.cache.addDfspIdToProxyMapping(request.source, requester))) {
        return fail(new AlsError('PROXY_MAPPING_FAILED'));
      }
    }

    const destination = request.destination;
    if (destination !== undefined && destination !== ports.hubName) {
      return await forwardToDestination(ports, proxy, request, requester, destination, fail);
    }

    let entries: readonly PartyEntry[];
    try {
      const oracle = await ports.oracleFor(party.type, request.currency);
      entries = await ports.oracleLookup(
        oracle,
        party,
        request.currency,
        oracleHeaders(request.headers, request.source, ports.hubName, 'GET'),
      );
    } catch (error) {
      return fail(oracleError(error, true));
    }
    if (entries.length > 0) {
      const fsps = selectParties(entries, party.subId);
      if (fsps.length === 0) return fail(new AlsError('FILTERED_PARTY_LIST_EMPTY'));
      const outcomes = await Promise.all(fsps.map((fsp) => forwardToOracleFsp(ports, proxy, request, requester, fsp)));
      if (outcomes.some((o) => o === 'sent')) return;
      const failed = outcomes.find((o) => o instanceof AlsError);
      if (failed instanceof AlsError) return fail(failed);
    }
    return await fanOutToProxies(ports, proxy, request, fail);
  } catch (error) {
    // A failed proxy cache or central-ledger call: the requester hears it (BasePartiesService.handleError).
    return fail(asAlsError(error, 'SWITCH_FAILED'));
  }
}

/** A GET with FSPIOP-Destination (GetPartiesService.forwardRequestToDestination). */
async function forwardToDestination(
  ports: DiscoveryPorts,
  proxy: ProxyPorts,
  request: PartyLookup,
  requester: string,
  destination: string,
  fail: (error: CallbackError) => Promise<void>,
): Promise<void> {
  if (await isActive(ports, destination)) {
    // A request from another scheme for a local FSP: only when the oracle places the party there
    // (OSS-4203, #validateLocalDestinationForExternalSource).
    if (requester !== request.source) {
      let entries: readonly PartyEntry[];
      try {
        const oracle = await ports.oracleFor(request.party.type, request.currency);
        const headers = oracleHeaders(request.headers, request.source, ports.hubName, 'GET');
        entries = await ports.oracleLookup(oracle, request.party, request.currency, headers);
      } catch (error) {
        return fail(oracleError(error, true));
      }
      if (!entries.some((e) => e.fspId === destination)) return fail(new AlsError('EXTERNAL_PARTY_ERROR'));
    }
    const failure = await forwardLookup(ports, request, destination);
    return failure === undefined ? undefined : fail(failure);
  }
  const behind = await proxy.cache.lookupProxyByDfspId(destination);
  if (behind !== null) {
    const failure = await forwardLookup(ports, request, behind, destination);
    return failure === undefined ? undefined : fail(failure);
  }
  // Neither here nor behind a known proxy: the oracle's entry is stale; drop it and ask the proxies.
  try {
    const oracle = await ports.oracleFor(request.party.type, undefined);
    const headers = oracleHeaders(request.headers, request.source, ports.hubName, 'DELETE');
    await ports.oracleWrite(oracle, 'DELETE', request.party, undefined, headers);
  } catch (error) {
    return fail(oracleError(error, false));
  }
  return fanOutToProxies(ports, proxy, request, fail);
}

/**
 * One FSP of the oracle's answer (#processSingleOracleParty): in the scheme, it gets the GET; behind a
 * known proxy and asked by a local source, the proxy gets it; of another scheme with no known proxy, the
 * oracle's entry is dropped.
 */
async function forwardToOracleFsp(
  ports: DiscoveryPorts,
  proxy: ProxyPorts,
  request: PartyLookup,
  requester: string,
  fsp: string,
): Promise<'sent' | 'skipped' | CallbackError> {
  if (await isActive(ports, fsp)) {
    const failure = await forwardLookup(ports, request, fsp);
    return failure ?? 'sent';
  }
  const behind = await proxy.cache.lookupProxyByDfspId(fsp);
  if (behind === null) {
    try {
      const oracle = await ports.oracleFor(request.party.type, undefined);
      const headers = oracleHeaders(request.headers, request.source, ports.hubName, 'DELETE');
      await ports.oracleWrite(oracle, 'DELETE', request.party, undefined, headers);
    } catch {
      // The original logs a failed clean-up and goes on to ask the proxies.
    }
    return 'skipped';
  }
  if (requester !== request.source) return 'skipped';
  const failure = await forwardLookup(ports, request, behind, fsp);
  return failure ?? 'sent';
}

/**
 * Asks every active proxy but the one the request came through (triggerInterSchemeDiscoveryFlow): the
 * lookup is recorded with its expiry first, so the answers and the timeout handler can find it.
 */
async function fanOutToProxies(
  ports: DiscoveryPorts,
  proxy: ProxyPorts,
  request: PartyLookup,
  fail: (error: CallbackError) => Promise<void>,
): Promise<void> {
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
}

/** PUT /parties/… and PUT /parties/…/error with inter-scheme discovery on. */
export async function forwardPartyCallbackAcrossSchemes(
  ports: DiscoveryPorts,
  proxy: ProxyPorts,
  callback: PartyCallback,
): Promise<void> {
  const { party } = callback;
  const e2eStart = endToEndStart(callback.headers.tracestate);
  if (e2eStart !== undefined) ports.endToEnd(e2eStart);
  const viaProxy = callback.proxy;
  let errorTo = callback.source;
  const fail = (error: CallbackError) =>
    sendErrorCallback(
      ports,
      {
        resource: 'parties',
        party,
        requester: errorTo,
        destination: callback.source,
        version: callback.version,
        headers: callback.headers,
        traced: callback.isError,
      },
      error,
    );

  const problem = partyIdProblem(party.type, party.id, party.subId);
  if (problem !== undefined) return fail(new AlsError('INVALID_PARTY_ID', { reason: problem }));
  const destination = callback.destination;

  try {
    if (!callback.isError) {
      // PutPartiesService.validateSourceParticipant: a source of another scheme needs its proxy.
      if (!(await isActive(ports, callback.source))) {
        if (viaProxy === undefined) {
          ports.count('unknown_source');
          return;
        }
        errorTo = viaProxy;
        if (!(await proxy.cache.addDfspIdToProxyMapping(callback.source, viaProxy))) {
          return fail(new AlsError('PROXY_MAPPING_FAILED'));
        }
      }
      if (viaProxy !== undefined && destination !== undefined) {
        const req = alsRequest(destination, party);
        const success = await proxy.cache.receivedSuccessResponse(req, viaProxy);
        // Another proxy found the party first and the requester has its answer: one callback per lookup.
        if (success === 'late') return ports.count('proxy_success_dropped');
        if (success === 'first') {
          // The first proxy that found the party: the oracle learns where the party lives.
          if (await isActive(ports, destination)) {
            try {
              const oracle = await ports.oracleFor(party.type, undefined);
              const headers = oracleHeaders(callback.headers, callback.source, ports.hubName, 'POST');
              await ports.oracleWrite(oracle, 'POST', party, ports.serialiseFspId(callback.source), headers);
            } catch (error) {
              return fail(oracleError(error, false));
            }
          }
        } else {
          await proxy.cache.removeProxyGetPartiesTimeout(req, viaProxy);
        }
      }
    } else if (viaProxy !== undefined && destination !== undefined) {
      errorTo = (await isActive(ports, callback.source)) ? callback.source : viaProxy;
      const req = alsRequest(destination, party);
      if (await proxy.cache.isPendingCallback(req, viaProxy)) {
        // One proxy's error in an inter-scheme lookup: passed on only when it was the last one awaited
        // and none found the party (PutPartiesErrorService.checkLastProxyCallback).
        if (!(await proxy.cache.receivedErrorResponse(req, viaProxy))) {
          ports.count('proxy_error_dropped');
          return;
        }
      } else if (await isPartyOfOtherScheme(ports, callback)) {
        // The party the oracle placed in another scheme is not there: forget it (cleanupOracle, with
        // source and destination swapped).
        try {
          const oracle = await ports.oracleFor(party.type, undefined);
          const headers = forwardHeaders(callback.headers, destination, callback.source, 'DELETE');
          await ports.oracleWrite(oracle, 'DELETE', party, undefined, headers);
        } catch (error) {
          return fail(oracleError(error, false));
        }
        await proxy.cache.removeProxyGetPartiesTimeout(req, viaProxy);
      }
    }

    if (destination === undefined) {
      return fail(new AlsError('CALLBACK_DESTINATION_UNKNOWN', { destination: '(none)' }));
    }
    const sendTo = await sendToFor(ports, proxy, destination);
    if (sendTo === undefined) return fail(new AlsError('CALLBACK_DESTINATION_UNKNOWN', { destination }));
    return await forwardPut(ports, callback, sendTo, destination, fail);
  } catch (error) {
    return fail(asAlsError(error, 'SWITCH_FAILED'));
  }
}

/** #isPartyFromExternalDfsp: the oracle's first entry for the party is no FSP of this scheme. */
async function isPartyOfOtherScheme(ports: DiscoveryPorts, callback: PartyCallback): Promise<boolean> {
  try {
    const oracle = await ports.oracleFor(callback.party.type, undefined);
    const headers = oracleHeaders(callback.headers, callback.source, ports.hubName, 'GET');
    const [first] = await ports.oracleLookup(oracle, callback.party, undefined, headers);
    return first !== undefined && !(await isActive(ports, first.fspId));
  } catch {
    return false;
  }
}

async function forwardPut(
  ports: DiscoveryPorts,
  callback: PartyCallback,
  sendTo: string,
  destination: string,
  fail: (error: CallbackError) => Promise<void>,
): Promise<void> {
  const { party } = callback;
  const endpointType = callbackEndpoint('parties', party.subId !== undefined, callback.isError);
  const started = performance.now();
  let template: string | undefined;
  try {
    template = (await ports.endpoints(sendTo)).get(endpointType);
  } finally {
    ports.egress('getParticipantEndpoint', endpointType, sendTo, template !== undefined, started);
  }
  if (!template) return fail(new AlsError('NO_ENDPOINT', { destination: sendTo, endpoint: endpointType }));
  const url = fillTemplate(template, {
    partyIdType: party.type,
    partyIdentifier: party.id,
    partySubIdOrType: party.subId,
  });
  await sendCallback(ports, callback, url, endpointType, sendTo, destination, fail);
}

/**
 * The timeout handler's answer to one expired inter-scheme lookup (TimeoutPartiesService.handleExpiredKey):
 * 3300 from the Hub to the FSP that asked, or to the proxy it sits behind. Throws when neither is known
 * (the original's identifyDestinationForCallback), so nothing is sent.
 */
export async function answerExpiredLookup(ports: DiscoveryPorts, proxy: ProxyPorts, key: string): Promise<void> {
  const [sourceId = '', type = '', partyId = ''] = key.split(':').slice(-3);
  const sendTo = await sendToFor(ports, proxy, sourceId);
  if (sendTo === undefined) throw new AlsError('CALLBACK_DESTINATION_UNKNOWN', { destination: sourceId });
  const headers: HeaderMap = { date: new Date().toUTCString() };
  await sendErrorCallback(
    ports,
    {
      resource: 'parties',
      party: { type, id: partyId },
      requester: sendTo,
      destination: sourceId,
      version: ports.hubVersion,
      headers,
    },
    new AlsError('LOOKUP_EXPIRED'),
  );
  ports.count('lookup_expired');
}

import { AlsError } from '../fspiop/errors.js';
import { partyIdProblem } from '../fspiop/party-id.js';
import type { FspiopVersion } from '../fspiop/versions.js';
import { callbackEndpoint, fillTemplate, type Resource } from './endpoints.js';
import { asAlsError, type CallbackError, oracleError, sendErrorCallback } from './failures.js';
import { forwardLookup, sendCallback } from './forward.js';
import { endToEndStart, oracleHeaders } from './headers.js';
import { forwardPartyCallbackAcrossSchemes, lookUpPartyAcrossSchemes } from './inter-scheme.js';
import { selectParties } from './oracles.js';
import { type DiscoveryPorts, type HeaderMap, type PartyRef, UpstreamError } from './types.js';

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

export { selectParties } from './oracles.js';

/**
 * GET /parties after the 202 (reference: steps 3-6): validate the ID, find the FSPs (FSPIOP-Destination
 * or the oracle), send each the GET. Exactly one error callback to the requester when the lookup fails.
 */
export async function lookUpParty(ports: DiscoveryPorts, request: PartyLookup): Promise<void> {
  // Inter-scheme discovery is its own flow: with it off a lookup pays one property check for it.
  if (ports.proxy !== undefined) return lookUpPartyAcrossSchemes(ports, ports.proxy, request);
  const { party } = request;
  const fail = (error: CallbackError) =>
    sendErrorCallback(
      ports,
      {
        resource: 'parties',
        party,
        requester: request.source,
        version: request.version,
        headers: request.headers,
        traced: true,
      },
      error,
    );

  const problem = partyIdProblem(party.type, party.id, party.subId);
  if (problem !== undefined) return fail(new AlsError('INVALID_PARTY_ID', { reason: problem }));

  let fsps: string[];
  if (request.destination !== undefined && request.destination !== ports.hubName) {
    const failure = await checkDestination(ports, request, request.destination);
    if (failure !== undefined) return fail(failure);
    fsps = [request.destination];
  } else {
    const started = performance.now();
    try {
      const oracle = await ports.oracleFor(party.type, request.currency);
      const headers = oracleHeaders(request.headers, request.source, ports.hubName, 'GET');
      const entries = await ports.oracleLookup(oracle, party, request.currency, headers);
      if (entries.length === 0) return fail(new AlsError('PARTY_NOT_FOUND'));
      fsps = selectParties(entries, party.subId);
    } catch (error) {
      return fail(oracleError(error, true));
    } finally {
      ports.observe('oracle', started);
    }
    if (fsps.length === 0) return fail(new AlsError('FILTERED_PARTY_LIST_EMPTY'));
  }

  // One FSP (every lookup whose party the oracle holds once): no fan-out to gather.
  if (fsps.length === 1) {
    const failure = await forwardLookup(ports, request, fsps[0] as string);
    return failure === undefined ? undefined : fail(failure);
  }
  const outcomes = await Promise.all(fsps.map((fsp) => forwardLookup(ports, request, fsp)));
  const reached = outcomes.filter((o) => o === undefined).length;
  if (reached > 0) return;
  // Every FSP failed: the payer hears about the first reason, once.
  const first = outcomes.find((o) => o !== undefined) as CallbackError;
  return fail(first);
}

/**
 * A GET /parties with an FSPIOP-Destination that is no active participant: the original's
 * forwardRequestToDestination (src/domain/parties/services/GetPartiesService.js) drops the stale entry at
 * the oracle (DELETE), then answers 3204 (without proxies, no inter-scheme discovery); a failed DELETE is
 * the error the requester gets instead. Undefined: the destination is active.
 */
async function checkDestination(
  ports: DiscoveryPorts,
  request: PartyLookup,
  destination: string,
): Promise<CallbackError | undefined> {
  const started = performance.now();
  try {
    const participant = await ports.participant(destination);
    ports.egress('validateParticipant', '', '', participant !== undefined, started);
    // An inactive destination is still forwarded to (the original's validateParticipant only fetches it),
    // and its party's oracle entry is kept.
    if (participant !== undefined) return undefined;
  } catch (error) {
    ports.egress('validateParticipant', '', '', false, started);
    ports.observe('endpoint', started);
    return asAlsError(error, 'SWITCH_FAILED');
  }
  ports.observe('endpoint', started);
  const oracleStarted = performance.now();
  try {
    const oracle = await ports.oracleFor(request.party.type, undefined);
    const headers = oracleHeaders(request.headers, request.source, ports.hubName, 'DELETE');
    await ports.oracleWrite(oracle, 'DELETE', request.party, undefined, headers);
  } catch (error) {
    return oracleError(error, false);
  } finally {
    ports.observe('oracle', oracleStarted);
  }
  return new AlsError('DESTINATION_NOT_FOUND', { destination });
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
  /** The body exactly as received: forwarded as these bytes, never re-serialised (no parse and stringify per callback, and the payee's signature stays valid). */
  readonly body: Buffer;
  /** FSPIOP-Proxy as received (inter-scheme discovery only). */
  readonly proxy?: string | undefined;
}

/**
 * PUT /parties|/participants/{Type}/{ID}[/{SubId}][/error] after the 200: forward the callback to the
 * destination's endpoint. Unknown source: nobody to tell, counted. Unknown destination or a failed
 * forward: one error callback to the source.
 */
export async function forwardCallback(ports: DiscoveryPorts, callback: PartyCallback): Promise<void> {
  if (ports.proxy !== undefined && callback.resource === 'parties') {
    return forwardPartyCallbackAcrossSchemes(ports, ports.proxy, callback);
  }
  const { party } = callback;
  const e2eStart = endToEndStart(callback.headers.tracestate);
  if (e2eStart !== undefined) ports.endToEnd(e2eStart);
  if (callback.resource === 'participants') ports.forgetParty(party);

  const fail = (error: CallbackError) =>
    sendErrorCallback(
      ports,
      {
        resource: callback.resource,
        party,
        requester: callback.source,
        version: callback.version,
        headers: callback.headers,
        traced: callback.isError && callback.resource === 'parties',
      },
      error,
    );

  // The original validates the path of a callback too (src/domain/parties/putParties.js), answering its
  // source.
  const problem = partyIdProblem(party.type, party.id, party.subId);
  if (problem !== undefined) return fail(new AlsError('INVALID_PARTY_ID', { reason: problem }));

  const destinationName = callback.destination;
  const endpointType = callbackEndpoint(callback.resource, party.subId !== undefined, callback.isError);
  let url: string;
  const started = performance.now();
  // The original's egress timers (src/models/participantEndpoint/facade.js): validateParticipant per
  // participant checked, getParticipantEndpoint around the endpoint look-up; success false when it threw.
  let resolving = false;
  let stepStarted = started;
  try {
    // As the original: a success callback's source must be known (else nobody can be told, counted), then its
    // destination; an error callback's source is not checked (PutPartiesErrorService,
    // putParticipantsErrorByTypeAndID), only its destination.
    if (!callback.isError) {
      const source = await ports.participant(callback.source);
      ports.egress('validateParticipant', '', '', source !== undefined, started);
      if (source === undefined) {
        ports.count('unknown_source');
        return;
      }
    }
    const destinationStarted = performance.now();
    const destination = destinationName === undefined ? undefined : await ports.participant(destinationName);
    if (destinationName !== undefined)
      ports.egress('validateParticipant', '', '', destination !== undefined, destinationStarted);
    if (destinationName === undefined || destination === undefined) {
      // The original's words differ by resource: /parties names what is missing, /participants does not.
      return fail(
        new AlsError(callback.resource === 'parties' ? 'CALLBACK_DESTINATION_UNKNOWN' : 'DESTINATION_FSP_ERROR', {
          destination: destinationName ?? '(none)',
        }),
      );
    }
    resolving = true;
    stepStarted = performance.now();
    const template = (await ports.endpoints(destinationName)).get(endpointType);
    resolving = false;
    ports.egress('getParticipantEndpoint', endpointType, destinationName, template !== undefined, stepStarted);
    if (!template) return fail(new AlsError('NO_ENDPOINT', { destination: destinationName, endpoint: endpointType }));
    url = fillTemplate(template, { partyIdType: party.type, partyIdentifier: party.id, partySubIdOrType: party.subId });
  } catch (error) {
    if (resolving) ports.egress('getParticipantEndpoint', endpointType, destinationName ?? '', false, stepStarted);
    else ports.egress('validateParticipant', '', '', false, started);
    const failure = asAlsError(error, 'SWITCH_FAILED');
    // central-ledger could not be asked about the source or the destination. The original answers only the
    // PUT's source, so the requester of the lookup never hears how it ended (a silent loss). The requester
    // (this callback's destination) is told too, with the same error, when its endpoints can be found.
    if (error instanceof UpstreamError && destinationName !== undefined && callback.resource === 'parties') {
      await Promise.all([
        fail(failure),
        sendErrorCallback(
          ports,
          {
            resource: 'parties',
            party,
            requester: destinationName,
            version: callback.version,
            headers: callback.headers,
          },
          failure,
        ),
      ]);
      return;
    }
    return fail(failure);
  } finally {
    ports.observe('endpoint', started);
  }

  await sendCallback(ports, callback, url, endpointType, destinationName, destinationName, fail);
}

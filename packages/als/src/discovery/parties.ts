import { AlsError } from '../fspiop/errors.js';
import { partyIdProblem } from '../fspiop/party-id.js';
import { whenRead } from './cached.js';
import { callbackEndpoint, fillTemplate } from './endpoints.js';
import { asAlsError, type CallbackError, errorTarget, sendErrorCallback } from './failures.js';
import { forwardLookup, sendCallback } from './forward.js';
import { endToEndStart } from './headers.js';
import { askOracle, dropOracleEntry, selectParties } from './oracles.js';
import { drop, type FlowOutcome, SENT } from './outcome.js';
import {
  type DiscoveryPorts,
  type ErrorRecipient,
  type Fail,
  type PartyCallback,
  type PartyEntry,
  type PartyLookup,
  type Scheme,
  UpstreamError,
} from './types.js';

export { selectParties } from './oracles.js';
export type { PartyCallback, PartyLookup } from './types.js';

/**
 * A lookup that stays in this scheme (inter-scheme discovery off, the original's default): the oracle's
 * FSPs are asked, nobody else; what cannot be found here is not found.
 */
export const thisScheme: Scheme = {
  admitLookup: () => undefined,
  checkLocalDestination: async () => undefined,
  proxyOf: async () => undefined,
  async toOracleFsp(ports, request, _requester, fsp) {
    return (await forwardLookup(ports, request, fsp)) ?? 'sent';
  },
  notFound: (_ports, _request, error, fail) => fail(error),
  // Every FSP failed: the payer hears about the first reason, once.
  noneReached: (_ports, _request, outcomes, fail) => fail(outcomes.find((o) => o !== 'skipped') as CallbackError),
  admitCallback(ports, callback) {
    // As the original: a success callback's source must be known (else nobody can be told, counted); an
    // error callback's source is not checked (PutPartiesErrorService, putParticipantsErrorByTypeAndID).
    if (callback.isError) return 'forward';
    return whenRead(ports.directory.participant(callback.source), (found) =>
      found !== undefined ? 'forward' : drop(ports, 'unknown_source'),
    );
  },
  sendTo: (ports, fsp) =>
    whenRead(ports.directory.participant(fsp), (found) => (found === undefined ? undefined : fsp)),
  tellsRequesterOfSwitchFailure: true,
};

/** The /parties flows' scheme: inter-scheme discovery when it is on. */
const schemeOf = (ports: DiscoveryPorts): Scheme => ports.interScheme ?? thisScheme;

/**
 * GET /parties after the 202 (reference: steps 3-6): validate the ID, find the FSPs (FSPIOP-Destination
 * or the oracle), send each the GET; the scheme says what happens to a party that is not here. Exactly one
 * error callback to the requester when the lookup fails.
 */
export async function lookUpParty(ports: DiscoveryPorts, request: PartyLookup): Promise<FlowOutcome> {
  const scheme = schemeOf(ports);
  const { party } = request;
  const requester = request.requester ?? request.source;
  const target = errorTarget('parties', request, { via: request.requester, traced: true });
  const fail: Fail = (error) => sendErrorCallback(ports, target, error);

  const problem = partyIdProblem(party.type, party.id, party.subId);
  if (problem !== undefined) return fail(new AlsError('INVALID_PARTY_ID', { reason: problem }));

  try {
    // Cached answers are taken as they are, without a turn of the microtask queue (types.ts Cached).
    const admitting = scheme.admitLookup(ports, request, requester);
    const refused = admitting instanceof Promise ? await admitting : admitting;
    if (refused !== undefined) return await fail(refused);

    const destination = request.destination;
    if (destination !== undefined && destination !== ports.hubName) {
      return await lookUpAtDestination(ports, scheme, request, requester, destination, fail);
    }

    const entries = await askOracle(ports, request);
    if (!Array.isArray(entries)) return await fail(entries as CallbackError);
    if (entries.length === 0) return await scheme.notFound(ports, request, new AlsError('PARTY_NOT_FOUND'), fail);
    const fsps = selectParties(entries as readonly PartyEntry[], party.subId);
    if (fsps.length === 0) return await fail(new AlsError('FILTERED_PARTY_LIST_EMPTY'));
    // One FSP (every lookup whose party the oracle holds once): no fan-out to gather.
    if (fsps.length === 1) {
      const outcome = await scheme.toOracleFsp(ports, request, requester, fsps[0] as string);
      return outcome === 'sent' ? SENT : await scheme.noneReached(ports, request, [outcome], fail);
    }
    const outcomes = await Promise.all(fsps.map((fsp) => scheme.toOracleFsp(ports, request, requester, fsp)));
    if (outcomes.includes('sent')) return SENT;
    return await scheme.noneReached(ports, request, outcomes as ('skipped' | CallbackError)[], fail);
  } catch (error) {
    // A failed proxy cache or central-ledger call: the requester hears it (BasePartiesService.handleError).
    return fail(asAlsError(error, 'SWITCH_FAILED'));
  }
}

/**
 * A GET /parties with an FSPIOP-Destination (the original's GetPartiesService.forwardRequestToDestination):
 * one central-ledger knows (active or not: its validateParticipant only fetches it) is sent the lookup;
 * one behind a known proxy, through it; any other leaves a stale entry at the oracle, dropped (DELETE; a
 * failed DELETE is the error the requester gets), and the scheme answers: 3204 in this one.
 */
async function lookUpAtDestination(
  ports: DiscoveryPorts,
  scheme: Scheme,
  request: PartyLookup,
  requester: string,
  destination: string,
  fail: Fail,
): Promise<FlowOutcome> {
  const started = performance.now();
  let known: boolean;
  try {
    known = (await ports.directory.participant(destination)) !== undefined;
  } finally {
    ports.observe.stage('endpoint', started);
  }
  let failure: CallbackError | undefined;
  if (known) {
    failure =
      (await scheme.checkLocalDestination(ports, request, requester, destination)) ??
      (await forwardLookup(ports, request, destination));
    return failure === undefined ? SENT : fail(failure);
  }
  const behind = await scheme.proxyOf(destination);
  if (behind !== undefined) {
    failure = await forwardLookup(ports, request, behind, destination);
    return failure === undefined ? SENT : fail(failure);
  }
  failure = await dropOracleEntry(ports, request);
  if (failure !== undefined) return fail(failure);
  return scheme.notFound(ports, request, new AlsError('DESTINATION_NOT_FOUND', { destination }), fail);
}

/**
 * PUT /parties|/participants/{Type}/{ID}[/{SubId}][/error] after the 200: forward the callback to the
 * destination's endpoint (for /parties, as the scheme routes it). Unknown source: nobody to tell, counted.
 * Unknown destination or a failed forward: one error callback to the source.
 */
export async function forwardCallback(ports: DiscoveryPorts, callback: PartyCallback): Promise<FlowOutcome> {
  const scheme = callback.resource === 'parties' ? schemeOf(ports) : thisScheme;
  const { party } = callback;
  const e2eStart = endToEndStart(callback.headers.tracestate);
  if (e2eStart !== undefined) ports.observe.endToEnd(e2eStart);
  if (callback.resource === 'participants') ports.oracles.forget(party);

  let errorTo: ErrorRecipient = callback.source;
  const answerTo = (name: ErrorRecipient) => {
    errorTo = name;
  };
  const traced = callback.isError && callback.resource === 'parties';
  const fail: Fail = async (error) => {
    const via = typeof errorTo === 'string' ? errorTo : await errorTo();
    return sendErrorCallback(ports, errorTarget(callback.resource, callback, { via, traced }), error);
  };

  // The original validates the path of a callback too (src/domain/parties/putParties.js), answering its
  // source.
  const problem = partyIdProblem(party.type, party.id, party.subId);
  if (problem !== undefined) return fail(new AlsError('INVALID_PARTY_ID', { reason: problem }));

  const destination = callback.destination;
  // The original's words differ by resource: /parties names what is missing, /participants does not.
  const unknownDestination = callback.resource === 'parties' ? 'CALLBACK_DESTINATION_UNKNOWN' : 'DESTINATION_FSP_ERROR';
  const endpointType = callbackEndpoint(callback.resource, party.subId !== undefined, callback.isError);
  let sendTo: string | undefined;
  let template: string | undefined;
  let sendStarted: number;
  const started = performance.now();
  try {
    // Cached answers are taken as they are, without a turn of the microtask queue (types.ts Cached).
    const admitting = scheme.admitCallback(ports, callback, answerTo);
    const admitted = admitting instanceof Promise ? await admitting : admitting;
    if (admitted !== 'forward') return 'kind' in admitted ? admitted : await fail(admitted);
    if (destination === undefined) return await fail(new AlsError(unknownDestination, { destination: '(none)' }));
    const routing = scheme.sendTo(ports, destination);
    sendTo = routing instanceof Promise ? await routing : routing;
    if (sendTo === undefined) return await fail(new AlsError(unknownDestination, { destination }));
    const reading = ports.directory.endpoint(sendTo, endpointType);
    template = reading instanceof Promise ? await reading : reading;
    if (!template) return await fail(new AlsError('NO_ENDPOINT', { destination: sendTo, endpoint: endpointType }));
  } catch (error) {
    return switchFailed(ports, scheme, callback, error, fail);
  } finally {
    // The forward starts as the endpoint stage ends: one clock read.
    sendStarted = ports.observe.stage('endpoint', started);
  }
  const url = fillTemplate(template, {
    partyIdType: party.type,
    partyIdentifier: party.id,
    partySubIdOrType: party.subId,
  });
  return sendCallback(ports, callback, url, endpointType, sendTo, destination, fail, sendStarted);
}

/**
 * central-ledger could not be asked about a callback's source or destination. The original answers only
 * the PUT's source, so the requester of the lookup never hears how it ended (a silent loss). In this
 * scheme the requester (the callback's destination) is told too, with the same error, when its endpoints
 * can be found.
 */
async function switchFailed(
  ports: DiscoveryPorts,
  scheme: Scheme,
  callback: PartyCallback,
  error: unknown,
  fail: Fail,
): Promise<FlowOutcome> {
  const failure = asAlsError(error, 'SWITCH_FAILED');
  const requester = callback.destination;
  if (
    !scheme.tellsRequesterOfSwitchFailure ||
    !(error instanceof UpstreamError) ||
    requester === undefined ||
    callback.resource !== 'parties'
  ) {
    return fail(failure);
  }
  const toRequester = errorTarget('parties', { ...callback, source: requester });
  // How it ended for the callback's source: the requester's error callback is the extra.
  const [toSource] = await Promise.all([fail(failure), sendErrorCallback(ports, toRequester, failure)]);
  return toSource;
}

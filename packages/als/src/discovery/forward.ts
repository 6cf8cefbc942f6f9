import { AlsError } from '../fspiop/errors.js';
import { Endpoint, fillTemplate } from './endpoints.js';
import type { CallbackError } from './failures.js';
import { asAlsError, sendError } from './failures.js';
import { forwardHeaders, withSpan } from './headers.js';
import type { PartyCallback, PartyLookup } from './parties.js';
import type { DiscoveryPorts, EgressStep } from './types.js';

/**
 * Sends one FSP (or a proxy) the GET /parties of a lookup. `destination` is the FSPIOP-Destination it
 * carries: the FSP itself by default; the FSP behind a proxy; or null for none (the original's fan-out to
 * the proxies, GetPartiesService.triggerInterSchemeDiscoveryFlow, sends the request without one).
 * Undefined when sent; otherwise the error the requester would get.
 */
export async function forwardLookup(
  ports: DiscoveryPorts,
  request: PartyLookup,
  fsp: string,
  destination: string | null = fsp,
): Promise<CallbackError | undefined> {
  const { party } = request;
  const endpointType = party.subId === undefined ? Endpoint.PARTIES_GET : Endpoint.PARTIES_SUB_ID_GET;
  let url: string;
  const started = performance.now();
  // The original's egress timers (src/models/participantEndpoint/facade.js): validateParticipant around the
  // central-ledger check, getParticipantEndpoint around the endpoint look-up, success false when it threw.
  let step: EgressStep = 'validateParticipant';
  let stepStarted = started;
  try {
    const participant = await ports.participant(fsp);
    ports.egress(step, '', '', participant !== undefined, stepStarted);
    // Known is enough, active or not: the original's validateParticipant only fetches the participant.
    if (participant === undefined) {
      return request.destination === fsp
        ? new AlsError('DESTINATION_NOT_FOUND', { destination: fsp })
        : new AlsError('PARTY_NOT_FOUND');
    }
    step = 'getParticipantEndpoint';
    stepStarted = performance.now();
    const template = (await ports.endpoints(fsp)).get(endpointType);
    ports.egress(step, endpointType, fsp, template !== undefined, stepStarted);
    if (!template) return new AlsError('NO_ENDPOINT', { destination: fsp, endpoint: endpointType });
    url = fillTemplate(template, { partyIdType: party.type, partyIdentifier: party.id, partySubIdOrType: party.subId });
  } catch (error) {
    ports.egress(
      step,
      step === 'validateParticipant' ? '' : endpointType,
      step === 'validateParticipant' ? '' : fsp,
      false,
      stepStarted,
    );
    return asAlsError(error, 'SWITCH_FAILED');
  } finally {
    ports.observe('endpoint', started);
  }
  const sendStarted = performance.now();
  let sent = false;
  try {
    const headers = forwardHeaders(
      request.headers,
      request.source,
      destination ?? fsp,
      'GET',
      ports.hubName,
      ports.hubVersion,
    );
    if (destination === null) delete headers['fspiop-destination'];
    // The original sends the lookup with the request's span.
    withSpan(headers, request.headers);
    await ports.send({ url, method: 'GET', headers });
    sent = true;
    return undefined;
  } catch (error) {
    ports.count('forward_failed');
    return sendError(error);
  } finally {
    ports.egress('sendRequestToParticipant', endpointType, fsp, sent, sendStarted);
    ports.observe('forward', sendStarted);
  }
}

/**
 * PUTs a payee's callback, its bytes as received, to `url` (its endpoint of `endpointType`) of `sendTo` (the
 * FSP itself, or the proxy it sits behind), with FSPIOP-Destination `destination`. A failed send is answered to the callback's source by
 * `fail` (the original's error for a failed send, sendError).
 */
export async function sendCallback(
  ports: DiscoveryPorts,
  callback: PartyCallback,
  url: string,
  endpointType: string,
  sendTo: string,
  destination: string,
  fail: (error: CallbackError) => Promise<void>,
): Promise<void> {
  const sendStarted = performance.now();
  let sent = false;
  try {
    const headers = forwardHeaders(
      callback.headers,
      callback.source,
      destination,
      'PUT',
      ports.hubName,
      ports.hubVersion,
    );
    // The original forwards a /parties error callback with its span, a success one without.
    if (callback.isError && callback.resource === 'parties') withSpan(headers, callback.headers);
    await ports.send({ url, method: 'PUT', headers, body: callback.body });
    sent = true;
    ports.count('callback_forwarded');
  } catch (error) {
    ports.count('forward_failed');
    await fail(sendError(error));
  } finally {
    ports.egress('sendRequestToParticipant', endpointType, sendTo, sent, sendStarted);
    ports.observe('callback', sendStarted);
  }
}

import { AlsError } from '../fspiop/errors.js';
import { Endpoint, fillTemplate } from './endpoints.js';
import type { CallbackError } from './failures.js';
import { asAlsError, sendError } from './failures.js';
import { forwardHeaders, withSpan } from './headers.js';
import { type FlowOutcome, SENT } from './outcome.js';
import type { DiscoveryPorts, Fail, PartyCallback, PartyLookup } from './types.js';

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
  let sendStarted: number;
  const started = performance.now();
  try {
    // Known is enough, active or not: the original's validateParticipant only fetches the participant.
    // Cached answers are taken as they are, without a turn of the microtask queue (types.ts Cached).
    const checking = ports.directory.participant(fsp);
    if ((checking instanceof Promise ? await checking : checking) === undefined) {
      return request.destination === fsp
        ? new AlsError('DESTINATION_NOT_FOUND', { destination: fsp })
        : new AlsError('PARTY_NOT_FOUND');
    }
    const reading = ports.directory.endpoint(fsp, endpointType);
    const template = reading instanceof Promise ? await reading : reading;
    if (!template) return new AlsError('NO_ENDPOINT', { destination: fsp, endpoint: endpointType });
    url = fillTemplate(template, { partyIdType: party.type, partyIdentifier: party.id, partySubIdOrType: party.subId });
  } catch (error) {
    return asAlsError(error, 'SWITCH_FAILED');
  } finally {
    // The forward starts as the endpoint stage ends: one clock read.
    sendStarted = ports.observe.stage('endpoint', started);
  }
  try {
    const headers = forwardHeaders(
      request.headers,
      request.source,
      destination ?? fsp,
      'GET',
      ports.hubName,
      ports.hubVersion,
      ports.apiType,
    );
    if (destination === null) delete headers['fspiop-destination'];
    // The original sends the lookup with the request's span.
    withSpan(headers, request.headers);
    await ports.egress.send({ url, method: 'GET', headers, participant: fsp, endpointType });
    return undefined;
  } catch (error) {
    ports.observe.event('forward_failed');
    return sendError(error);
  } finally {
    ports.observe.stage('forward', sendStarted);
  }
}

/**
 * PUTs a payee's callback, its bytes as received, to `url` (its endpoint of `endpointType`) of `sendTo` (the
 * FSP itself, or the proxy it sits behind), with FSPIOP-Destination `destination`. A failed send is answered
 * to the callback's source by `fail` (the original's error for a failed send, sendError); resolves to how
 * the callback ended. `sendStarted`: when its forward stage began, the end of the stage just before.
 */
export async function sendCallback(
  ports: DiscoveryPorts,
  callback: PartyCallback,
  url: string,
  endpointType: string,
  sendTo: string,
  destination: string,
  fail: Fail,
  sendStarted = performance.now(),
): Promise<FlowOutcome> {
  try {
    const headers = forwardHeaders(
      callback.headers,
      callback.source,
      destination,
      'PUT',
      ports.hubName,
      ports.hubVersion,
      ports.apiType,
    );
    // The original forwards a /parties error callback with its span, a success one without.
    if (callback.isError && callback.resource === 'parties') withSpan(headers, callback.headers);
    await ports.egress.send({ url, method: 'PUT', headers, body: callback.body, participant: sendTo, endpointType });
    ports.observe.event('callback_forwarded');
    return SENT;
  } catch (error) {
    ports.observe.event('forward_failed');
    return await fail(sendError(error));
  } finally {
    ports.observe.stage('callback', sendStarted);
  }
}

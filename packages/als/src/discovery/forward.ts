import { AlsError } from '../fspiop/errors.js';
import { Endpoint, fillTemplate } from './endpoints.js';
import { asAlsError } from './failures.js';
import { forwardHeaders } from './headers.js';
import type { PartyLookup } from './parties.js';
import type { DiscoveryPorts } from './types.js';

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
): Promise<AlsError | undefined> {
  const { party } = request;
  let url: string;
  const started = performance.now();
  try {
    const participant = await ports.participant(fsp);
    if (!participant?.isActive) {
      return request.destination === fsp
        ? new AlsError('DESTINATION_NOT_FOUND', { destination: fsp })
        : new AlsError('PARTY_NOT_FOUND');
    }
    const endpointType = party.subId === undefined ? Endpoint.PARTIES_GET : Endpoint.PARTIES_SUB_ID_GET;
    const template = (await ports.endpoints(fsp)).get(endpointType);
    if (!template) return new AlsError('NO_ENDPOINT', { destination: fsp, endpoint: endpointType });
    url = fillTemplate(template, { partyIdType: party.type, partyIdentifier: party.id, partySubIdOrType: party.subId });
  } catch (error) {
    return asAlsError(error, 'SWITCH_FAILED');
  } finally {
    ports.observe('endpoint', started);
  }
  const sendStarted = performance.now();
  try {
    const headers = forwardHeaders(request.headers, request.source, destination ?? fsp, 'GET');
    if (destination === null) delete headers['fspiop-destination'];
    await ports.send({ url, method: 'GET', headers });
    return undefined;
  } catch (error) {
    ports.count('forward_failed');
    return new AlsError('DESTINATION_UNREACHABLE', {
      destination: fsp,
      reason: error instanceof Error ? error.message : String(error),
    });
  } finally {
    ports.observe('forward', sendStarted);
  }
}

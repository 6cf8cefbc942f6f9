import { AlsError } from '../fspiop/errors.js';
import type { FspiopVersion } from '../fspiop/versions.js';
import { callbackEndpoint, fillTemplate, partyPath, type Resource } from './endpoints.js';
import { hubHeaders } from './headers.js';
import { type DiscoveryPorts, type HeaderMap, type PartyRef, UpstreamError } from './types.js';

/** Turns anything a flow throws into the catalogue error the requester gets. */
export function asAlsError(error: unknown, upstreamName: 'SWITCH_FAILED' | 'ORACLE_FAILED'): AlsError {
  if (error instanceof AlsError) return error;
  if (error instanceof UpstreamError) return new AlsError(upstreamName, { reason: error.reason });
  return new AlsError(upstreamName, { reason: error instanceof Error ? error.message : String(error) });
}

export interface ErrorTarget {
  readonly resource: Resource;
  readonly party: PartyRef;
  /** Who gets the error callback. */
  readonly requester: string;
  readonly version: FspiopVersion;
  readonly headers: HeaderMap;
}

/**
 * Sends the one error callback of a failed request: PUT {requester's ..._PUT_ERROR}/error from the Hub.
 * A requester whose endpoint cannot be found or reached is counted; there is nobody else to tell.
 */
export async function sendErrorCallback(ports: DiscoveryPorts, target: ErrorTarget, error: AlsError): Promise<void> {
  const started = performance.now();
  const { party, resource } = target;
  try {
    const endpoints = await ports.endpoints(target.requester);
    const template = endpoints.get(callbackEndpoint(resource, party.subId !== undefined, true));
    if (!template) throw new UpstreamError(target.requester, 'no error callback endpoint');
    const url = fillTemplate(template, {
      partyIdType: party.type,
      partyIdentifier: party.id,
      partySubIdOrType: party.subId,
    });
    const uri = partyPath(resource, party.type, party.id, party.subId, true);
    await ports.send({
      url,
      method: 'PUT',
      headers: hubHeaders(target.headers, ports.hubName, target.requester, uri, resource, target.version),
      body: ports.serialiseError(error.information()),
    });
    ports.count('error_callback_sent');
  } catch {
    ports.count('error_callback_failed');
  } finally {
    ports.observe('callback', started);
  }
}

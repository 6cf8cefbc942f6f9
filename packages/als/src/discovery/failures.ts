import type { ErrorInformation } from '@mojafast/fspiop';
import { AlsError } from '../fspiop/errors.js';
import type { FspiopVersion } from '../fspiop/versions.js';
import { callbackEndpoint, fillTemplate, partyPath, type Resource } from './endpoints.js';
import { hubHeaders, withSpan } from './headers.js';
import { type DiscoveryPorts, type HeaderMap, type PartyRef, UpstreamError } from './types.js';

/** What an error callback carries: a catalogue error of ours, or an error another service answered. */
export interface CallbackError {
  information(): ErrorInformation;
}

/** An oracle's own error body, passed on to the requester as it came (errorCode and errorDescription). */
export class PassedOnError implements CallbackError {
  constructor(private readonly answered: ErrorInformation) {}
  information(): ErrorInformation {
    return this.answered;
  }
}

/**
 * The error a requester gets for a failed oracle call, as the original's: an error body the oracle
 * answered is passed on (central-services-shared request.js builds the error from it); a lookup (GET)
 * answered 400 is 3204 and 404 is 3201 (src/models/oracle/facade.js sendOracleGetRequest); a write
 * answered 400 or another 4xx is 3000, 404 is 3200; a 5xx or no answer is 1001. An answer that is not what
 * the oracle API defines (not JSON, no partyList) stays ORACLE_FAILED (2001).
 */
export function oracleError(error: unknown, lookup: boolean): CallbackError {
  if (error instanceof AlsError) return error;
  if (!(error instanceof UpstreamError)) return asAlsError(error, 'ORACLE_FAILED');
  if (error.information) return new PassedOnError(error.information);
  const status = error.status;
  if (status === undefined || status >= 500) return new AlsError('ORACLE_UNREACHABLE');
  if (status === 400)
    return lookup ? new AlsError('ORACLE_BAD_REQUEST') : new AlsError('ORACLE_CLIENT_ERROR', { reason: 'Bad Request' });
  if (status === 404) return lookup ? new AlsError('ORACLE_NOT_FOUND') : new AlsError('ORACLE_ID_NOT_FOUND');
  if (status === 403) return new AlsError('ORACLE_CLIENT_ERROR', { reason: 'Permission denied' });
  if (status >= 400) return new AlsError('ORACLE_CLIENT_ERROR', { reason: 'Client error' });
  return new AlsError('ORACLE_FAILED', { reason: error.reason });
}

/**
 * The error a failed request to an FSP becomes, as the original's (central-services-shared request.js, the
 * same rule as an oracle write): no answer or a 5xx is 1001 "Failed to send HTTP request to host", a 400 or
 * 403 3000, a 404 3200.
 */
export function sendError(error: unknown): CallbackError {
  return oracleError(error, false);
}

/** Turns anything a flow throws into the catalogue error the requester gets. */
export function asAlsError(error: unknown, upstreamName: 'SWITCH_FAILED' | 'ORACLE_FAILED'): AlsError {
  if (error instanceof AlsError) return error;
  if (error instanceof UpstreamError) return new AlsError(upstreamName, { reason: error.reason });
  return new AlsError(upstreamName, { reason: error instanceof Error ? error.message : String(error) });
}

export interface ErrorTarget {
  readonly resource: Resource;
  readonly party: PartyRef;
  /** Who gets the error callback (whose endpoint it is sent to). */
  readonly requester: string;
  /**
   * FSPIOP-Destination of the callback when it is not the requester: an FSP of another scheme, reached
   * through its proxy (the original's createErrorCallbackHeaders names the request's source).
   */
  readonly destination?: string | undefined;
  readonly version: FspiopVersion;
  readonly headers: HeaderMap;
  /** Sent with the request's span, as the original sends a lookup's /parties error callbacks (withSpan). */
  readonly traced?: boolean;
}

/**
 * Sends the one error callback of a failed request: PUT {requester's ..._PUT_ERROR}/error from the Hub.
 * A requester whose endpoint cannot be found or reached is counted; there is nobody else to tell.
 */
export async function sendErrorCallback(
  ports: DiscoveryPorts,
  target: ErrorTarget,
  error: CallbackError,
): Promise<void> {
  const started = performance.now();
  const { party, resource } = target;
  const endpointType = callbackEndpoint(resource, party.subId !== undefined, true);
  // The original's egress timers (src/models/participantEndpoint/facade.js), success false when it threw.
  let sending = false;
  let sendStarted = started;
  try {
    // The original's /parties error callbacks first check that central-ledger knows whom they go to
    // (BasePartiesService.identifyDestinationForCallback); one it does not know gets nothing. Cached, so a
    // lookup's error pays no extra call. When central-ledger cannot be asked, its endpoints may still be known.
    if (resource === 'parties') {
      const checked = performance.now();
      let known: boolean | undefined;
      try {
        known = (await ports.participant(target.requester)) !== undefined;
      } catch {
        known = undefined;
      }
      ports.egress('validateParticipant', '', '', known === true, checked);
      if (known === false) throw new UpstreamError(target.requester, 'not a participant');
    }
    let template: string | undefined;
    try {
      template = (await ports.endpoints(target.requester)).get(endpointType);
    } finally {
      ports.egress('getParticipantEndpoint', endpointType, target.requester, template !== undefined, started);
    }
    if (!template) throw new UpstreamError(target.requester, 'no error callback endpoint');
    const url = fillTemplate(template, {
      partyIdType: party.type,
      partyIdentifier: party.id,
      partySubIdOrType: party.subId,
    });
    sending = true;
    sendStarted = performance.now();
    // The original's /parties error callbacks name their method and path (createCallbackHeaders); its
    // /participants ones carry only what the request had (sendErrorToParticipant).
    const uri = resource === 'parties' ? partyPath(resource, party.type, party.id, party.subId, true) : undefined;
    const headers = hubHeaders(
      target.headers,
      ports.hubName,
      target.destination ?? target.requester,
      uri,
      resource,
      target.version,
    );
    if (target.traced) withSpan(headers, target.headers);
    await ports.send({ url, method: 'PUT', headers, body: ports.serialiseError(error.information()) });
    ports.egress('sendRequestToParticipant', endpointType, target.requester, true, sendStarted);
    ports.count('error_callback_sent');
  } catch {
    if (sending) ports.egress('sendRequestToParticipant', endpointType, target.requester, false, sendStarted);
    ports.count('error_callback_failed');
  } finally {
    ports.observe('callback', started);
  }
}

import type { ErrorInformation } from '@mojafast/fspiop';
import { AlsError } from '../fspiop/errors.js';
import type { FspiopVersion } from '../fspiop/versions.js';
import { callbackEndpoint, fillTemplate, partyPath, type Resource } from './endpoints.js';
import { hubHeaders, withSpan } from './headers.js';
import { ERROR_CALLBACK_FAILED, ERROR_CALLBACK_SENT, type FlowOutcome } from './outcome.js';
import { type CallbackError, type DiscoveryPorts, type HeaderMap, type PartyRef, UpstreamError } from './types.js';

export type { CallbackError } from './types.js';

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

/**
 * Where the Hub's error callback answering one request goes, and what it carries: built by errorTarget only,
 * so the rule of who gets it is in one place.
 */
export interface ErrorTarget {
  readonly resource: Resource;
  readonly party: PartyRef;
  /** The FSP the error is for (whose request failed): the callback's FSPIOP-Destination. */
  readonly fsp: string;
  /**
   * Whose endpoint the callback is sent to: the proxy an FSP of another scheme is reached through (the
   * original's createErrorCallbackHeaders still names the FSP), else the FSP itself.
   */
  readonly recipient: string;
  readonly version: FspiopVersion;
  readonly headers: HeaderMap;
  /** Sent with the request's span, as the original sends a lookup's /parties error callbacks (withSpan). */
  readonly traced: boolean;
  /**
   * Without FSPIOP-URI and FSPIOP-HTTP-Method, as the original's timeout handler sends its answer to an
   * expired inter-scheme lookup (it has no request to name).
   */
  readonly unnamed: boolean;
}

/** What an error callback answers: a request, or a callback the Hub could not pass on. */
export interface AnsweredRequest {
  readonly party: PartyRef;
  /** The FSP that sent it (or, for a lookup's requester told of a failed callback, that FSP). */
  readonly source: string;
  readonly version: FspiopVersion;
  readonly headers: HeaderMap;
}

/**
 * The error callback for `request`: to its source, or through `via` (the proxy it came through, or a proxy
 * the scheme routes its answers to) naming the source as its destination.
 */
export function errorTarget(
  resource: Resource,
  request: AnsweredRequest,
  options: { readonly via?: string | undefined; readonly traced?: boolean; readonly unnamed?: boolean } = {},
): ErrorTarget {
  return {
    resource,
    party: request.party,
    fsp: request.source,
    recipient: options.via ?? request.source,
    version: request.version,
    headers: request.headers,
    traced: options.traced ?? false,
    unnamed: options.unnamed ?? false,
  };
}

/**
 * The version of the Hub's error callback to a requester. FSPIOP: the requester's (a 1.1 FSP may not take
 * 2.0; the original always sends its configured one, docs/differences.md). ISO 20022: the Hub's configured
 * version, as the original sends it to requesters of every version; the ISO media types are defined from
 * API 2.0 on, so no ISO requester is one that cannot take it.
 */
export function errorCallbackVersion(ports: DiscoveryPorts, requested: FspiopVersion): FspiopVersion {
  return ports.apiType === 'iso20022' ? ports.hubVersion : requested;
}

/**
 * Sends the one error callback of a failed request: PUT {requester's ..._PUT_ERROR}/error from the Hub.
 * A requester whose endpoint cannot be found or reached is counted; there is nobody else to tell.
 */
export async function sendErrorCallback(
  ports: DiscoveryPorts,
  target: ErrorTarget,
  error: CallbackError,
): Promise<FlowOutcome> {
  const started = performance.now();
  const { party, resource } = target;
  const endpointType = callbackEndpoint(resource, party.subId !== undefined, true);
  try {
    // The original's /parties error callbacks first check that central-ledger knows whom they go to
    // (BasePartiesService.identifyDestinationForCallback); one it does not know gets nothing. Cached, so a
    // lookup's error pays no extra call. When central-ledger cannot be asked, its endpoints may still be known.
    if (
      resource === 'parties' &&
      (await Promise.resolve(ports.directory.participant(target.recipient)).catch(assumeKnown)) === undefined
    ) {
      throw new UpstreamError(target.recipient, 'not a participant');
    }
    const template = await ports.directory.endpoint(target.recipient, endpointType);
    if (!template) throw new UpstreamError(target.recipient, 'no error callback endpoint');
    const url = fillTemplate(template, {
      partyIdType: party.type,
      partyIdentifier: party.id,
      partySubIdOrType: party.subId,
    });
    // The original's /parties error callbacks name their method and path (createCallbackHeaders); its
    // /participants ones carry only what the request had (sendErrorToParticipant).
    const uri =
      resource === 'parties' && !target.unnamed
        ? partyPath(resource, party.type, party.id, party.subId, true)
        : undefined;
    const destination = target.fsp;
    const headers = hubHeaders(
      target.headers,
      ports.hubName,
      destination,
      uri,
      resource,
      errorCallbackVersion(ports, target.version),
      ports.apiType,
    );
    if (target.traced) withSpan(headers, target.headers);
    // In ISO 20022 mode the Hub's /parties error callbacks are ISO bodies; its /participants ones stay FSPIOP.
    const { partiesError } = ports.codec;
    await ports.egress.send({
      url,
      method: 'PUT',
      headers,
      body:
        resource === 'parties' && partiesError
          ? partiesError(error.information(), ports.hubName, destination)
          : ports.codec.error(error.information(), error),
      participant: target.recipient,
      endpointType,
    });
    ports.observe.event('error_callback_sent');
    return ERROR_CALLBACK_SENT;
  } catch {
    ports.observe.event('error_callback_failed');
    return ERROR_CALLBACK_FAILED;
  } finally {
    ports.observe.stage('callback', started);
  }
}

/** A participant check that failed counts as known: its endpoints may still be cached. */
const assumeKnown = () => true as const;

import type { BatchParty, BatchResultEntry } from '../fspiop/bodies.js';
import { AlsError } from '../fspiop/errors.js';
import { partyIdProblem } from '../fspiop/party-id.js';
import type { FspiopVersion } from '../fspiop/versions.js';
import { callbackEndpoint, Endpoint, fillTemplate } from './endpoints.js';
import {
  asAlsError,
  type CallbackError,
  errorCallbackVersion,
  errorTarget,
  oracleError,
  sendError,
  sendErrorCallback,
} from './failures.js';
import { forwardHeaders, hubHeaders, oracleHeaders, withSpan } from './headers.js';
import { ANSWER_UNDELIVERED, ERROR_CALLBACK_FAILED, ERROR_CALLBACK_SENT, type FlowOutcome, SENT } from './outcome.js';
import {
  type DiscoveryPorts,
  type Fail,
  type HeaderMap,
  type OutboundHeaders,
  type OutboundRequest,
  type PartyRef,
  UpstreamError,
} from './types.js';

export interface ParticipantRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly party: PartyRef;
  /** GET: `?currency=`; POST/PUT: the body's currency. Only a GET uses it to choose the oracle. */
  readonly currency: string | undefined;
  readonly source: string;
  /** FSPIOP-Destination of the request, when it carried one. */
  readonly destination: string | undefined;
  readonly version: FspiopVersion;
  readonly headers: HeaderMap;
  /** POST/PUT: the body as received, and its fspId. */
  readonly body?: Buffer;
  readonly fspId?: string;
  /** DELETE: the requester must own the entry at the oracle (DELETE_PARTICIPANT_VALIDATION_ENABLED). */
  readonly checkDeleteOwner?: boolean;
}

/**
 * GET|POST|PUT|DELETE /participants/{Type}/{ID}[/{SubId}] after the 202 (200 for PUT), as the original's
 * src/domain/participants/participants.js: the requester must be an active participant (3200), then the
 * oracle is asked or changed, then one PUT /participants/{Type}/{ID}: GET and DELETE answer `{fspId}` to
 * the requester from the Hub; POST and PUT answer `{partyList:[...],currency}` to FSPIOP-Destination, or to
 * the body's fspId (from the Hub) when the request had none. Any failure: one error callback to the
 * requester.
 */
export async function handleParticipant(ports: DiscoveryPorts, request: ParticipantRequest): Promise<FlowOutcome> {
  const { party, method } = request;
  const target = errorTarget('participants', request);
  const fail: Fail = (error) => sendErrorCallback(ports, target, error);
  const problem = partyIdProblem(party.type, party.id, party.subId);
  if (problem !== undefined) return fail(new AlsError('INVALID_PARTY_ID', { reason: problem }));

  const started = performance.now();
  const refused = await checkRequester(ports, request);
  if (refused !== undefined) {
    ports.observe.stage('oracle', started);
    return fail(refused);
  }
  let answer: ParticipantAnswer | CallbackError;
  try {
    answer = await askOrChangeOracle(ports, request);
  } catch (error) {
    answer = oracleError(error, method === 'GET');
  } finally {
    ports.observe.stage('oracle', started);
  }
  if (!('recipient' in answer)) return fail(answer);
  return sendParticipantAnswer(ports, request, answer, fail);
}

/** What a /participants request is answered, and to whom. */
interface ParticipantAnswer {
  readonly recipient: string;
  readonly body: string;
}

/**
 * The requester must be known to central-ledger (active or not: the original's validateParticipant only
 * fetches it), and a POST or PUT's fspId too. Undefined when they are; else the error the requester gets.
 */
async function checkRequester(ports: DiscoveryPorts, request: ParticipantRequest): Promise<CallbackError | undefined> {
  try {
    if ((await ports.directory.participant(request.source)) === undefined) return new AlsError('SOURCE_NOT_FOUND');
    const { fspId } = request;
    if ((request.method === 'POST' || request.method === 'PUT') && fspId !== undefined) {
      // Ours: an fspId that is no participant is refused before the oracle stores it (the original stores
      // it, then fails to find the fspId's endpoint).
      if ((await ports.directory.participant(fspId)) === undefined) return new AlsError('UNKNOWN_FSP', { fspId });
    }
    return undefined;
  } catch (error) {
    return asAlsError(error, 'SWITCH_FAILED');
  }
}

/**
 * The oracle step of a /participants request: GET reads the party (its first entry answers), DELETE drops
 * it (with the owner check when it is on), POST and PUT store it. Throws what the oracle failed with.
 */
async function askOrChangeOracle(
  ports: DiscoveryPorts,
  request: ParticipantRequest,
): Promise<ParticipantAnswer | CallbackError> {
  const { party, method } = request;
  const oracle = await ports.oracles.oracleFor(party.type, method === 'GET' ? request.currency : undefined);
  if (method === 'GET') {
    const headers = oracleHeaders(request.headers, request.source, ports.hubName, 'GET');
    const entries = await ports.oracles.lookup(oracle, party, request.currency, headers);
    // The original answers the first entry of the oracle's partyList, whatever its sub-id.
    const first = entries[0];
    if (first === undefined) return new AlsError('PARTICIPANT_NOT_FOUND');
    return { recipient: request.source, body: ports.codec.fspId(first.fspId) };
  }
  if (method === 'DELETE') {
    if (request.checkDeleteOwner) {
      const headers = oracleHeaders(request.headers, request.source, ports.hubName, 'GET');
      const owner = await ownerOf(ports, oracle, party, headers);
      if (owner === undefined)
        return new AlsError('DELETE_PARTY_FAILED', { reason: 'No participant found for the party' });
      if (owner !== request.source) {
        return new AlsError('DELETE_PARTY_FAILED', {
          reason: `The party ${party.type}:${party.id} does not belong to the requesting FSP`,
        });
      }
    }
    const headers = oracleHeaders(request.headers, request.source, ports.hubName, 'DELETE');
    await ports.oracles.write(oracle, 'DELETE', party, undefined, headers);
    return { recipient: request.source, body: ports.codec.fspId(request.source) };
  }
  const headers = oracleHeaders(request.headers, request.source, ports.hubName, method);
  const status = await ports.oracles.write(oracle, method, party, request.body?.toString('utf8'), headers);
  // The original confirms a POST only when the oracle answered 201 Created. A PUT whose body named no
  // fspId (its schema does not require one) has nobody to announce: the original ends it with 3003 too.
  if (method === 'POST' && status !== 201) return new AlsError('ADD_PARTY_FAILED');
  const fspId = request.fspId;
  if (fspId === undefined) return new AlsError('ADD_PARTY_FAILED');
  return {
    recipient: request.destination || fspId,
    body: ports.codec.partyList({
      partyList: [
        {
          partyIdType: party.type,
          partyIdentifier: party.id,
          fspId,
          ...(party.subId === undefined ? {} : { partySubIdOrType: party.subId }),
        },
      ],
      ...(request.currency === undefined ? {} : { currency: request.currency }),
    }),
  };
}

/** The one PUT /participants/{Type}/{ID} of a request; one that cannot be delivered is told to the requester. */
async function sendParticipantAnswer(
  ports: DiscoveryPorts,
  request: ParticipantRequest,
  { recipient, body }: ParticipantAnswer,
  fail: Fail,
): Promise<FlowOutcome> {
  const { party, method } = request;
  const sendStarted = performance.now();
  const endpointType = callbackEndpoint('participants', party.subId !== undefined, false);
  try {
    const template = await ports.directory.endpoint(recipient, endpointType);
    if (!template) throw new AlsError('NO_ENDPOINT', { destination: recipient, endpoint: endpointType });
    // The original's headers (src/domain/participants/participants.js): POST/PUT with FSPIOP-Destination send
    // the requester's headers as they came (the requester stays FSPIOP-Source, its Content-Type kept); the
    // others come from the Hub in PROTOCOL_VERSIONS.CONTENT.DEFAULT (ALS_HUB_FSPIOP_VERSION), to the request's
    // FSPIOP-Destination for a GET (the requester when it named none), FSPIOP-URI only as the request had it.
    const headers =
      (method === 'POST' || method === 'PUT') && request.destination
        ? forwardHeaders(request.headers, request.source, request.destination, 'PUT')
        : hubHeaders(
            request.headers,
            ports.hubName,
            method === 'GET' ? request.destination || recipient : recipient,
            undefined,
            'participants',
            ports.hubVersion,
            ports.apiType,
          );
    // The original sends its GET and POST answers with the request's span.
    if (method === 'GET' || method === 'POST') withSpan(headers, request.headers);
    await ports.egress.send({
      url: fillTemplate(template, {
        partyIdType: party.type,
        partyIdentifier: party.id,
        partySubIdOrType: party.subId,
      }),
      method: 'PUT',
      headers,
      body,
      participant: recipient,
      endpointType,
    });
    return SENT;
  } catch (error) {
    // The original tells the requester that its answer could not be delivered.
    ports.observe.event('forward_failed');
    return await fail(error instanceof AlsError ? error : sendError(error));
  } finally {
    ports.observe.stage('callback', sendStarted);
  }
}

/**
 * The FSP the oracle holds for a party (its first entry), read before a DELETE when the owner check is on
 * (src/models/oracle/facade.js validatePartyDeletion). Undefined when the oracle has none.
 */
async function ownerOf(
  ports: DiscoveryPorts,
  oracle: string,
  party: PartyRef,
  headers: OutboundHeaders,
): Promise<string | undefined> {
  const entries = await ports.oracles.lookup(oracle, party, undefined, headers);
  return entries[0]?.fspId;
}

export interface BatchRequest {
  readonly requestId: string;
  readonly partyList: readonly BatchParty[];
  readonly currency: string | undefined;
  readonly source: string;
  /** FSPIOP-Destination of the request, when it named one. */
  readonly destination?: string | undefined;
  readonly version: FspiopVersion;
  readonly headers: HeaderMap;
}

/** What a batch flow needs beyond the common ports: the compiled serialisers of its two bodies. */
export interface BatchSerialisers {
  request(body: { requestId: string; partyList: readonly BatchParty[]; currency?: string }): string;
  result(body: { partyList: readonly BatchResultEntry[]; currency?: string }): string;
}

/** A failed entry of a batch, as the original's: the code's description, the party as an extension. */
function entryError(party: BatchParty, error: AlsError): BatchResultEntry {
  return {
    partyId: party,
    errorInformation: {
      ...error.information(),
      extensionList: { extension: [{ key: party.partyIdType, value: party.partyIdentifier }] },
    },
  };
}

/**
 * POST /participants (batch) after the 200, as the original's postParticipantsBatch: the requester must
 * be an active participant; an entry whose fspId is not the requester is 3204, an entry of a type the ALS
 * does not serve 3003; the others go to one oracle batch per type (each with the request's currency), and
 * the oracle's partyList is what the requester gets back (an empty one: 3003 for each entry sent). One PUT
 * /participants/{requestId} to the requester; a failure of the whole batch (unknown requester, no oracle,
 * an oracle that fails) is one PUT /participants/{requestId}/error instead.
 */
export async function handleBatch(
  ports: DiscoveryPorts,
  serialisers: BatchSerialisers,
  request: BatchRequest,
  knownTypes: ReadonlySet<string>,
): Promise<FlowOutcome> {
  const started = performance.now();
  let results: BatchResultEntry[];
  try {
    const requester = await ports.directory.participant(request.source);
    if (requester === undefined) throw new AlsError('SOURCE_NOT_FOUND');
    const { refused, byType } = sortBatch(request, knownTypes);
    results = refused;
    const headers = oracleHeaders(request.headers, request.source, ports.hubName, 'POST');
    for (const [type, entries] of byType) {
      results.push(...(await storeBatchOfType(ports, serialisers, request, type, entries, headers)));
    }
  } catch (error) {
    ports.observe.stage('oracle', started);
    return sendBatchError(ports, request, batchFailure(error));
  }
  const sendStarted = ports.observe.stage('oracle', started);
  try {
    await putToBatchRequester(
      ports,
      request,
      Endpoint.PARTICIPANT_BATCH_PUT,
      '',
      serialisers.result({
        partyList: results,
        ...(request.currency ? { currency: request.currency } : {}),
      }),
    );
    return SENT;
  } catch {
    // Counted as the original's metric does: under the error callbacks that found nobody.
    ports.observe.event('error_callback_failed');
    return ANSWER_UNDELIVERED;
  } finally {
    ports.observe.stage('callback', sendStarted);
  }
}

/**
 * The entries of a batch the oracle is not asked about (a type the ALS does not serve: 3003; an fspId that
 * is not the requester: 3204), and the others by type, each with the request's currency.
 */
function sortBatch(
  request: BatchRequest,
  knownTypes: ReadonlySet<string>,
): { refused: BatchResultEntry[]; byType: Map<string, BatchParty[]> } {
  const refused: BatchResultEntry[] = [];
  const byType = new Map<string, BatchParty[]>();
  for (const entry of request.partyList) {
    if (!knownTypes.has(entry.partyIdType)) {
      refused.push(entryError(entry, new AlsError('ADD_PARTY_FAILED')));
      continue;
    }
    const withCurrency = request.currency === undefined ? entry : { ...entry, currency: request.currency };
    if (entry.fspId !== request.source) {
      refused.push(entryError(withCurrency, new AlsError('PARTICIPANT_NOT_FOUND')));
      continue;
    }
    const list = byType.get(entry.partyIdType);
    if (list) list.push(withCurrency);
    else byType.set(entry.partyIdType, [withCurrency]);
  }
  return { refused, byType };
}

/**
 * One oracle batch (the entries of one type): the oracle's answer entries as they came, or 3003 for each
 * entry when it answered none. Throws what fails the whole batch.
 */
async function storeBatchOfType(
  ports: DiscoveryPorts,
  serialisers: BatchSerialisers,
  request: BatchRequest,
  type: string,
  entries: BatchParty[],
  headers: OutboundHeaders,
): Promise<BatchResultEntry[]> {
  let oracle: string;
  try {
    oracle = await ports.oracles.oracleFor(type, request.currency);
  } catch (error) {
    // The original names only the type, with or without a currency.
    if (error instanceof AlsError && error.errorName === 'NO_ORACLE_FOR_CURRENCY')
      throw new AlsError('NO_ORACLE', { type });
    throw error;
  }
  let answer: Buffer;
  try {
    answer = await ports.oracles.batch(
      oracle,
      serialisers.request({ requestId: request.requestId, partyList: entries }),
      headers,
    );
  } catch (error) {
    throw oracleError(error, false);
  }
  for (const entry of entries) {
    ports.oracles.forget({ type, id: entry.partyIdentifier, subId: entry.partySubIdOrType });
  }
  const answered = answeredPartyList(answer);
  if (answered.length === 0) return entries.map((entry) => entryError(entry, new AlsError('ADD_PARTY_FAILED')));
  // The original passes the oracle's entries on as they came (an errorInformation of any shape included),
  // without the currency it sent in each. An entry without a partyId object fails the whole batch there (a
  // TypeError, 2001): the same error, in words.
  return answered.map((item) => {
    const partyId = item !== null && typeof item === 'object' ? (item as { partyId?: unknown }).partyId : undefined;
    if (partyId === null || typeof partyId !== 'object') {
      throw new AlsError('ORACLE_FAILED', { reason: 'batch answer entry without a partyId' });
    }
    const { currency: _currency, ...rest } = partyId as BatchParty;
    return { ...(item as BatchResultEntry), partyId: rest };
  });
}

function batchFailure(error: unknown): CallbackError {
  if (error instanceof UpstreamError) {
    return asAlsError(error, error.upstream === 'central-ledger' ? 'SWITCH_FAILED' : 'ORACLE_FAILED');
  }
  if (typeof (error as Partial<CallbackError>)?.information === 'function') return error as CallbackError;
  return asAlsError(error, 'ORACLE_FAILED');
}

/** The partyList of an oracle's batch answer, entries as they came; an answer without one counts as empty. */
function answeredPartyList(answer: Buffer): unknown[] {
  try {
    const parsed = JSON.parse(answer.toString('utf8')) as { partyList?: unknown };
    return Array.isArray(parsed?.partyList) ? parsed.partyList : [];
  } catch {
    return [];
  }
}

/**
 * The one error callback of a batch that failed as a whole (PUT /participants/{requestId}/error to the
 * requester's FSPIOP_CALLBACK_URL_PARTICIPANT_BATCH_PUT_ERROR).
 */
export async function sendBatchError(
  ports: DiscoveryPorts,
  request: Pick<BatchRequest, 'requestId' | 'source' | 'destination' | 'version' | 'headers'>,
  error: CallbackError,
): Promise<FlowOutcome> {
  const started = performance.now();
  try {
    await putToBatchRequester(
      ports,
      request,
      Endpoint.PARTICIPANT_BATCH_PUT_ERROR,
      '/error',
      ports.codec.error(error.information(), error),
    );
    ports.observe.event('error_callback_sent');
    return ERROR_CALLBACK_SENT;
  } catch {
    ports.observe.event('error_callback_failed');
    return ERROR_CALLBACK_FAILED;
  } finally {
    ports.observe.stage('callback', started);
  }
}

/** PUT /participants/{requestId}[/error] from the Hub to the batch requester's endpoint of that type. */
async function putToBatchRequester(
  ports: DiscoveryPorts,
  request: Pick<BatchRequest, 'requestId' | 'source' | 'destination' | 'version' | 'headers'>,
  endpoint: (typeof Endpoint)[keyof typeof Endpoint],
  suffix: '' | '/error',
  body: OutboundRequest['body'],
): Promise<void> {
  const template = await ports.directory.endpoint(request.source, endpoint);
  if (!template) throw new UpstreamError(request.source, `no ${endpoint} endpoint`);
  const headers =
    suffix === '' && request.destination
      ? forwardHeaders(request.headers, request.source, request.destination, 'PUT')
      : hubHeaders(
          request.headers,
          ports.hubName,
          request.source,
          undefined,
          'participants',
          suffix === '' ? ports.hubVersion : errorCallbackVersion(ports, request.version),
          ports.apiType,
        );
  // The original sends a batch's answer with the request's span, its error without.
  if (suffix === '') withSpan(headers, request.headers);
  await ports.egress.send({
    url: fillTemplate(template, { requestId: request.requestId }),
    method: 'PUT',
    // As the original's batch answers: from the Hub to the requester without FSPIOP-URI (only as the request
    // had one); its success answer in PROTOCOL_VERSIONS.CONTENT.DEFAULT, and with the requester's headers as
    // they came when the request named an FSPIOP-Destination; an error in the requester's version (README
    // differences).
    headers,
    body,
    participant: request.source,
    endpointType: endpoint,
  });
}

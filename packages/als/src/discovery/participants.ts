import { AlsError } from '../fspiop/errors.js';
import { isValidPartyId, isValidSubId } from '../fspiop/party-id.js';
import type { FspiopVersion } from '../fspiop/versions.js';
import { callbackEndpoint, Endpoint, fillTemplate, partyPath } from './endpoints.js';
import { asAlsError, sendErrorCallback } from './failures.js';
import { forwardHeaders, hubHeaders } from './headers.js';
import { selectParties } from './parties.js';
import { type DiscoveryPorts, type HeaderMap, type PartyRef, UpstreamError } from './types.js';

export interface ParticipantRequest {
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly party: PartyRef;
  readonly currency: string | undefined;
  readonly source: string;
  readonly version: FspiopVersion;
  readonly headers: HeaderMap;
  /** POST: the body as received (ParticipantsTypeIDSubIDPostRequest), and its fspId. */
  readonly body?: Buffer;
  readonly fspId?: string;
}

/**
 * GET|POST|DELETE /participants/{Type}/{ID}[/{SubId}] after the 202: ask or change the oracle, then tell
 * the requester from the Hub: PUT /participants/{Type}/{ID} with `{"fspId": ...}`, or one error callback.
 */
export async function handleParticipant(ports: DiscoveryPorts, request: ParticipantRequest): Promise<void> {
  const { party } = request;
  const target = {
    resource: 'participants' as const,
    party,
    requester: request.source,
    version: request.version,
    headers: request.headers,
  };
  const fail = (error: AlsError) => sendErrorCallback(ports, target, error);
  if (!isValidPartyId(party.type, party.id) || (party.subId !== undefined && !isValidSubId(party.subId))) {
    return fail(new AlsError('INVALID_PARTY_ID', { type: party.type, id: party.id }));
  }

  let fspId: string;
  const started = performance.now();
  try {
    if (request.method === 'POST') {
      const owner = await ports.participant(request.fspId as string);
      if (!owner?.isActive) return fail(new AlsError('UNKNOWN_FSP', { fspId: request.fspId as string }));
    }
    const oracle = await ports.oracleFor(party.type, request.currency);
    const headers = forwardHeaders(request.headers, request.source, ports.hubName, request.method);
    if (request.method === 'GET') {
      const fsps = selectParties(await ports.oracleLookup(oracle, party, request.currency, headers), party.subId);
      if (fsps.length === 0) return fail(new AlsError('PARTY_NOT_FOUND', { type: party.type, id: party.id }));
      fspId = fsps[0] as string;
    } else {
      await ports.oracleWrite(oracle, request.method, party, request.body?.toString('utf8'), headers);
      ports.forgetParty(party);
      fspId = request.method === 'POST' ? (request.fspId as string) : request.source;
    }
  } catch (error) {
    return fail(asAlsError(error, 'ORACLE_FAILED'));
  } finally {
    ports.observe('oracle', started);
  }

  const sendStarted = performance.now();
  try {
    const endpoints = await ports.endpoints(request.source);
    const template = endpoints.get(callbackEndpoint('participants', party.subId !== undefined, false));
    if (!template) throw new UpstreamError(request.source, 'no participant callback endpoint');
    await ports.send({
      url: fillTemplate(template, {
        partyIdType: party.type,
        partyIdentifier: party.id,
        partySubIdOrType: party.subId,
      }),
      method: 'PUT',
      headers: hubHeaders(
        request.headers,
        ports.hubName,
        request.source,
        partyPath('participants', party.type, party.id, party.subId, false),
        'participants',
        request.version,
      ),
      body: ports.serialiseFspId(fspId),
    });
  } catch {
    ports.count('error_callback_failed');
  } finally {
    ports.observe('callback', sendStarted);
  }
}

export interface BatchParty {
  readonly partyIdType: string;
  readonly partyIdentifier: string;
  readonly partySubIdOrType?: string;
  readonly fspId?: string;
}

export interface BatchRequest {
  readonly requestId: string;
  readonly partyList: readonly BatchParty[];
  readonly currency: string | undefined;
  readonly source: string;
  readonly version: FspiopVersion;
  readonly headers: HeaderMap;
}

export interface BatchResultEntry {
  readonly partyId: BatchParty & { readonly fspId: string };
  readonly errorInformation?: { readonly errorCode: string; readonly errorDescription: string };
}

/** What a batch flow needs beyond the common ports: the compiled serialisers of its two bodies. */
export interface BatchSerialisers {
  request(body: { requestId: string; partyList: readonly BatchParty[]; currency?: string }): string;
  result(body: { partyList: readonly BatchResultEntry[]; currency?: string }): string;
}

/**
 * POST /participants (batch) after the 202: one oracle batch per party ID type, then one PUT
 * /participants/{requestId} to the requester listing every party, failed ones with their error.
 */
export async function handleBatch(
  ports: DiscoveryPorts,
  serialisers: BatchSerialisers,
  request: BatchRequest,
): Promise<void> {
  const byType = new Map<string, BatchParty[]>();
  for (const entry of request.partyList) {
    const list = byType.get(entry.partyIdType);
    if (list) list.push(entry);
    else byType.set(entry.partyIdType, [entry]);
  }
  const results: BatchResultEntry[] = [];
  const started = performance.now();
  await Promise.all(
    [...byType].map(async ([type, entries]) => {
      let failure: AlsError | undefined;
      try {
        const oracle = await ports.oracleFor(type, request.currency);
        const owned = entries.map((e) => ({ ...e, fspId: request.source }));
        await ports.oracleBatch(
          oracle,
          serialisers.request({
            requestId: request.requestId,
            partyList: owned,
            ...(request.currency ? { currency: request.currency } : {}),
          }),
          forwardHeaders(request.headers, request.source, ports.hubName, 'POST'),
        );
      } catch (error) {
        failure = asAlsError(error, 'ORACLE_FAILED');
      }
      for (const entry of entries) {
        const party = { type, id: entry.partyIdentifier, subId: entry.partySubIdOrType };
        ports.forgetParty(party);
        const invalid = !isValidPartyId(type, entry.partyIdentifier);
        const error = invalid ? new AlsError('INVALID_PARTY_ID', { type, id: entry.partyIdentifier }) : failure;
        results.push({
          partyId: { ...entry, fspId: request.source },
          ...(error ? { errorInformation: error.information() } : {}),
        });
      }
    }),
  );
  ports.observe('oracle', started);

  const sendStarted = performance.now();
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
  } catch {
    ports.count('error_callback_failed');
  } finally {
    ports.observe('callback', sendStarted);
  }
}

/**
 * The one error callback of a batch that could not be started (PUT /participants/{requestId}/error to
 * the requester's FSPIOP_CALLBACK_URL_PARTICIPANT_BATCH_PUT_ERROR).
 */
export async function sendBatchError(
  ports: DiscoveryPorts,
  request: Pick<BatchRequest, 'requestId' | 'source' | 'version' | 'headers'>,
  error: AlsError,
): Promise<void> {
  const started = performance.now();
  try {
    await putToBatchRequester(
      ports,
      request,
      Endpoint.PARTICIPANT_BATCH_PUT_ERROR,
      '/error',
      ports.serialiseError(error.information()),
    );
    ports.count('error_callback_sent');
  } catch {
    ports.count('error_callback_failed');
  } finally {
    ports.observe('callback', started);
  }
}

/** PUT /participants/{requestId}[/error] from the Hub to the batch requester's endpoint of that type. */
async function putToBatchRequester(
  ports: DiscoveryPorts,
  request: Pick<BatchRequest, 'requestId' | 'source' | 'version' | 'headers'>,
  endpoint: (typeof Endpoint)[keyof typeof Endpoint],
  suffix: '' | '/error',
  body: Parameters<DiscoveryPorts['send']>[0]['body'],
): Promise<void> {
  const template = (await ports.endpoints(request.source)).get(endpoint);
  if (!template) throw new UpstreamError(request.source, `no ${endpoint} endpoint`);
  await ports.send({
    url: fillTemplate(template, { requestId: request.requestId }),
    method: 'PUT',
    headers: hubHeaders(
      request.headers,
      ports.hubName,
      request.source,
      `/participants/${encodeURIComponent(request.requestId)}${suffix}`,
      'participants',
      request.version,
    ),
    body,
  });
}

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Resource } from '../discovery/endpoints.js';
import { sendErrorCallback } from '../discovery/failures.js';
import { handleBatch, handleParticipant } from '../discovery/participants.js';
import { forwardCallback, lookUpParty } from '../discovery/parties.js';
import { type DiscoveryPorts, type PartyRef, UpstreamError } from '../discovery/types.js';
import { AlsError } from '../fspiop/errors.js';
import { checkHeaders, type IngressFacts } from '../fspiop/ingress.js';
import type { BodySchemaName, FspiopSchemas } from '../fspiop/schemas.js';
import type { Serialisers } from '../fspiop/serialisers.js';
import type { FspiopVersion } from '../fspiop/versions.js';
import type { Metrics } from '../observe/metrics.js';
import { type Admission, callbackKey } from './admission.js';
import { proxiedRequester, proxyHeaderOf } from './proxy-ingress.js';

export interface FspiopRouteDeps {
  readonly ports: DiscoveryPorts;
  readonly schemas: FspiopSchemas;
  readonly serialisers: Serialisers;
  readonly metrics: Metrics;
  /** Keeps background work visible to shutdown, which drains it. */
  readonly track: (work: Promise<void>) => void;
  /** DELETE_PARTICIPANT_VALIDATION_ENABLED: a DELETE /participants must come from the entry's owner. */
  readonly checkDeleteOwner?: boolean;
  /** Party ID types served beyond the API definition's (FEATURE_ENABLE_EXTENDED_PARTY_ID_TYPE). */
  readonly extraPartyIdTypes?: ReadonlySet<string>;
  /** DELETE /endpointcache, which the original serves on this port too. */
  readonly clearEndpointCache?: () => void;
  /** Lookups in flight and their bound (README "Limits and failures"). */
  readonly admission: Admission;
  /** Retry-After of a refusal. */
  readonly retryAfterSeconds: number;
}

/** The FSPIOP PartyIdentifier's length limit (API v1.1 section 7.3.24; the original's OpenAPI ID maxLength). */
export const maxPartyIdLength = 128;

interface PartyParams {
  type: string;
  id: string;
  subId?: string;
}

/** The background work of an accepted request (wrapped: an async handler would otherwise await it). */
interface Accepted {
  readonly done: Promise<void>;
  /** GET /parties: the payee's callback that ends the lookup, unless the ALS answered with an error callback. */
  readonly callback?: { readonly key: string; readonly outcome: { errorCallback: boolean } };
}

type PartyRequest = FastifyRequest<{ Params: PartyParams; Querystring: { currency?: string } }>;

function partyOf(params: PartyParams): PartyRef {
  return { type: params.type, id: params.id, subId: params.subId };
}

/** The FSPIOP routes of the reference: /parties and /participants; 202 first, the work after it. */
export function registerFspiopRoutes(app: FastifyInstance, deps: FspiopRouteDeps): void {
  const { ports, schemas, metrics, track } = deps;

  const extraTypes = deps.extraPartyIdTypes ?? new Set<string>();
  const knownType = (type: string, version: FspiopVersion) =>
    schemas.partyIdTypes[version].has(type) || extraTypes.has(type);
  const checkType = (type: string, version: FspiopVersion) => {
    if (!knownType(type, version)) throw new AlsError('INVALID_PARTY_ID_TYPE', { type });
  };

  /**
   * An empty {ID} or {SubId} (`/parties/MSISDN/`) matches no route of the API definition. An ID longer than
   * 128 characters breaks the original's OpenAPI maxLength: 400 3100, synchronously like there.
   */
  const checkPath = (request: PartyRequest, version: FspiopVersion) => {
    const { id, subId } = request.params;
    if (id === '' || subId === '') throw new AlsError('UNKNOWN_URI', { method: request.method, path: request.url });
    checkType(request.params.type, version);
    if (id.length > maxPartyIdLength)
      throw new AlsError('PATH_PARAM_TOO_LONG', { param: 'ID', limit: maxPartyIdLength });
  };

  /**
   * The FSPIOP header checks, after the Host check Node's own is replaced by (requireHostHeader off in
   * main.ts): Node answered a missing Host with an empty 400; RFC 9112 section 3.2 asks for the 400, this
   * gives it an FSPIOP body (3102).
   */
  const headersOf = (request: FastifyRequest, method: string, resource: Resource): IngressFacts => {
    if (request.headers.host === undefined && request.raw.httpVersion === '1.1')
      throw new AlsError('MISSING_HEADER', { header: 'host' });
    return checkHeaders(method, resource, request.headers, ports.hubVersion);
  };

  /** `?currency=` must be one code of the API's Currency enum (ISO 4217), once. */
  const checkCurrency = (currency: unknown): string | undefined => {
    if (currency === undefined) return undefined;
    if (typeof currency !== 'string' || !schemas.currencies.has(currency))
      throw new AlsError('INVALID_QUERY', { param: 'currency', reason: 'must be one ISO 4217 currency code' });
    return currency;
  };

  const parseBody = (request: FastifyRequest, version: FspiopVersion, schema: BodySchemaName): unknown => {
    const raw = request.body;
    if (!Buffer.isBuffer(raw) || raw.length === 0) throw new AlsError('BODY_MISSING_ELEMENT', { path: '/body' });
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw.toString('utf8'));
    } catch {
      throw new AlsError('MALFORMED_BODY');
    }
    schemas.validate(version, schema, parsed);
    return parsed;
  };

  /**
   * The source must be an active participant before the 202 (reference: 400 3101). When central-ledger
   * cannot be asked, the request is accepted and answered with one error callback (2001) if the source's
   * callback endpoints are known (cached); if they are not, no callback could reach it, so the answer is
   * synchronous: 500 2001, what the original answers to any central-ledger failure here. Never a 202 that
   * nobody hears the end of.
   */
  const checkSource = async (facts: IngressFacts): Promise<AlsError | undefined> => {
    try {
      const participant = await ports.participant(facts.source);
      if (!participant?.isActive) throw new AlsError('UNKNOWN_SOURCE', { source: facts.source });
      return undefined;
    } catch (error) {
      if (!(error instanceof UpstreamError)) throw error;
      try {
        await ports.endpoints(facts.source);
      } catch {
        throw new AlsError('SOURCE_UNREACHABLE', { reason: error.reason, source: facts.source });
      }
      return new AlsError('SWITCH_FAILED', { reason: error.reason });
    }
  };

  /**
   * Admission control (admission.ts): past the bound the request is answered 503 2003 with Retry-After
   * before any header is parsed or upstream asked, so an overload costs the refused client microseconds
   * and the accepted ones nothing.
   */
  const { admission, retryAfterSeconds } = deps;
  const leave = () => admission.leave();
  const admitted =
    <R extends FastifyRequest>(route: string, handler: (request: R, reply: FastifyReply) => Promise<Accepted>) =>
    async (request: R, reply: FastifyReply) => {
      if (!admission.tryEnter()) {
        metrics.ingress(route, 503);
        reply.header('retry-after', String(retryAfterSeconds));
        throw new AlsError('OVERLOADED', { limit: admission.limit, seconds: retryAfterSeconds });
      }
      let accepted: Accepted;
      try {
        accepted = await handler(request, reply);
      } catch (error) {
        admission.leave();
        throw error;
      }
      const { callback } = accepted;
      if (callback === undefined) {
        accepted.done.then(leave, leave);
        return;
      }
      const expected = admission.expectCallback(callback.key);
      const cancel = () => expected.cancel();
      accepted.done.then(() => {
        if (callback.outcome.errorCallback) expected.cancel();
      }, cancel);
    };

  /**
   * The flows' ports for one request, noting whether it ended in the ALS's own error callback (then no
   * payee callback will come to end a lookup's admission slot, and the original's domain histogram records
   * success false). Object.create: one small object, nothing copied.
   */
  const watchedPorts = (outcome: { errorCallback: boolean }): DiscoveryPorts => {
    const watched = Object.create(ports) as { -readonly [K in keyof DiscoveryPorts]: DiscoveryPorts[K] };
    watched.count = (event) => {
      if (event === 'error_callback_sent' || event === 'error_callback_failed') outcome.errorCallback = true;
      ports.count(event);
    };
    return watched;
  };

  const accept = (
    reply: FastifyReply,
    route: string,
    status: number,
    started: number,
    deferred: AlsError | undefined,
    target: { resource: Resource; party: PartyRef; facts: IngressFacts; request: FastifyRequest },
    work: () => Promise<void>,
    outcome?: { errorCallback: boolean },
  ): Accepted => {
    metrics.observeStage('validation', started);
    metrics.ingress(route, status, target.party.subId !== undefined);
    reply.code(status).send();
    const running = deferred
      ? sendErrorCallback(
          ports,
          {
            resource: target.resource,
            party: target.party,
            requester: target.facts.source,
            version: target.facts.version,
            headers: target.request.headers,
          },
          deferred,
        )
      : work();
    metrics.domain(route, running, () => deferred !== undefined || outcome?.errorCallback === true);
    track(running);
    return { done: running };
  };

  const getParties = async (request: PartyRequest, reply: FastifyReply) => {
    const started = performance.now();
    const facts = headersOf(request, 'GET', 'parties');
    checkPath(request, facts.version);
    const currency = checkCurrency(request.query.currency);
    // Inter-scheme discovery only (off: one property read): a source of another scheme via its proxy.
    const proxy = ports.proxy && proxyHeaderOf(request.headers);
    const via = proxy === undefined ? undefined : await proxiedRequester(ports, facts.source, proxy);
    const deferred = via === undefined ? await checkSource(facts) : undefined;
    const party = partyOf(request.params);
    const outcome = { errorCallback: deferred !== undefined };
    const accepted = accept(
      reply,
      'parties_get',
      202,
      started,
      deferred,
      { resource: 'parties', party, facts, request },
      () =>
        lookUpParty(watchedPorts(outcome), {
          party,
          currency,
          source: facts.source,
          requester: via,
          proxy,
          destination: facts.destination,
          version: facts.version,
          headers: request.headers,
        }),
      outcome,
    );
    return { ...accepted, callback: { key: callbackKey(party.type, party.id, party.subId, facts.source), outcome } };
  };

  const putCallback = (resource: Resource, isError: boolean) => async (request: PartyRequest, reply: FastifyReply) => {
    const started = performance.now();
    const facts = headersOf(request, 'PUT', resource);
    checkPath(request, facts.bodyVersion);
    const schema: BodySchemaName = isError
      ? 'ErrorInformationObject'
      : resource === 'parties'
        ? 'PartiesTypeIDPutResponse'
        : 'ParticipantsTypeIDPutResponse';
    parseBody(request, facts.bodyVersion, schema);
    const route = `${resource}_put${isError ? '_error' : ''}`;
    if (resource === 'parties' && facts.destination !== undefined)
      admission.callbackArrived(
        callbackKey(request.params.type, request.params.id, request.params.subId, facts.destination),
      );
    metrics.observeStage('validation', started);
    metrics.ingress(route, 200, request.params.subId !== undefined);
    reply.code(200).send();
    // The original's putParties domain timer ends with success false when the callback could not be
    // forwarded (the error callback to its source): the watched ports note that.
    const outcome = { errorCallback: false };
    const running = forwardCallback(watchedPorts(outcome), {
      resource,
      party: partyOf(request.params),
      isError,
      source: facts.source,
      destination: facts.destination,
      version: facts.version,
      headers: request.headers,
      body: request.body as Buffer,
      proxy: ports.proxy && proxyHeaderOf(request.headers),
    });
    metrics.domain(route, running, () => outcome.errorCallback);
    track(running);
  };

  /**
   * GET|POST|PUT|DELETE /participants/{Type}/{ID}[/{SubId}] (the original's src/api/participants): 202
   * (PUT: 200), then the flow; the requester is checked in the flow (3200 callback), except for POST,
   * which the original refuses synchronously (400 3200).
   */
  const participantRequest =
    (method: 'GET' | 'POST' | 'PUT' | 'DELETE') => async (request: PartyRequest, reply: FastifyReply) => {
      const started = performance.now();
      const facts = headersOf(request, method, 'participants');
      const withBody = method === 'POST' || method === 'PUT';
      checkPath(request, withBody ? facts.bodyVersion : facts.version);
      let fspId: string | undefined;
      let currency = method === 'GET' ? checkCurrency(request.query.currency) : undefined;
      if (withBody) {
        const schema = method === 'POST' ? 'ParticipantsTypeIDSubIDPostRequest' : 'ParticipantsTypeIDPutResponse';
        const body = parseBody(request, facts.bodyVersion, schema) as { fspId: string; currency?: string };
        fspId = body.fspId;
        currency = body.currency;
      }
      let deferred: AlsError | undefined;
      if (method === 'POST') {
        try {
          const participant = await ports.participant(facts.source);
          if (!participant?.isActive) throw new AlsError('SOURCE_NOT_FOUND');
        } catch (error) {
          if (!(error instanceof UpstreamError)) throw error;
          deferred = new AlsError('SWITCH_FAILED', { reason: error.reason });
        }
      }
      const party = partyOf(request.params);
      const outcome = { errorCallback: false };
      return accept(
        reply,
        `participants_${method.toLowerCase()}`,
        method === 'PUT' ? 200 : 202,
        started,
        deferred,
        { resource: 'participants', party, facts, request },
        () =>
          handleParticipant(watchedPorts(outcome), {
            method,
            party,
            currency,
            source: facts.source,
            destination: facts.destination,
            version: facts.version,
            headers: request.headers,
            ...(withBody ? { body: request.body as Buffer, fspId } : {}),
            ...(method === 'DELETE' ? { checkDeleteOwner: deps.checkDeleteOwner === true } : {}),
          }),
        outcome,
      );
    };

  const postBatch = async (request: FastifyRequest, reply: FastifyReply) => {
    const started = performance.now();
    const facts = headersOf(request, 'POST', 'participants');
    const body = parseBody(request, facts.bodyVersion, 'ParticipantsPostRequest') as {
      requestId: string;
      partyList: { partyIdType: string; partyIdentifier: string; partySubIdOrType?: string; fspId?: string }[];
      currency?: string;
    };
    // The original answers 200 and checks the requester and each entry's type in the flow (src/api/participants.js).
    metrics.observeStage('validation', started);
    metrics.ingress('participants_batch', 200);
    reply.code(200).send();
    const outcome = { errorCallback: false };
    const running = handleBatch(
      watchedPorts(outcome),
      { request: deps.serialisers.batchRequest, result: deps.serialisers.batchResult },
      {
        requestId: body.requestId,
        partyList: body.partyList,
        currency: body.currency,
        source: facts.source,
        version: facts.version,
        headers: request.headers,
      },
      batchTypes(facts.bodyVersion),
    );
    metrics.domain('participants_batch', running, () => outcome.errorCallback);
    track(running);
    return { done: running };
  };

  const batchTypes = (version: FspiopVersion): ReadonlySet<string> =>
    extraTypes.size === 0 ? schemas.partyIdTypes[version] : new Set([...schemas.partyIdTypes[version], ...extraTypes]);

  /** PUT /participants/{ID}[/error] (the batch callbacks): the original answers 501 Not implemented. */
  const notImplemented = async () => {
    throw new AlsError('NOT_IMPLEMENTED');
  };

  for (const suffix of ['', '/:subId']) {
    app.get(`/parties/:type/:id${suffix}`, admitted('parties_get', getParties));
    app.put(`/parties/:type/:id${suffix}`, putCallback('parties', false));
    app.put(`/parties/:type/:id${suffix}/error`, putCallback('parties', true));
    app.get(`/participants/:type/:id${suffix}`, admitted('participants_get', participantRequest('GET')));
    app.post(`/participants/:type/:id${suffix}`, admitted('participants_post', participantRequest('POST')));
    app.delete(`/participants/:type/:id${suffix}`, admitted('participants_delete', participantRequest('DELETE')));
    app.put(`/participants/:type/:id${suffix}`, admitted('participants_put', participantRequest('PUT')));
    app.put(`/participants/:type/:id${suffix}/error`, putCallback('participants', true));
  }
  app.post('/participants', admitted('participants_batch', postBatch));
  app.put('/participants/:requestId', notImplemented);
  app.put('/participants/:requestId/error', notImplemented);
  if (deps.clearEndpointCache) {
    const clear = deps.clearEndpointCache;
    app.delete('/endpointcache', async (_request, reply) => {
      clear();
      return reply.code(202).send();
    });
  }
}

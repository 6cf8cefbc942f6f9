import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Resource } from '../discovery/endpoints.js';
import { sendErrorCallback } from '../discovery/failures.js';
import { handleBatch, handleParticipant, sendBatchError } from '../discovery/participants.js';
import { forwardCallback, lookUpParty } from '../discovery/parties.js';
import { type DiscoveryPorts, type PartyRef, UpstreamError } from '../discovery/types.js';
import { AlsError } from '../fspiop/errors.js';
import { checkHeaders, checkSourceHeader, type IngressFacts } from '../fspiop/ingress.js';
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

/** The original's OpenAPI pattern of an {ID} (api-swagger.yaml components/parameters/ID), checked decoded. */
const idPattern = /^[^\s{}]+$/u;

/** {ID} as the original's OpenAPI definition checks it: maxLength first, then the pattern (ajv's order). */
function checkId(id: string): void {
  if (id.length > maxPartyIdLength) throw new AlsError('PATH_PARAM_TOO_LONG', { param: 'ID', limit: maxPartyIdLength });
  if (!idPattern.test(id))
    throw new AlsError('PARAM_INVALID', { path: '/path/ID', reason: 'must match pattern "^[^\\s{}]+$"' });
}

interface PartyParams {
  type: string;
  id: string;
  subId?: string;
}

/** The background work of an accepted request (wrapped: an async handler would otherwise await it). */
interface Accepted {
  readonly done: Promise<void>;
  /** GET /parties: the payee's callback that ends the lookup, unless the ALS answered with an error callback. */
  readonly callback?: { readonly key: string; readonly outcome: Outcome };
}

/**
 * What one accepted request's flow did: sent anything to an FSP (a forward, a callback), or its own error
 * callback (sent or failed), or ended where the original sends nothing (a PUT from an unknown source, a
 * proxy's error held back). None of these: it ended without a callback, which the routes make good.
 */
interface Outcome {
  errorCallback: boolean;
  sent: boolean;
  silent: boolean;
}

const newOutcome = (errorCallback = false): Outcome => ({ errorCallback, sent: false, silent: false });

/** The trace id of a request's traceparent, for the log line of a request that lost its callback. */
function traceIdOf(headers: FastifyRequest['headers']): string | undefined {
  const traceparent = headers.traceparent;
  return typeof traceparent === 'string' ? traceparent.split('-')[1] : undefined;
}

type PartyRequest = FastifyRequest<{ Params: PartyParams; Querystring: { currency?: string } }>;

function partyOf(params: PartyParams): PartyRef {
  return { type: params.type, id: params.id, subId: params.subId };
}

const noop = () => {};

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
   * The path and query as the original's OpenAPI definition checks them (src/interface/api-swagger.yaml through
   * openapi-backend), synchronously and in its words: {Type} one of the enum, {ID} at most 128 characters of
   * `^[^\s{}]+$` (decoded: `%7B` is a brace), no query parameter but `?currency=` (ours, README differences).
   * An empty {ID} or {SubId} (`/parties/MSISDN/`) matches no route of the API definition.
   */
  const checkPath = (request: PartyRequest, version: FspiopVersion) => {
    const { id, subId } = request.params;
    if (id === '' || subId === '') throw new AlsError('UNKNOWN_URI', { method: request.method, path: request.url });
    checkType(request.params.type, version);
    checkId(id);
    if (request.url.includes('?')) checkQuery(request.query, request.method === 'GET');
  };

  /** Query parameters beyond `?currency=` (on a GET, the only one served) are refused as the original's 3103. */
  const checkQuery = (query: Record<string, unknown>, currencyServed: boolean) => {
    for (const name in query) {
      if (currencyServed && name === 'currency') continue;
      throw new AlsError('PARAM_TOO_MANY', { path: '/query', reason: 'must NOT have additional properties' });
    }
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
    // No body, or one that is not JSON: the original's validator sees an empty object (hapi's raw payload
    // plugin), so the answer names the first required member missing.
    let parsed: unknown = {};
    if (Buffer.isBuffer(raw) && raw.length > 0) {
      try {
        parsed = JSON.parse(raw.toString('utf8'));
      } catch {
        parsed = {};
      }
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
      const participant = await ports.directory.participant(facts.source);
      // Known is enough, active or not: the original's validateSourceFspHeader only fetches the participant.
      if (participant === undefined) throw new AlsError('UNKNOWN_SOURCE', { source: facts.source });
      return undefined;
    } catch (error) {
      if (!(error instanceof UpstreamError)) throw error;
      try {
        await ports.directory.endpoints(facts.source);
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
   * success false).
   */
  const watchedPorts = (outcome: Outcome): DiscoveryPorts => {
    const markSent = () => {
      outcome.sent = true;
    };
    return {
      ...ports,
      observe: {
        stage: ports.observe.stage,
        endToEnd: ports.observe.endToEnd,
        event(event) {
          if (event === 'error_callback_sent' || event === 'error_callback_failed') outcome.errorCallback = true;
          else if (event === 'unknown_source' || event === 'proxy_error_dropped') outcome.silent = true;
          ports.observe.event(event);
        },
      },
      egress: {
        send(request) {
          const sending = ports.egress.send(request);
          sending.then(markSent, noop);
          return sending;
        },
      },
    };
  };

  /**
   * Every accepted request ends in a callback (README "Limits and failures"): a flow that threw (a serialiser,
   * an answer of a shape nothing expected, a bug) or returned without sending anything is logged at warn with
   * its trace id, counted (`callback_missing`), and its requester gets the error callback the original's
   * catch-all sends, 2001.
   */
  const ensureCallback = (
    running: Promise<void>,
    outcome: Outcome,
    route: string,
    request: FastifyRequest,
    errorCallback: (watched: DiscoveryPorts, error: AlsError) => Promise<void>,
  ): Promise<void> => {
    const missing = (cause: unknown) => {
      app.log.warn(
        { traceId: traceIdOf(request.headers), route, url: request.url, err: cause },
        'accepted request ended without a callback; sending the error callback',
      );
      ports.observe.event('callback_missing');
      return errorCallback(watchedPorts(outcome), new AlsError('UNEXPECTED_FAILURE'));
    };
    return running.then(
      () => (outcome.sent || outcome.errorCallback || outcome.silent ? undefined : missing(undefined)),
      missing,
    );
  };

  const accept = (
    reply: FastifyReply,
    route: string,
    status: number,
    started: number,
    deferred: AlsError | undefined,
    target: {
      resource: Resource;
      party: PartyRef;
      facts: IngressFacts;
      request: FastifyRequest;
      /** The proxy a request from another scheme came through: its answers go there. */
      via?: string | undefined;
    },
    work: () => Promise<void>,
    outcome: Outcome,
  ): Accepted => {
    metrics.observeStage('validation', started);
    metrics.ingress(route, status, target.party.subId !== undefined);
    reply.code(status).send();
    const errorCallback = (watched: DiscoveryPorts, error: AlsError) =>
      sendErrorCallback(
        watched,
        {
          resource: target.resource,
          party: target.party,
          requester: target.via ?? target.facts.source,
          destination: target.via === undefined ? undefined : target.facts.source,
          version: target.facts.version,
          headers: target.request.headers,
        },
        error,
      );
    const running = ensureCallback(
      deferred ? errorCallback(watchedPorts(outcome), deferred) : work(),
      outcome,
      route,
      target.request,
      errorCallback,
    );
    metrics.domain(route, running, () => deferred !== undefined || outcome.errorCallback);
    track(running);
    return { done: running };
  };

  const getParties = async (request: PartyRequest, reply: FastifyReply) => {
    const started = performance.now();
    const facts = headersOf(request, 'GET', 'parties');
    checkPath(request, facts.version);
    const currency = checkCurrency(request.query.currency);
    checkSourceHeader(request.headers);
    // Inter-scheme discovery only (off: one property read): a source of another scheme via its proxy.
    const proxy = ports.interScheme && proxyHeaderOf(request.headers);
    const via = proxy === undefined ? undefined : await proxiedRequester(ports, facts.source, proxy);
    const deferred = via === undefined ? await checkSource(facts) : undefined;
    const party = partyOf(request.params);
    const outcome = newOutcome(deferred !== undefined);
    const accepted = accept(
      reply,
      'parties_get',
      202,
      started,
      deferred,
      { resource: 'parties', party, facts, request, via },
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
    const schema: BodySchemaName = isError
      ? 'ErrorInformationObject'
      : resource === 'parties'
        ? 'PartiesTypeIDPutResponse'
        : 'ParticipantsTypeIDPutResponse';
    // The original's validator checks the body before the path and headers (openapi-backend runs the
    // request body's schema first).
    parseBody(request, facts.bodyVersion, schema);
    checkPath(request, facts.bodyVersion);
    checkSourceHeader(request.headers);
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
    const outcome = newOutcome();
    const party = partyOf(request.params);
    const running = ensureCallback(
      forwardCallback(watchedPorts(outcome), {
        resource,
        party,
        isError,
        source: facts.source,
        destination: facts.destination,
        version: facts.version,
        headers: request.headers,
        body: request.body as Buffer,
        proxy: ports.interScheme && proxyHeaderOf(request.headers),
      }),
      outcome,
      route,
      request,
      (watched, error) =>
        sendErrorCallback(
          watched,
          { resource, party, requester: facts.source, version: facts.version, headers: request.headers },
          error,
        ),
    );
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
      let fspId: string | undefined;
      let currency: string | undefined;
      // The body first, then the path, query and FSPIOP-Source: the original's validator's order.
      if (withBody) {
        const schema = method === 'POST' ? 'ParticipantsTypeIDSubIDPostRequest' : 'ParticipantsTypeIDPutResponse';
        const body = parseBody(request, facts.bodyVersion, schema) as { fspId: string; currency?: string };
        fspId = body.fspId;
        currency = body.currency;
      }
      checkPath(request, withBody ? facts.bodyVersion : facts.version);
      if (method === 'GET') currency = checkCurrency(request.query.currency);
      checkSourceHeader(request.headers);
      let deferred: AlsError | undefined;
      if (method === 'POST') {
        try {
          const participant = await ports.directory.participant(facts.source);
          if (participant === undefined) throw new AlsError('SOURCE_NOT_FOUND');
        } catch (error) {
          if (!(error instanceof UpstreamError)) throw error;
          deferred = new AlsError('SWITCH_FAILED', { reason: error.reason });
        }
      }
      const party = partyOf(request.params);
      const outcome = newOutcome();
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
    if (request.url.includes('?')) checkQuery(request.query as Record<string, unknown>, false);
    checkSourceHeader(request.headers);
    // The original answers 200 and checks the requester and each entry's type in the flow (src/api/participants.js).
    metrics.observeStage('validation', started);
    metrics.ingress('participants_batch', 200);
    reply.code(200).send();
    const outcome = newOutcome();
    const batch = {
      requestId: body.requestId,
      partyList: body.partyList,
      currency: body.currency,
      source: facts.source,
      destination: facts.destination,
      version: facts.version,
      headers: request.headers,
    };
    const running = ensureCallback(
      handleBatch(
        watchedPorts(outcome),
        { request: deps.serialisers.batchRequest, result: deps.serialisers.batchResult },
        batch,
        batchTypes(facts.bodyVersion),
      ),
      outcome,
      'participants_batch',
      request,
      (watched, error) => sendBatchError(watched, batch, error),
    );
    metrics.domain('participants_batch', running, () => outcome.errorCallback);
    track(running);
    return { done: running };
  };

  const batchTypes = (version: FspiopVersion): ReadonlySet<string> =>
    extraTypes.size === 0 ? schemas.partyIdTypes[version] : new Set([...schemas.partyIdTypes[version], ...extraTypes]);

  /**
   * PUT /participants/{ID}[/error] (the batch callbacks): the original validates the request as any other
   * (headers, body, {ID}, FSPIOP-Source), then answers 501 Not implemented.
   */
  const notImplemented = (isError: boolean) => async (request: FastifyRequest<{ Params: { requestId: string } }>) => {
    const facts = headersOf(request, 'PUT', 'participants');
    parseBody(request, facts.bodyVersion, isError ? 'ErrorInformationObject' : 'ParticipantsIDPutResponse');
    checkId(request.params.requestId);
    if (request.url.includes('?')) checkQuery(request.query as Record<string, unknown>, false);
    checkSourceHeader(request.headers);
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
  app.put('/participants/:requestId', notImplemented(false));
  app.put('/participants/:requestId/error', notImplemented(true));
  if (deps.clearEndpointCache) {
    const clear = deps.clearEndpointCache;
    // The original's API definition asks this route for a Date header and nothing else.
    app.delete('/endpointcache', async (request, reply) => {
      if (request.headers.date === undefined)
        throw new AlsError('PARAM_MISSING', { path: '/header', reason: "must have required property 'date'" });
      clear();
      return reply.code(202).send();
    });
  }
}

/**
 * The original's routes on this port (src/api/routes.js), `*` a parameter segment: a path one of them matches
 * with another method is answered 405 (central-services-error-handling's onPreResponse looks up each of get,
 * post, put, patch and delete for the path and lists the matches in Allow).
 */
const originalRoutes: readonly (readonly [method: string, segments: readonly string[]])[] = [
  ['get', ['health']],
  ['put', ['participants', '*', 'error']],
  ['put', ['participants', '*']],
  ['put', ['participants', '*', '*', 'error']],
  ['put', ['participants', '*', '*', '*', 'error']],
  ['get', ['participants', '*', '*', '*']],
  ['put', ['participants', '*', '*', '*']],
  ['post', ['participants', '*', '*', '*']],
  ['delete', ['participants', '*', '*', '*']],
  ['get', ['participants', '*', '*']],
  ['put', ['participants', '*', '*']],
  ['post', ['participants', '*', '*']],
  ['delete', ['participants', '*', '*']],
  ['post', ['participants']],
  ['get', ['parties', '*', '*']],
  ['put', ['parties', '*', '*']],
  ['put', ['parties', '*', '*', 'error']],
  ['get', ['parties', '*', '*', '*']],
  ['put', ['parties', '*', '*', '*']],
  ['put', ['parties', '*', '*', '*', 'error']],
  ['delete', ['endpointcache']],
];

const matchOrder = ['get', 'post', 'put', 'patch', 'delete'];

/** The methods the original serves at `url`'s path, in its Allow order; empty when it has no such path. */
export function allowedMethods(url: string): string[] {
  const query = url.indexOf('?');
  const segments = (query === -1 ? url : url.slice(0, query)).split('/').slice(1);
  const allowed: string[] = [];
  for (const method of matchOrder) {
    const served = originalRoutes.some(
      ([m, route]) =>
        m === method &&
        route.length === segments.length &&
        route.every((part, i) => (part === '*' ? segments[i] !== '' : part === segments[i])),
    );
    if (served) allowed.push(method);
  }
  return allowed;
}

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
}

interface PartyParams {
  type: string;
  id: string;
  subId?: string;
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

  /** An empty {ID} or {SubId} (`/parties/MSISDN/`) matches no route of the API definition. */
  const checkPath = (request: PartyRequest, version: FspiopVersion) => {
    const { id, subId } = request.params;
    if (id === '' || subId === '') throw new AlsError('UNKNOWN_URI', { method: request.method, path: request.url });
    checkType(request.params.type, version);
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
   * cannot be asked, the request is accepted and answered with one error callback instead of the
   * original's synchronous 500.
   */
  const checkSource = async (facts: IngressFacts): Promise<AlsError | undefined> => {
    try {
      const participant = await ports.participant(facts.source);
      if (!participant?.isActive) throw new AlsError('UNKNOWN_SOURCE', { source: facts.source });
      return undefined;
    } catch (error) {
      if (error instanceof UpstreamError) return new AlsError('SWITCH_FAILED', { reason: error.reason });
      throw error;
    }
  };

  const accept = (
    reply: FastifyReply,
    route: string,
    status: number,
    started: number,
    deferred: AlsError | undefined,
    target: { resource: Resource; party: PartyRef; facts: IngressFacts; request: FastifyRequest },
    work: () => Promise<void>,
  ) => {
    metrics.observeStage('validation', started);
    metrics.ingress(route, status);
    reply.code(status).send();
    if (deferred) {
      track(
        sendErrorCallback(
          ports,
          {
            resource: target.resource,
            party: target.party,
            requester: target.facts.source,
            version: target.facts.version,
            headers: target.request.headers,
          },
          deferred,
        ),
      );
    } else {
      track(work());
    }
  };

  const getParties = async (request: PartyRequest, reply: FastifyReply) => {
    const started = performance.now();
    const facts = checkHeaders('GET', 'parties', request.headers, ports.hubVersion);
    checkPath(request, facts.version);
    // Inter-scheme discovery only (off: one property read): a source of another scheme via its proxy.
    const proxy = ports.proxy && proxyHeaderOf(request.headers);
    const via = proxy === undefined ? undefined : await proxiedRequester(ports, facts.source, proxy);
    const deferred = via === undefined ? await checkSource(facts) : undefined;
    const party = partyOf(request.params);
    accept(reply, 'parties_get', 202, started, deferred, { resource: 'parties', party, facts, request }, () =>
      lookUpParty(ports, {
        party,
        currency: request.query.currency,
        source: facts.source,
        requester: via,
        proxy,
        destination: facts.destination,
        version: facts.version,
        headers: request.headers,
      }),
    );
  };

  const putCallback = (resource: Resource, isError: boolean) => async (request: PartyRequest, reply: FastifyReply) => {
    const started = performance.now();
    const facts = checkHeaders('PUT', resource, request.headers, ports.hubVersion);
    checkPath(request, facts.bodyVersion);
    const schema: BodySchemaName = isError
      ? 'ErrorInformationObject'
      : resource === 'parties'
        ? 'PartiesTypeIDPutResponse'
        : 'ParticipantsTypeIDPutResponse';
    parseBody(request, facts.bodyVersion, schema);
    const route = `${resource}_put${isError ? '_error' : ''}`;
    metrics.observeStage('validation', started);
    metrics.ingress(route, 200);
    reply.code(200).send();
    track(
      forwardCallback(ports, {
        resource,
        party: partyOf(request.params),
        isError,
        source: facts.source,
        destination: facts.destination,
        version: facts.version,
        headers: request.headers,
        body: request.body as Buffer,
        proxy: ports.proxy && proxyHeaderOf(request.headers),
      }),
    );
  };

  /**
   * GET|POST|PUT|DELETE /participants/{Type}/{ID}[/{SubId}] (the original's src/api/participants): 202
   * (PUT: 200), then the flow; the requester is checked in the flow (3200 callback), except for POST,
   * which the original refuses synchronously (400 3200).
   */
  const participantRequest =
    (method: 'GET' | 'POST' | 'PUT' | 'DELETE') => async (request: PartyRequest, reply: FastifyReply) => {
      const started = performance.now();
      const facts = checkHeaders(method, 'participants', request.headers, ports.hubVersion);
      const withBody = method === 'POST' || method === 'PUT';
      checkPath(request, withBody ? facts.bodyVersion : facts.version);
      let fspId: string | undefined;
      let currency = method === 'GET' ? request.query.currency : undefined;
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
      accept(
        reply,
        `participants_${method.toLowerCase()}`,
        method === 'PUT' ? 200 : 202,
        started,
        deferred,
        { resource: 'participants', party, facts, request },
        () =>
          handleParticipant(ports, {
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
      );
    };

  const postBatch = async (request: FastifyRequest, reply: FastifyReply) => {
    const started = performance.now();
    const facts = checkHeaders('POST', 'participants', request.headers, ports.hubVersion);
    const body = parseBody(request, facts.bodyVersion, 'ParticipantsPostRequest') as {
      requestId: string;
      partyList: { partyIdType: string; partyIdentifier: string; partySubIdOrType?: string; fspId?: string }[];
      currency?: string;
    };
    // The original answers 200 and checks the requester and each entry's type in the flow (src/api/participants.js).
    metrics.observeStage('validation', started);
    metrics.ingress('participants_batch', 200);
    reply.code(200).send();
    track(
      handleBatch(
        ports,
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
      ),
    );
  };

  const batchTypes = (version: FspiopVersion): ReadonlySet<string> =>
    extraTypes.size === 0 ? schemas.partyIdTypes[version] : new Set([...schemas.partyIdTypes[version], ...extraTypes]);

  /** PUT /participants/{ID}[/error] (the batch callbacks): the original answers 501 Not implemented. */
  const notImplemented = async () => {
    throw new AlsError('NOT_IMPLEMENTED');
  };

  for (const suffix of ['', '/:subId']) {
    app.get(`/parties/:type/:id${suffix}`, getParties);
    app.put(`/parties/:type/:id${suffix}`, putCallback('parties', false));
    app.put(`/parties/:type/:id${suffix}/error`, putCallback('parties', true));
    app.get(`/participants/:type/:id${suffix}`, participantRequest('GET'));
    app.post(`/participants/:type/:id${suffix}`, participantRequest('POST'));
    app.delete(`/participants/:type/:id${suffix}`, participantRequest('DELETE'));
    app.put(`/participants/:type/:id${suffix}`, participantRequest('PUT'));
    app.put(`/participants/:type/:id${suffix}/error`, putCallback('participants', true));
  }
  app.post('/participants', postBatch);
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

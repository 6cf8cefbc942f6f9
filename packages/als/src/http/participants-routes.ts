import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { handleParticipant } from '../discovery/participants.js';
import { UpstreamError } from '../discovery/types.js';
import { AlsError } from '../fspiop/errors.js';
import { checkSourceHeader } from '../fspiop/ingress.js';
import type { FspiopRouteContext } from './fspiop-accept.js';
import { checkCurrency, checkPath, headersOf, type PartyRequest, parseBody, partyOf } from './fspiop-checks.js';

/**
 * GET|POST|PUT|DELETE /participants/{Type}/{ID}[/{SubId}] (the original's src/api/participants): 202
 * (PUT: 200), then the flow; the requester is checked in the flow (3200 callback), except for POST,
 * which the original refuses synchronously (400 3200). And the callback PUT /participants/…/error.
 */
export const participantsRoutes: FastifyPluginAsync<{ context: FspiopRouteContext }> = async (app, { context }) => {
  const { ports, schemas } = context.deps;
  const checkDeleteOwner = context.deps.checkDeleteOwner === true;

  const participantRequest =
    (method: 'GET' | 'POST' | 'PUT' | 'DELETE') => async (request: PartyRequest, reply: FastifyReply) => {
      const started = performance.now();
      const facts = headersOf(request, method, 'participants', ports.hubVersion, ports.apiType);
      const withBody = method === 'POST' || method === 'PUT';
      let fspId: string | undefined;
      let currency: string | undefined;
      // The body first, then the path, query and FSPIOP-Source: the original's validator's order.
      if (withBody) {
        const schema = method === 'POST' ? 'ParticipantsTypeIDSubIDPostRequest' : 'ParticipantsTypeIDPutResponse';
        const body = parseBody(request, schemas, facts.bodyVersion, schema) as { fspId: string; currency?: string };
        fspId = body.fspId;
        currency = body.currency;
      }
      checkPath(request, withBody ? facts.bodyVersion : facts.version, context.types);
      if (method === 'GET') currency = checkCurrency(request.query.currency, schemas.currencies);
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
      return context.accept(
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
            ...(method === 'DELETE' ? { checkDeleteOwner } : {}),
          }),
      );
    };

  for (const suffix of ['', '/:subId']) {
    const path = `/participants/:type/:id${suffix}`;
    app.get(path, context.admitted('participants_get', participantRequest('GET')));
    app.post(path, context.admitted('participants_post', participantRequest('POST')));
    app.delete(path, context.admitted('participants_delete', participantRequest('DELETE')));
    app.put(path, context.admitted('participants_put', participantRequest('PUT')));
    app.put(`${path}/error`, context.callbackRoute('participants', true));
  }
};

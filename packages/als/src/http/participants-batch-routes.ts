import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { handleBatch, sendBatchError } from '../discovery/participants.js';
import { AlsError } from '../fspiop/errors.js';
import { checkSourceHeader } from '../fspiop/ingress.js';
import type { FspiopRouteContext } from './fspiop-accept.js';
import { checkId, checkQuery, headersOf, parseBody } from './fspiop-checks.js';

/**
 * POST /participants (a batch of parties to register: 200, then the oracle's batch and the callback) and its
 * callbacks PUT /participants/{ID}[/error], which the original validates as any other request and then
 * answers 501 Not implemented.
 */
export const participantsBatchRoutes: FastifyPluginAsync<{ context: FspiopRouteContext }> = async (
  app,
  { context },
) => {
  const { ports, schemas, metrics, serialisers } = context.deps;
  const codecs = { request: serialisers.batchRequest, result: serialisers.batchResult };

  const postBatch = async (request: FastifyRequest, reply: FastifyReply) => {
    const started = performance.now();
    const facts = headersOf(request, 'POST', 'participants', ports.hubVersion, ports.apiType);
    const body = parseBody(request, schemas, facts.bodyVersion, 'ParticipantsPostRequest') as {
      requestId: string;
      partyList: { partyIdType: string; partyIdentifier: string; partySubIdOrType?: string; fspId?: string }[];
      currency?: string;
    };
    if (request.url.includes('?')) checkQuery(request.query as Record<string, unknown>, false);
    checkSourceHeader(request.headers);
    // The original answers 200 and checks the requester and each entry's type in the flow (src/api/participants.js).
    const validated = metrics.observeStage('validation', started);
    metrics.ingress('participants_batch', 200);
    reply.code(200).send();
    const batch = {
      requestId: body.requestId,
      partyList: body.partyList,
      currency: body.currency,
      source: facts.source,
      destination: facts.destination,
      version: facts.version,
      headers: request.headers,
    };
    const end = context.run(
      'participants_batch',
      request,
      handleBatch(ports, codecs, batch, context.types.of(facts.bodyVersion)),
      (error) => sendBatchError(ports, batch, error),
      validated,
    );
    return { end };
  };

  const notImplemented = (isError: boolean) => async (request: FastifyRequest<{ Params: { requestId: string } }>) => {
    const facts = headersOf(request, 'PUT', 'participants', ports.hubVersion, ports.apiType);
    parseBody(request, schemas, facts.bodyVersion, isError ? 'ErrorInformationObject' : 'ParticipantsIDPutResponse');
    checkId(request.params.requestId);
    if (request.url.includes('?')) checkQuery(request.query as Record<string, unknown>, false);
    checkSourceHeader(request.headers);
    throw new AlsError('NOT_IMPLEMENTED');
  };

  app.post('/participants', context.admitted('participants_batch', postBatch));
  app.put('/participants/:requestId', notImplemented(false));
  app.put('/participants/:requestId/error', notImplemented(true));
};

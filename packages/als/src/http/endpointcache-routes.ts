import type { FastifyPluginAsync } from 'fastify';
import { AlsError } from '../fspiop/errors.js';

/**
 * DELETE /endpointcache (the original serves it on the API port): empties the cache of central-ledger's
 * answers. Its API definition asks for a Date header and nothing else, which a route schema checks in the
 * original's words: ajv's own message, under 3102 at `/header`.
 */
export const endpointCacheRoutes: FastifyPluginAsync<{ clear: () => void }> = async (app, { clear }) => {
  app.delete(
    '/endpointcache',
    {
      schema: { headers: { type: 'object', required: ['date'] } },
      schemaErrorFormatter: (errors) =>
        new AlsError('PARAM_MISSING', { path: '/header', reason: errors[0]?.message ?? 'is not valid' }),
    },
    async (_request, reply) => {
      clear();
      return reply.code(202).send();
    },
  );
};

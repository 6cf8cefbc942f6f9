import type { FastifyInstance } from 'fastify';
import { AlsError } from '../fspiop/errors.js';
import type { ProxyJws } from '../proxy-jws-setup.js';

/**
 * JWS validation of incoming requests (ALS_JWS_VALIDATE=on), as the original's onPostAuth extension
 * (src/plugins.js): a request it applies to with a bad or missing FSPIOP-Signature is answered 400 3105
 * with the validator's message, before any work. Registered only when on: with it off no hook runs.
 * A body that is not JSON is left to the route, which answers it 3101.
 */
export function registerJwsValidation(app: FastifyInstance, jws: NonNullable<ProxyJws['jws']>): void {
  app.addHook('preHandler', async (request) => {
    const path = request.url.split('?')[0] ?? '';
    if (!jws.applies(request.method, path)) return;
    let body: unknown;
    const raw = request.body;
    if (Buffer.isBuffer(raw) && raw.length > 0) {
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        return;
      }
    }
    try {
      await jws.validate(request.headers, body);
    } catch (error) {
      throw new AlsError('INVALID_SIGNATURE', { reason: error instanceof Error ? error.message : String(error) });
    }
  });
}

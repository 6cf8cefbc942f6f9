import type { FastifyInstance } from 'fastify';
import type { HeaderMap } from '../discovery/types.js';
import { AlsError } from '../fspiop/errors.js';

/**
 * What the hook needs of the JWS validation proxy-jws-setup.ts builds (its ProxyJws['jws']): declared here, so
 * http/ does not import the wiring that sits above it.
 */
export interface IncomingJwsCheck {
  readonly applies: (method: string, path: string) => boolean;
  readonly validate: (headers: HeaderMap, body: unknown) => Promise<void>;
}

/**
 * JWS validation of incoming requests (ALS_JWS_VALIDATE=on), as the original's onPostAuth extension
 * (src/plugins.js): a request it applies to with a bad or missing FSPIOP-Signature is answered 400 3105
 * with the validator's message, before any work. Registered only when on: with it off no hook runs.
 * A body that is not JSON is left to the route, which answers it 3101.
 */
export function registerJwsValidation(app: FastifyInstance, jws: IncomingJwsCheck): void {
  // A callback hook, not an async one: the requests it does not apply to (every GET) pass without a promise.
  app.addHook('preHandler', (request, _reply, done) => {
    const query = request.url.indexOf('?');
    if (!jws.applies(request.method, query === -1 ? request.url : request.url.slice(0, query))) return done();
    let body: unknown;
    const raw = request.body;
    if (Buffer.isBuffer(raw) && raw.length > 0) {
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        return done();
      }
    }
    jws.validate(request.headers, body).then(
      () => done(),
      (error: unknown) =>
        done(new AlsError('INVALID_SIGNATURE', { reason: error instanceof Error ? error.message : String(error) })),
    );
  });
}

import type { FastifyInstance } from 'fastify';
import { endpointCacheRoutes } from './endpointcache-routes.js';
import { FspiopRouteContext, type FspiopRouteDeps } from './fspiop-accept.js';
import { PartyIdTypes } from './fspiop-checks.js';
import { participantsBatchRoutes } from './participants-batch-routes.js';
import { participantsRoutes } from './participants-routes.js';
import { partiesRoutes } from './parties-routes.js';

export type { FspiopRouteDeps } from './fspiop-accept.js';
export { maxPartyIdLength } from './fspiop-checks.js';

/**
 * The FSPIOP routes of the reference, one plugin per resource: /parties, /participants/{Type}/{ID},
 * the /participants batch, and DELETE /endpointcache. 202 (or 200) first, the work after it
 * (fspiop-accept.ts); the checks before it in the original's order and words (fspiop-checks.ts).
 */
export function registerFspiopRoutes(app: FastifyInstance, deps: FspiopRouteDeps): void {
  const types = new PartyIdTypes(deps.schemas, deps.extraPartyIdTypes ?? new Set<string>());
  const context = new FspiopRouteContext(deps, types, app.log);
  app.register(partiesRoutes, { context });
  app.register(participantsRoutes, { context });
  app.register(participantsBatchRoutes, { context });
  if (deps.clearEndpointCache) app.register(endpointCacheRoutes, { clear: deps.clearEndpointCache });
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

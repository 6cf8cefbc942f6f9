import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import Fastify from 'fastify';
import type { HealthProbe } from '../upstream/health-probe.js';
import { type AdminRouteDeps, registerAdminRoutes } from './admin-routes.js';
import { quiet } from './api-app.js';
import { registerObserveRoutes } from './observe-routes.js';

export interface AdminAppParts extends AdminRouteDeps {
  readonly bodyLimitBytes: number;
  readonly health: HealthProbe;
  readonly service: { readonly startedAt: Date; readonly version: string };
  readonly loggerInstance: FastifyBaseLogger;
}

/** The admin API (the oracle registry, /health, /metrics, profiles), built without listening (main.ts listens). */
export function buildAdminApp(parts: AdminAppParts): FastifyInstance {
  const admin = Fastify({
    loggerInstance: parts.loggerInstance,
    logController: quiet(),
    bodyLimit: parts.bodyLimitBytes,
  });
  // Bodies reach the routes as bytes: admin-validation.ts parses them with the original's words for each fault.
  admin.removeAllContentTypeParsers();
  admin.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  registerObserveRoutes(admin, parts.metrics, parts.service, parts.health);
  registerAdminRoutes(admin, parts);
  return admin;
}

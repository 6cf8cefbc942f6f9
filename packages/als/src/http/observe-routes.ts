import { healthReport } from '@mojafast/service-kit';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { Registry } from 'prom-client';
import type { HealthProbe } from '../upstream/health-probe.js';

/**
 * GET /health in the original's shape (the service kit's healthReport), `downStatus` while a service is
 * DOWN: 503 as the original's API and admin servers answer (src/api/health.js), 502 as its timeout
 * handler's monitoring server (central-services-health defaultHealthHandler).
 */
const healthRoutes: FastifyPluginAsync<{
  startedAt: Date;
  version: string;
  health?: HealthProbe | undefined;
  downStatus: number;
}> = async (app, { startedAt, version, health, downStatus }) => {
  app.get('/health', async (_request, reply) => {
    const report = healthReport(startedAt, version, health ? await health.services() : undefined);
    return reply.code(report.statusCode === 200 ? 200 : downStatus).send(report.body);
  });
};

/** GET /metrics: the registry in Prometheus text. */
const metricsRoutes: FastifyPluginAsync<{ registry: Registry }> = async (app, { registry }) => {
  app.get('/metrics', async (_request, reply) => {
    const text = await registry.metrics();
    return reply.header('content-type', registry.contentType).send(text);
  });
};

/** /health and /metrics, each its own plugin, on every port of the process. */
export function registerObserveRoutes(
  app: FastifyInstance,
  registry: Registry,
  service: { readonly startedAt: Date; readonly version: string },
  health?: HealthProbe,
  downStatus = 503,
): void {
  app.register(healthRoutes, { startedAt: service.startedAt, version: service.version, health, downStatus });
  app.register(metricsRoutes, { registry });
}

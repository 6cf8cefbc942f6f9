import { healthReport } from '@mojafast/service-kit';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { Registry } from 'prom-client';
import type { HealthProbe } from '../upstream/health-probe.js';

/** GET /health in the original's shape (the service kit's healthReport), 503 while a service is DOWN. */
const healthRoutes: FastifyPluginAsync<{ startedAt: Date; version: string; health?: HealthProbe | undefined }> = async (
  app,
  { startedAt, version, health },
) => {
  app.get('/health', async (_request, reply) => {
    const report = healthReport(startedAt, version, health ? await health.services() : undefined);
    return reply.code(report.statusCode).send(report.body);
  });
};

/** GET /metrics: the registry in Prometheus text. */
const metricsRoutes: FastifyPluginAsync<{ registry: Registry }> = async (app, { registry }) => {
  app.get('/metrics', async (_request, reply) => {
    const text = await registry.metrics();
    return reply.header('content-type', registry.contentType).send(text);
  });
};

/** /health and /metrics, each its own plugin, on both ports. */
export function registerObserveRoutes(
  app: FastifyInstance,
  registry: Registry,
  service: { readonly startedAt: Date; readonly version: string },
  health?: HealthProbe,
): void {
  app.register(healthRoutes, { startedAt: service.startedAt, version: service.version, health });
  app.register(metricsRoutes, { registry });
}

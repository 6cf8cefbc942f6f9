import { healthReport } from '@mojafast/service-kit';
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import type { HealthProbe } from '../upstream/health-probe.js';

/**
 * GET /health in the original's shape (the service kit's healthReport), 503 while a service is DOWN; and
 * GET /metrics (Prometheus text).
 */
export function registerObserveRoutes(
  app: FastifyInstance,
  registry: Registry,
  startedAt: Date,
  health?: HealthProbe,
): void {
  app.get('/health', async (_request, reply) => {
    const report = healthReport(startedAt, health ? await health.services() : undefined);
    return reply.code(report.statusCode).send(report.body);
  });
  app.get('/metrics', async (_request, reply) => {
    const text = await registry.metrics();
    return reply.header('content-type', registry.contentType).send(text);
  });
}

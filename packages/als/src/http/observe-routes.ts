import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import type { HealthProbe } from '../upstream/health-probe.js';

/**
 * GET /health in the original's shape (central-services-shared HealthCheck.getHealth: status, uptime,
 * startTime, versionNumber, services), 503 while a service is DOWN; and GET /metrics (Prometheus text).
 */
export function registerObserveRoutes(
  app: FastifyInstance,
  registry: Registry,
  startedAt: Date,
  health?: HealthProbe,
): void {
  app.get('/health', async (_request, reply) => {
    const services = health ? await health.services() : [];
    const down = services.some((s) => s.status !== 'OK');
    return reply.code(down ? 503 : 200).send({
      status: down ? 'DOWN' : 'OK',
      uptime: process.uptime(),
      startTime: startedAt.toISOString(),
      versionNumber: '0.0.0',
      ...(health ? { services } : {}),
    });
  });
  app.get('/metrics', async (_request, reply) => {
    const text = await registry.metrics();
    return reply.header('content-type', registry.contentType).send(text);
  });
}

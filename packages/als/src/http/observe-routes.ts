import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';

/** GET /health (the original's shape, without its dependency probes) and GET /metrics (Prometheus text). */
export function registerObserveRoutes(app: FastifyInstance, registry: Registry, startedAt: Date): void {
  app.get('/health', async () => ({
    status: 'OK',
    uptime: process.uptime(),
    startTime: startedAt.toISOString(),
    versionNumber: '0.0.0',
  }));
  app.get('/metrics', async (_request, reply) => {
    const text = await registry.metrics();
    return reply.header('content-type', registry.contentType).send(text);
  });
}

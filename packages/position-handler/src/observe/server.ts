import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CpuProfiler } from '@mojafast/service-kit';
import type { Registry } from 'prom-client';

export interface Readiness {
  broker(): boolean;
  database(): Promise<boolean>;
}

export interface ObserveServer {
  readonly address: AddressInfo;
  close(): Promise<void>;
}

/** Our package's version, given as the original gives its own (versionNumber). */
const VERSION = '0.0.0';

/**
 * GET /health (200 when broker and database are ready, 503 otherwise, each sub-service reported in central-ledger's shape), GET /metrics, and
 * POST /admin/profile?seconds=N which answers with the path of the written .cpuprofile.
 */
export async function startObserveServer(
  host: string,
  port: number,
  registry: Registry,
  readiness: Readiness,
  profiler: CpuProfiler,
  defaultSeconds: number,
): Promise<ObserveServer> {
  const startTime = new Date().toISOString();
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const send = (status: number, type: string, body: string) => {
      res.writeHead(status, { 'content-type': type });
      res.end(body);
    };
    const json = (status: number, body: unknown) => send(status, 'application/json', JSON.stringify(body));
    const route = `${req.method} ${url.pathname}`;
    if (route === 'GET /health') {
      readiness
        .database()
        .catch(() => false)
        .then((database) => {
          const broker = readiness.broker();
          const ok = broker && database;
          // central-ledger's handler /health (src/api/root/handler.js: central-services-shared HealthCheck
          // with the datastore and broker sub-service checks of src/lib/healthCheck/subServiceHealth.js).
          json(ok ? 200 : 503, {
            status: ok ? 'OK' : 'DOWN',
            uptime: process.uptime(),
            startTime,
            versionNumber: VERSION,
            services: [
              { name: 'datastore', status: database ? 'OK' : 'DOWN' },
              { name: 'broker', status: broker ? 'OK' : 'DOWN' },
            ],
          });
        });
    } else if (route === 'GET /metrics') {
      registry.metrics().then(
        (text) => send(200, registry.contentType, text),
        (error: unknown) => send(500, 'text/plain', String(error)),
      );
    } else if (route === 'POST /admin/profile') {
      const seconds = Number(url.searchParams.get('seconds') ?? defaultSeconds);
      if (!Number.isInteger(seconds) || seconds < 1 || seconds > 600) {
        json(400, { error: 'seconds must be an integer from 1 to 600' });
        return;
      }
      profiler.profile(seconds).then(
        (file) => json(200, { file }),
        (error: unknown) => json(500, { error: String(error) }),
      );
    } else {
      json(404, { error: 'not found' });
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    address: server.address() as AddressInfo,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

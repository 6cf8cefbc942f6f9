import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { CpuProfiler } from './profiler.js';

export interface ServiceHealth {
  readonly name: string;
  readonly status: 'OK' | 'DOWN';
}

export interface HealthReport {
  readonly statusCode: 200 | 503;
  readonly body: {
    readonly status: 'OK' | 'DOWN';
    readonly uptime: number;
    readonly startTime: string;
    readonly versionNumber: string;
    readonly services?: readonly ServiceHealth[];
  };
}

/**
 * GET /health in the originals' shape (central-services-shared HealthCheck.getHealth: status, uptime,
 * startTime, versionNumber, services), 503 while a service is DOWN. `services` undefined: the key is left
 * out, as the original does for a process without sub-service checks. `versionNumber`: the service's package
 * version (packageVersion), as the originals report theirs.
 */
export function healthReport(
  startTime: Date,
  versionNumber: string,
  services?: readonly ServiceHealth[],
): HealthReport {
  const down = services?.some((service) => service.status !== 'OK') ?? false;
  return {
    statusCode: down ? 503 : 200,
    body: {
      status: down ? 'DOWN' : 'OK',
      uptime: process.uptime(),
      startTime: startTime.toISOString(),
      versionNumber,
      ...(services ? { services } : {}),
    },
  };
}

export interface ObserveServerOptions {
  readonly host: string;
  readonly port: number;
  readonly registry: Registry;
  /** /health's versionNumber: the service's package version (packageVersion). */
  readonly version: string;
  /** The sub-services /health reports, asked per request. */
  readonly services: () => Promise<readonly ServiceHealth[]>;
  /** POST <path>?seconds=N writes a CPU profile and answers its file. */
  readonly profile?: { readonly path: string; readonly profiler: CpuProfiler; readonly defaultSeconds: number };
}

export interface ObserveServer {
  readonly address: AddressInfo;
  close(): Promise<void>;
}

/**
 * A plain HTTP server for a service without a web framework of its own (the position handler): GET /health,
 * GET /metrics (Prometheus text) and, when given, POST of an on-demand CPU profile.
 */
export async function startObserveServer(options: ObserveServerOptions): Promise<ObserveServer> {
  const startTime = new Date();
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const send = (status: number, type: string, body: string) => {
      res.writeHead(status, { 'content-type': type });
      res.end(body);
    };
    const json = (status: number, body: unknown) => send(status, 'application/json', JSON.stringify(body));
    const route = `${req.method} ${url.pathname}`;
    if (route === 'GET /health') {
      options.services().then(
        (services) => {
          const report = healthReport(startTime, options.version, services);
          json(report.statusCode, report.body);
        },
        (error: unknown) => json(500, { error: String(error) }),
      );
    } else if (route === 'GET /metrics') {
      options.registry.metrics().then(
        (text) => send(200, options.registry.contentType, text),
        (error: unknown) => send(500, 'text/plain', String(error)),
      );
    } else if (options.profile && route === `POST ${options.profile.path}`) {
      const seconds = Number(url.searchParams.get('seconds') ?? options.profile.defaultSeconds);
      if (!Number.isInteger(seconds) || seconds < 1 || seconds > 600) {
        json(400, { error: 'seconds must be an integer from 1 to 600' });
        return;
      }
      options.profile.profiler.profile(seconds).then(
        (file) => json(200, { file }),
        (error: unknown) => json(500, { error: String(error) }),
      );
    } else {
      json(404, { error: 'not found' });
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
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

import type { HttpClient } from './http-client.js';

/** central-services-shared HealthCheckEnums: the names and states the original's /health reports. */
export type ServiceName = 'datastore' | 'participantEndpointService' | 'proxyCache';
export interface ServiceHealth {
  readonly name: ServiceName;
  readonly status: 'OK' | 'DOWN';
}

export interface HealthProbe {
  /** The services' health, probed at most once per interval; concurrent callers share one probe. */
  services(): Promise<readonly ServiceHealth[]>;
}

export interface HealthProbeOptions {
  readonly intervalMs: number;
  /** central-ledger's admin API: its GET /health must answer 200. */
  readonly switchEndpoint: string;
  /** false: central-ledger is not checked (a process that never calls it: the admin API, the timeout handler). */
  readonly centralLedger?: boolean;
  /** The oracle registry's database, when there is one (the original's datastore check). */
  readonly pingDatastore?: () => Promise<void>;
  /** The proxy cache's Redis, when inter-scheme discovery is on (the original's getProxyCacheHealth). */
  readonly pingProxyCache?: () => Promise<boolean>;
  /** A check that has not answered within this is DOWN (a pool waiting for a database never answers). */
  readonly timeoutMs: number;
  readonly now?: () => number;
}

/**
 * The sub-service checks of the original's GET /health (src/api/health.js: the datastore), plus the
 * central-ledger this ALS cannot answer without. A result is reused for intervalMs, so a probe costs one
 * round trip per interval, never one per request, and a lookup never waits on it.
 */
export function createHealthProbe(http: HttpClient, options: HealthProbeOptions): HealthProbe {
  const now = options.now ?? Date.now;
  let last: { at: number; services: readonly ServiceHealth[] } | undefined;
  let running: Promise<readonly ServiceHealth[]> | undefined;

  const centralLedger = async (): Promise<ServiceHealth> => {
    try {
      const { status } = await http.request(
        { url: `${options.switchEndpoint}/health`, method: 'GET', headers: { accept: 'application/json' } },
        'central-ledger',
      );
      return { name: 'participantEndpointService', status: status === 200 ? 'OK' : 'DOWN' };
    } catch {
      return { name: 'participantEndpointService', status: 'DOWN' };
    }
  };
  const datastore = async (ping: () => Promise<void>): Promise<ServiceHealth> => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error('timed out')), options.timeoutMs);
      timer.unref();
    });
    try {
      await Promise.race([ping(), timeout]);
      return { name: 'datastore', status: 'OK' };
    } catch {
      return { name: 'datastore', status: 'DOWN' };
    } finally {
      clearTimeout(timer);
    }
  };

  const proxyCache = async (ping: () => Promise<boolean>): Promise<ServiceHealth> => {
    try {
      return { name: 'proxyCache', status: (await ping()) ? 'OK' : 'DOWN' };
    } catch {
      return { name: 'proxyCache', status: 'DOWN' };
    }
  };

  const probe = async (): Promise<readonly ServiceHealth[]> => {
    // In the original's order (src/api/health.js): the datastore, then the proxy cache; ours last.
    const checks: Promise<ServiceHealth>[] = [];
    if (options.pingDatastore) checks.push(datastore(options.pingDatastore));
    if (options.pingProxyCache) checks.push(proxyCache(options.pingProxyCache));
    if (options.centralLedger ?? true) checks.push(centralLedger());
    const services = await Promise.all(checks);
    last = { at: now(), services };
    return services;
  };

  return {
    services() {
      if (last !== undefined && now() - last.at < options.intervalMs) return Promise.resolve(last.services);
      running ??= probe().finally(() => {
        running = undefined;
      });
      return running;
    },
  };
}

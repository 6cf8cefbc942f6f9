import type { ServiceHealth } from '@mojafast/service-kit';

export interface Readiness {
  broker(): boolean;
  database(): Promise<boolean>;
}

/**
 * The sub-services of the handler's /health, as central-ledger's handler reports them (src/api/root/handler.js:
 * central-services-shared HealthCheck with the datastore and broker checks of
 * src/lib/healthCheck/subServiceHealth.js). The server itself is the service kit's.
 */
export function handlerServices(readiness: Readiness): () => Promise<ServiceHealth[]> {
  return async () => {
    const database = await readiness.database().catch(() => false);
    const broker = readiness.broker();
    return [
      { name: 'datastore', status: database ? 'OK' : 'DOWN' },
      { name: 'broker', status: broker ? 'OK' : 'DOWN' },
    ];
  };
}

import type { ServiceHealth } from '@mojafast/service-kit';
import type { FailureSummary } from './error-class.js';
import type { StalledPartition } from './progress.js';

export interface Readiness {
  broker(): boolean;
  database(): Promise<boolean>;
  /** Partitions whose work has failed without progress for the configured time. */
  stalled?(): readonly StalledPartition[];
}

/** A stalled partition on /health: which one, for how long, and its last error (no stack or SQL: see the log). */
export interface PartitionHealth extends ServiceHealth {
  readonly status: 'DOWN';
  readonly topic: string;
  readonly partition: number;
  readonly stalledForSeconds: number;
  readonly failures: number;
  readonly lastError: FailureSummary;
}

/**
 * The sub-services of the handler's /health, as central-ledger's handler reports them (src/api/root/handler.js:
 * central-services-shared HealthCheck with the datastore and broker checks of
 * src/lib/healthCheck/subServiceHealth.js), then one DOWN entry per stalled partition: a database that answers
 * pings while every transaction of a partition fails (a dropped column) must not look healthy. The server
 * itself is the service kit's.
 */
export function handlerServices(readiness: Readiness): () => Promise<ServiceHealth[]> {
  return async () => {
    const database = await readiness.database().catch(() => false);
    const broker = readiness.broker();
    const partitions: PartitionHealth[] = (readiness.stalled?.() ?? []).map((stalled) => ({
      name: `partition ${stalled.topic}:${stalled.partition}`,
      status: 'DOWN',
      topic: stalled.topic,
      partition: stalled.partition,
      stalledForSeconds: Math.round(stalled.stalledForSeconds * 10) / 10,
      failures: stalled.failures,
      lastError: stalled.lastError,
    }));
    return [
      { name: 'datastore', status: database ? 'OK' : 'DOWN' },
      { name: 'broker', status: broker ? 'OK' : 'DOWN' },
      ...partitions,
    ];
  };
}

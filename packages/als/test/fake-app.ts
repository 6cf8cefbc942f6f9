import { createCpuProfiler, createLogger } from '@mojafast/service-kit';
import type { FastifyInstance } from 'fastify';
import { Registry } from 'prom-client';
import { type Config, type ConfigValues, loadConfig } from '../src/config/index.js';
import type { DiscoveryPorts } from '../src/discovery/types.js';
import { loadFspiopSchemas, shippedSchemas } from '../src/fspiop/schemas.js';
import { createSerialisers } from '../src/fspiop/serialisers.js';
import { buildAdminApp } from '../src/http/admin-app.js';
import { createAdmission } from '../src/http/admission.js';
import { buildApiApp } from '../src/http/api-app.js';
import { createInflight, type Inflight } from '../src/http/inflight.js';
import { createFailureReporter } from '../src/observe/failures.js';
import { createMetrics } from '../src/observe/metrics.js';
import { ORIGINAL_METRICS_DEFAULTS } from '../src/observe/original-metrics.js';
import { createMemoryOracleStore, createOracleRegistry } from '../src/upstream/oracle-registry.js';
import { fakeWorld, type World } from './fake-ports.js';

/** The ALS's two apps over fake ports (fake-ports.ts), built as main.ts builds them and not listening. */
export interface FakeAls {
  readonly app: FastifyInstance;
  readonly admin: FastifyInstance;
  /** What the flows see: change it to shape the scheme, read `sent` for what the Hub sent. */
  readonly world: World;
  readonly registry: Registry;
  readonly inflight: Inflight;
  readonly config: Config;
  close(): Promise<void>;
}

// The schemas are compiled once per file: they are the same for every app of it.
let schemas: ReturnType<typeof loadFspiopSchemas> | undefined;

/**
 * `payerfsp`, `payeefsp` and `payeefsp1` are participants with every endpoint (the names helpers.ts's
 * headers use). The codec is the service's (real bodies); everything else the flows reach is the world's.
 * `originalMetrics`: the original's metric names too, at their defaults (off unless asked: fewer series).
 */
export function buildFakeAls(
  options: { config?: Partial<ConfigValues>; world?: World; originalMetrics?: boolean } = {},
): FakeAls {
  const config = loadConfig({}, { logLevel: 'silent', ...options.config });
  const world = options.world ?? fakeWorld(['payerfsp', 'payeefsp', 'payeefsp1']);
  const serialisers = createSerialisers();
  const ports: DiscoveryPorts = {
    ...world.ports,
    codec: { ...serialisers, error: (information) => serialisers.error(information) },
  };
  schemas ??= loadFspiopSchemas(shippedSchemas, {});
  const loggerInstance = createLogger({ level: 'silent' });
  const registry = new Registry();
  const metrics = createMetrics(registry, options.originalMetrics ? ORIGINAL_METRICS_DEFAULTS : false);
  const failures = createFailureReporter(registry, loggerInstance);
  const admission = createAdmission(config.maxLookupsInFlight, config.lookupCallbackWaitMs);
  metrics.watchAdmission(() => admission);
  const inflight = createInflight();
  const health = { services: async () => [] };
  const service = { startedAt: new Date(), version: '0.0.0-test' };
  const app = buildApiApp({
    config,
    ports,
    schemas,
    serialisers,
    metrics,
    registry,
    failures,
    admission,
    health,
    service,
    loggerInstance,
    inflight,
    clearEndpointCache: () => undefined,
  });
  const admin = buildAdminApp({
    registry: createOracleRegistry(createMemoryOracleStore([]), { ttlMs: 0, maxStaleMs: 0 }),
    currencies: schemas.currencies,
    metrics: registry,
    profiler: createCpuProfiler({ directory: '', prefix: 'als' }),
    defaultProfileSeconds: config.profileSeconds,
    bodyLimitBytes: config.bodyLimitBytes,
    health,
    service,
    loggerInstance,
  });
  return {
    app,
    admin,
    world,
    registry,
    inflight,
    config,
    async close() {
      await Promise.all([app.close(), admin.close()]);
      admission.close();
      metrics.stop();
    },
  };
}

/** What the Hub sent for the request of `traceId` (its traceparent carries it), once the flows are done. */
export async function sentFor(als: FakeAls, traceId: string) {
  await als.inflight.idle();
  return als.world.sent.filter((sent) => sent.headers.traceparent?.includes(traceId));
}

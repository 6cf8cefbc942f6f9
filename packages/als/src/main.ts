import { fileURLToPath } from 'node:url';
import {
  type CpuProfiler,
  closeFailure,
  createCpuProfiler,
  createLogger,
  createResources,
  packageVersion,
  type Resources,
} from '@mojafast/service-kit';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { Registry } from 'prom-client';
import type { AlsRole } from './command-line.js';
import { type Config, parseMetricLabels, schema } from './config/index.js';
import { acrossSchemes } from './discovery/inter-scheme.js';
import type { DiscoveryPorts } from './discovery/types.js';
import { causeOf, withErrorHandling } from './fspiop/error-handling.js';
import { isoPartiesErrorBody } from './fspiop/iso20022.js';
import { fspiopPartyIdTypes, oraclePartyIdTypes } from './fspiop/party-id.js';
import { loadFspiopSchemas, shippedIsoSchemas, shippedSchemas } from './fspiop/schemas.js';
import { createSerialisers, type Serialisers } from './fspiop/serialisers.js';
import { buildAdminApp } from './http/admin-app.js';
import { createAdmission } from './http/admission.js';
import { buildApiApp, quiet } from './http/api-app.js';
import { createInflight } from './http/inflight.js';
import { registerObserveRoutes } from './http/observe-routes.js';
import { createFailureReporter, type FailureReporter } from './observe/failures.js';
import { createMetrics, type Metrics } from './observe/metrics.js';
import { type ProxyJws, setUpProxyAndJws } from './proxy-jws-setup.js';
import { type CentralLedger, createCentralLedger } from './upstream/central-ledger.js';
import { timedDirectory, timedEgress } from './upstream/egress-timing.js';
import { createHealthProbe } from './upstream/health-probe.js';
import { createHttpClient, type HttpClient } from './upstream/http-client.js';
import { createOracleClient, type OracleClient } from './upstream/oracle-client.js';
import {
  createMemoryOracleStore,
  createOracleRegistry,
  type OracleInput,
  type OracleRegistry,
  type OracleStore,
  readOraclesFile,
} from './upstream/oracle-registry.js';
import { createMysqlOracleStore, type MysqlSettings } from './upstream/oracle-store-mysql.js';
import { tlsOptions, upstreamCa } from './upstream/tls.js';

/** One process of the ALS as its command line asked (command-line.ts): what it listens on. */
export interface RunningAlsProcess {
  /** The FSPIOP API, when this process serves it. */
  readonly url: string | undefined;
  /** The admin API, when this process serves it. */
  readonly adminUrl: string | undefined;
  /** /health and /metrics of the timeout handler process (`handlers --timeout`). */
  readonly monitoringUrl: string | undefined;
  readonly app: FastifyInstance | undefined;
  readonly admin: FastifyInstance | undefined;
  readonly registry: Registry;
  readonly profiler: CpuProfiler;
  /** The root logger (fastify's app.log is a child of it): failures are logged here. */
  readonly log: FastifyBaseLogger;
  /**
   * Resolves once no accepted request's background work (the flow after its 202/200) is running: the same set
   * close() drains. Tests wait for it before proving that nothing more is sent.
   */
  idle(): Promise<void>;
  /** Stops accepting, drains in-flight callbacks (bounded by shutdownTimeoutMs), releases sockets and db. */
  close(): Promise<void>;
}

/** The ALS with everything in one process (no command line): both APIs. */
export interface RunningAls extends RunningAlsProcess {
  readonly url: string;
  readonly adminUrl: string;
  readonly app: FastifyInstance;
  readonly admin: FastifyInstance;
}

/** No command line: both APIs, and the timeout handler when the proxy cache is on. */
export const allInOne: AlsRole = { api: true, admin: true, timeoutHandler: 'when-on', command: '' };

/**
 * Connections the kernel queues before the ALS accepts them. Node's 511 overflowed when 2,000 clients
 * connected at once: the rest waited for a SYN retry (1 s, then 3 s) before the ALS could even refuse
 * them (bench:als --scenario faults, overload phase). The kernel caps it at net.core.somaxconn.
 */
const listenBacklog = 4_096;

const embeddedOracles = fileURLToPath(new URL('../config/oracles.json', import.meta.url));

/**
 * mysql2's `ssl` of the settings: `verify` checks the chain only, as mysql2 does with an `ssl` object, and
 * `verify-identity` the host name too (`verifyIdentity`); a named profile is mysql2's own (its CAs, the chain
 * checked).
 */
function mysqlSsl(config: Config): MysqlSettings['ssl'] {
  if (config.dbSsl === 'off') return undefined;
  const verify = config.dbSsl !== 'on';
  if (config.dbSslProfile !== '' && verify) return config.dbSslProfile;
  const options = tlsOptions(verify ? 'verify' : 'on', {
    ca: { value: config.dbSslCaFile, variable: schema.dbSslCaFile.env },
    cert: { value: config.dbSslCertFile, variable: schema.dbSslCertFile.env },
    key: { value: config.dbSslKeyFile, variable: schema.dbSslKeyFile.env },
  });
  return { ...options, verifyIdentity: config.dbSsl === 'verify-identity' };
}

async function openOracleStore(config: Config): Promise<OracleStore> {
  if (config.dbName !== '') {
    return createMysqlOracleStore({
      host: config.dbHost,
      port: config.dbPort,
      user: config.dbUser,
      password: config.dbPassword,
      database: config.dbName,
      ssl: mysqlSsl(config),
      keys: 'ALS_DB_HOST, ALS_DB_SSL; DATABASE.HOST, DATABASE.ADDITIONAL_CONNECTION_OPTIONS.ssl',
    });
  }
  if (config.oraclesFile !== '') return createMemoryOracleStore(readOraclesFile(config.oraclesFile));
  if (config.oracleUrl !== '') {
    const types = config.extendedPartyIdTypes ? oraclePartyIdTypes : fspiopPartyIdTypes;
    return createMemoryOracleStore(
      types.map(
        (oracleIdType): OracleInput => ({ oracleIdType, endpoint: { value: config.oracleUrl }, isDefault: true }),
      ),
    );
  }
  return createMemoryOracleStore(readOraclesFile(embeddedOracles));
}

/**
 * Wires config → upstreams → flows → HTTP; the only module that knows every layer. What it opens is owned
 * by one Resources (the service kit's), closed by close() and by a start that fails part-way.
 */
export async function startAls(config: Config): Promise<RunningAls> {
  const running = await startAlsProcess(config, allInOne);
  const { url, adminUrl, app, admin } = running;
  if (!url || !adminUrl || !app || !admin) throw new Error('the ALS started without both of its APIs');
  return { ...running, url, adminUrl, app, admin };
}

/** One process of the ALS in the role its command line names (command-line.ts). */
export async function startAlsProcess(config: Config, role: AlsRole): Promise<RunningAlsProcess> {
  // Logs go to stderr (the kit's logger): stdout carries only the one "ready" line tools wait for.
  const loggerInstance: FastifyBaseLogger = createLogger({ level: config.logLevel });
  const resources = createResources();
  let closing: Promise<void> | undefined;
  // Each failure logged with what failed to close; close() then rejects naming them all.
  const close = () => {
    closing ??= resources.close().then((failures) => {
      for (const { name, error } of failures) loggerInstance.error({ err: error, resource: name }, 'closing failed');
      const failed = closeFailure(failures);
      if (failed) throw failed;
    });
    return closing;
  };
  try {
    return await openAls(config, role, resources, loggerInstance, close);
  } catch (error) {
    // What failed to close is logged; the error to report is the one that stopped the start.
    await close().catch(() => undefined);
    throw error;
  }
}

async function openAls(
  given: Config,
  role: AlsRole,
  resources: Resources,
  loggerInstance: FastifyBaseLogger,
  close: () => Promise<void>,
): Promise<RunningAlsProcess> {
  const config = roleConfig(given, role);
  const handlerProcess = role.timeoutHandler === true;
  const service = { startedAt: new Date(), version: packageVersion(import.meta.url) };
  // First, so a bad registry file or database stops start-up before anything holds a socket. The handler
  // process reads no registry (the original's connects no database either).
  const store = resources.own(
    'oracle store',
    handlerProcess ? createMemoryOracleStore([]) : await openOracleStore(config),
    (opened) => opened.close(),
  );
  const registry = new Registry();
  const metrics = resources.own('metrics', openMetrics(config, registry, service.version), (created) => created.stop());
  const schemas = loadFspiopSchemas(
    shippedSchemas,
    config.apiType === 'iso20022' ? { iso20022: shippedIsoSchemas } : {},
  );
  const serialisers = createSerialisers();
  // Every error answer, error callback and upstream call without an answer counted and logged (rate-limited).
  const failures = createFailureReporter(registry, loggerInstance);
  const upstream = openUpstream(config, store, metrics, failures, resources);
  // Proxy cache, timeout handler and JWS: all off by default, then nothing of them is wired in.
  const extras = await setUpProxyAndJws(config, upstream.centralLedger, loggerInstance, resources);
  const ports = discoveryPorts(config, upstream, extras, metrics, failures, serialisers);
  const inflight = createInflight();
  const probe = healthProbe(config, upstream.http, store, extras.proxyCache);
  // What each process's /health reports, as the original's process of that role: the API's needs the
  // datastore, the proxy cache when on and (ours) central-ledger; the admin API's only its datastore
  // (src/api/health.js getSubServices); the timeout handler's only the proxy cache
  // (src/handlers/monitoring/plugins/health.js). A process serving both APIs reports the API's on both ports.
  const health = role.api
    ? probe({ centralLedger: true, datastore: true, proxyCache: true })
    : probe({ centralLedger: false, datastore: true, proxyCache: false });

  let app: FastifyInstance | undefined;
  if (role.api) {
    const admission = createAdmission(config.maxLookupsInFlight, config.lookupCallbackWaitMs);
    resources.own('admission sweep', admission, (created) => created.close());
    metrics.watchAdmission(() => admission);
    app = buildApiApp({
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
      jws: extras.jws,
      clearEndpointCache: () => upstream.centralLedger.clear(),
    });
  }
  const profiler = createCpuProfiler({ directory: config.profileDir, prefix: 'als' });
  resources.own('profiler', profiler, (created) => created.stop());
  const admin = role.admin
    ? buildAdminApp({
        registry: upstream.oracleRegistry,
        currencies: schemas.currencies,
        metrics: registry,
        profiler,
        defaultProfileSeconds: config.profileSeconds,
        bodyLimitBytes: config.bodyLimitBytes,
        health,
        service,
        loggerInstance,
      })
    : undefined;
  let monitoring: FastifyInstance | undefined;
  if (handlerProcess) {
    monitoring = Fastify({ loggerInstance, logController: quiet() });
    // The handler's /health is central-services-health's defaultHealthHandler: 502 while a service is DOWN.
    const handlerHealth = probe({ centralLedger: false, datastore: false, proxyCache: true });
    registerObserveRoutes(monitoring, registry, service, handlerHealth, 502);
  }
  // Closed first (opened last): the servers stop accepting before what they use is closed.
  const servers = [app, admin, monitoring].filter((server) => server !== undefined);
  resources.own('servers', servers, (opened) => Promise.all(opened.map((server) => server.close())));

  const local = (address: string) => address.replace('0.0.0.0', '127.0.0.1').replace('[::]', '127.0.0.1');
  const url = app && local(await app.listen({ port: config.port, host: config.host, backlog: listenBacklog }));
  const adminUrl = admin && local(await admin.listen({ port: config.adminPort, host: config.host }));
  const monitoringUrl =
    monitoring && local(await monitoring.listen({ port: config.monitoringPort, host: config.host }));
  extras.startTimeoutHandler(ports, (error) => loggerInstance.warn({ err: error }, 'timeout handler run failed'));

  return {
    url,
    adminUrl,
    monitoringUrl,
    app,
    admin,
    registry,
    profiler,
    log: loggerInstance,
    idle: inflight.idle,
    close,
  };
}

/**
 * The settings as the role runs them. The timeout handler runs where the role puts it; the original's handler
 * process connects its proxy cache whatever PROXY_CACHE.enabled says (src/server.js initializeHandlers): so
 * does `handlers --timeout`.
 */
function roleConfig(given: Config, role: AlsRole): Config {
  if (role.timeoutHandler === true) return { ...given, proxyCache: true };
  if (role.timeoutHandler === false) return { ...given, timeoutHandler: false };
  return given;
}

/** Our metrics, and the original's names with the deployment's prefix and default labels (bound once here). */
function openMetrics(config: Config, registry: Registry, version: string): Metrics {
  const defaultLabels = parseMetricLabels(config.metricsDefaultLabels) ?? {};
  return createMetrics(
    registry,
    config.originalMetrics && {
      prefix: config.metricsPrefix,
      // account-lookup-service src/server.js sets serviceVersion (its package version) on the defaultLabels it
      // is configured with, over any given; none are configured: no labels at all.
      defaultLabels:
        Object.keys(defaultLabels).length > 0 ? { ...defaultLabels, serviceVersion: version } : defaultLabels,
    },
  );
}

/** The upstream pools and what the flows reach through them: central-ledger, the oracles, their registry. */
interface Upstream {
  readonly http: HttpClient;
  readonly centralLedger: CentralLedger;
  readonly oracles: OracleClient;
  readonly oracleRegistry: OracleRegistry;
}

function openUpstream(
  config: Config,
  store: OracleStore,
  metrics: Metrics,
  failures: FailureReporter,
  resources: Resources,
): Upstream {
  const http = createHttpClient({
    connections: config.upstreamConnections,
    connectTimeoutMs: config.connectTimeoutMs,
    headersTimeoutMs: config.headersTimeoutMs,
    bodyTimeoutMs: config.bodyTimeoutMs,
    keepAliveTimeoutMs: config.keepAliveTimeoutMs,
    keepAlive: config.upstreamKeepAlive,
    ca: upstreamCa(config.upstreamCaFile, schema.upstreamCaFile.env),
    onRetry: () => metrics.retry(),
    onTransportFailure: (upstream, origin, error) => failures.upstreamFailed(upstream, origin, error),
  });
  resources.own('upstream pools', http, (client) => client.close());
  metrics.watchUpstreamPools(() => http.poolStats());
  const record = metrics.cache;
  const centralLedger = createCentralLedger(http, {
    switchEndpoint: config.switchEndpoint,
    participantTtlMs: config.participantCacheTtlMs,
    endpointTtlMs: config.endpointCacheTtlMs,
    maxStaleMs: config.cacheMaxStaleMs,
    maxEntries: config.cacheMaxEntries,
    record,
  });
  const oracles = createOracleClient(http, {
    answerTtlMs: config.oracleAnswerCacheTtlMs,
    maxStaleMs: config.cacheMaxStaleMs,
    maxEntries: config.cacheMaxEntries,
    record,
  });
  const oracleRegistry = createOracleRegistry(store, {
    // An in-memory registry is read directly; only a database is worth caching or sharing reads of.
    ttlMs: config.dbName === '' ? 0 : config.oracleRegistryCacheTtlMs,
    sharedReads: config.dbName !== '',
    maxStaleMs: config.cacheMaxStaleMs,
    record,
  });
  return { http, centralLedger, oracles, oracleRegistry };
}

/** What the flows are given: the upstreams timed and watched, the codec, the observers. */
function discoveryPorts(
  config: Config,
  upstream: Upstream,
  extras: ProxyJws,
  metrics: Metrics,
  failures: FailureReporter,
  serialisers: Serialisers,
): DiscoveryPorts {
  const { http, oracles, oracleRegistry } = upstream;
  const errorHandling = {
    includeCauseExtension: config.errorCauseExtension,
    truncateExtensions: config.truncateExtensions,
  };
  // The egress timers of the original run here, at the upstream edge: the flows measure nothing of it.
  return {
    hubName: config.hubName,
    hubVersion: config.hubFspiopVersion,
    apiType: config.apiType,
    directory: timedDirectory(upstream.centralLedger, metrics.egress),
    oracles: {
      oracleFor: (type, currency) => oracleRegistry.oracleFor(type, currency),
      lookup: (url, party, currency, headers) => oracles.lookup(url, party, currency, headers),
      write: (url, method, party, body, headers) => oracles.write(url, method, party, body, headers),
      batch: (url, body, headers) => oracles.batch(url, body, headers),
      forget: (party) => oracles.forget(party),
    },
    egress: timedEgress(
      failures.watchSend(
        extras.wrapSend((request, settled) => http.send(request, 'fsp', settled)),
        config.hubName,
      ),
      metrics.egress,
    ),
    // Error callbacks carry what ERROR_HANDLING asks (the original's toApiErrorObject options); the
    // synchronous answers (http/) keep the library's defaults, as the original's do.
    codec: {
      ...serialisers,
      error: (information, cause) =>
        serialisers.error(withErrorHandling(information, errorHandling, () => causeOf(information, cause))),
      ...(config.apiType === 'iso20022' ? { partiesError: isoPartiesErrorBody } : {}),
    },
    observe: { stage: metrics.observeStage, endToEnd: metrics.endToEnd, event: metrics.event },
    interScheme: extras.proxy && acrossSchemes(extras.proxy),
  };
}

/** A /health probe of the services named (each process checks those its original role does). */
function healthProbe(config: Config, http: HttpClient, store: OracleStore, proxyCache: ProxyJws['proxyCache']) {
  return (checks: { centralLedger: boolean; datastore: boolean; proxyCache: boolean }) =>
    createHealthProbe(http, {
      intervalMs: config.healthCheckIntervalMs,
      timeoutMs: config.connectTimeoutMs,
      switchEndpoint: config.switchEndpoint,
      centralLedger: checks.centralLedger,
      ...(checks.datastore && store.ping ? { pingDatastore: () => (store.ping as () => Promise<void>)() } : {}),
      ...(checks.proxyCache && proxyCache ? { pingProxyCache: () => proxyCache.healthCheck() } : {}),
    });
}

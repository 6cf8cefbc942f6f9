import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { Registry } from 'prom-client';
import type { Config } from '../config/index.js';
import type { DiscoveryPorts } from '../discovery/types.js';
import { extendedPartyIdTypes } from '../fspiop/party-id.js';
import type { FspiopSchemas } from '../fspiop/schemas.js';
import type { Serialisers } from '../fspiop/serialisers.js';
import type { FailureReporter } from '../observe/failures.js';
import type { Metrics } from '../observe/metrics.js';
import type { HealthProbe } from '../upstream/health-probe.js';
import type { Admission } from './admission.js';
import { clientErrors, frameworkErrors, registerFspiopBasics } from './fspiop-plugin.js';
import { allowedMethods, maxPartyIdLength, registerFspiopRoutes } from './fspiop-routes.js';
import type { Inflight } from './inflight.js';
import { type IncomingJwsCheck, registerJwsValidation } from './jws-hook.js';
import { registerObserveRoutes } from './observe-routes.js';

/** Node's default request header limit, named: past it the answer is 431 3104. */
export const maxHeaderBytes = 16_384;

/**
 * What the FSPIOP API is built from. The ports are the flows' only way out (oracles, central-ledger's
 * participants and endpoints, the FSPs, the clock of the observe port): a test passes plain values, the
 * service the pools it opened.
 */
export interface ApiAppParts {
  readonly config: Config;
  readonly ports: DiscoveryPorts;
  readonly schemas: FspiopSchemas;
  readonly serialisers: Serialisers;
  readonly metrics: Metrics;
  /** Served on /metrics. */
  readonly registry: Registry;
  readonly failures: FailureReporter;
  readonly admission: Admission;
  readonly health: HealthProbe;
  readonly service: { readonly startedAt: Date; readonly version: string };
  readonly loggerInstance: FastifyBaseLogger;
  readonly inflight: Inflight;
  /** Present when ALS_JWS_VALIDATE=on. */
  readonly jws?: IncomingJwsCheck | undefined;
  /** DELETE /endpointcache. */
  readonly clearEndpointCache?: () => void;
}

/** No log line per request at any level (it costs more than the lookup); failures are counted on /metrics. */
export const quiet = () => new LogController({ disableRequestLogging: true });

/**
 * The FSPIOP API as a fastify instance that does not listen (fastify's testing guide: build in one function,
 * listen in another): `inject` drives it in tests, main.ts listens. Closing it drains the accepted requests'
 * work, at most shutdownTimeoutMs, and closes nothing it was given.
 */
export function buildApiApp(parts: ApiAppParts): FastifyInstance {
  const { config, serialisers, failures } = parts;
  const app = Fastify({
    loggerInstance: parts.loggerInstance,
    logController: quiet(),
    // Without request log lines a child logger per request is pure cost: requests share the root one.
    childLoggerFactory: (parent) => parent,
    bodyLimit: config.bodyLimitBytes,
    keepAliveTimeout: 65_000,
    return503OnClosing: true,
    // A HEAD must not start a lookup.
    exposeHeadRoutes: false,
    // A 128-character ID is valid (FSPIOP PartyIdentifier); percent-encoded, each character may take 12
    // (4 UTF-8 bytes as %XX). Fastify's default of 100 refused valid IDs; the handler checks the decoded 128.
    routerOptions: { maxParamLength: maxPartyIdLength * 12 },
    frameworkErrors: frameworkErrors(serialisers, maxPartyIdLength, failures),
    // A request whose headers and body have not all arrived within requestTimeoutMs is answered 408 (slow
    // bodies held a socket for ever). Node checks every connectionsCheckingInterval.
    requestTimeout: config.requestTimeoutMs,
    clientErrorHandler: clientErrors(
      serialisers,
      { requestTimeoutMs: config.requestTimeoutMs, maxHeaderBytes },
      failures,
    ),
    http: {
      // A GET /parties has no body: node:http then skips its request stream's life cycle (the
      // bench's GETs are a quarter of the ALS's exchanges). The body parser answers such requests of other
      // methods at once (fspiop-plugin.ts readBody).
      optimizeEmptyRequests: true,
      maxHeaderSize: maxHeaderBytes,
      // Node answers an HTTP/1.1 request without Host with an empty 400; the routes answer it 400 3102.
      requireHostHeader: false,
      headersTimeout: config.requestTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, config.requestTimeoutMs),
    },
  });
  registerFspiopBasics(app, serialisers, config.bodyLimitBytes, failures, allowedMethods);
  if (parts.jws) registerJwsValidation(app, parts.jws);
  registerFspiopRoutes(app, {
    ports: parts.ports,
    schemas: parts.schemas,
    serialisers,
    metrics: parts.metrics,
    hold: parts.inflight.hold,
    checkDeleteOwner: config.deleteParticipantValidation,
    extraPartyIdTypes: new Set(config.extendedPartyIdTypes ? extendedPartyIdTypes : []),
    ...(parts.clearEndpointCache ? { clearEndpointCache: parts.clearEndpointCache } : {}),
    admission: parts.admission,
    retryAfterSeconds: config.retryAfterSeconds,
  });
  registerObserveRoutes(app, parts.registry, parts.service, parts.health);
  // The in-flight work drains before the pools, stores and caches it uses are closed (by their owner).
  app.addHook('onClose', () => parts.inflight.drain(config.shutdownTimeoutMs));
  return app;
}

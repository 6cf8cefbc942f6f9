import { errorInformation, FspiopError } from '@mojafast/fspiop';
import { type CpuProfiler, FastCounter } from '@mojafast/service-kit';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Registry } from 'prom-client';
import type { OracleRecord } from '../discovery/oracles.js';
import { addOracle, changeOracle, type OracleRegistry, removeOracle } from '../upstream/oracle-registry.js';
import {
  type AdminOperation,
  AdminRequestError,
  checkAdminParameters,
  checkOracleInfo,
  parseAdminBody,
} from './admin-validation.js';

export interface AdminRouteDeps {
  readonly registry: OracleRegistry;
  /** The Currency enum of the API (the admin document's list is the same). */
  readonly currencies: ReadonlySet<string>;
  readonly profiler: CpuProfiler;
  readonly defaultProfileSeconds: number;
  /** Where als_admin_requests_total is registered. */
  readonly metrics: Registry;
}

/** The original admin API's oracle item (GET /oracles). */
function oracleItem(record: OracleRecord) {
  return {
    oracleId: record.id,
    oracleIdType: record.type,
    endpoint: { value: record.url, endpointType: record.endpointType },
    currency: record.currency ?? undefined,
    // The original answers the column as MySQL gives it, 1 or 0, and the community's collections assert 1.
    isDefault: record.isDefault ? 1 : 0,
  };
}

/**
 * The admin port's routes and their methods, for the original's answer to another method on a known path
 * (hapi's 404 turned into 405 with an Allow header by central-services-error-handling, which lists the
 * methods in this order).
 */
const knownPaths: readonly { readonly pattern: RegExp; readonly methods: readonly string[] }[] = [
  { pattern: /^\/oracles$/, methods: ['get', 'post'] },
  { pattern: /^\/oracles\/[^/]+$/, methods: ['put', 'delete'] },
  { pattern: /^\/health$/, methods: ['get'] },
  { pattern: /^\/metrics$/, methods: ['get'] },
  { pattern: /^\/profile$/, methods: ['post'] },
];

/** A header-less request's query and headers as the validator sees them. */
type Incoming = FastifyRequest<{ Querystring: Record<string, string | string[] | undefined> }>;

function refuse(reply: FastifyReply, error: AdminRequestError) {
  return reply.code(error.status).send(error.body());
}

/**
 * The admin surface of the original (its admin port): the oracle registry (GET|POST /oracles,
 * PUT|DELETE /oracles/{ID}), with its validation, codes and texts; and ours: POST /profile?seconds=N.
 * Each a plugin; what they share (the answers' counter and log, the 404/405 and error answers) is set
 * here on the port's root, which the plugins and /health and /metrics inherit.
 * The original has no /endpointcache here (only on the API port), so neither has this port.
 */
export function registerAdminRoutes(app: FastifyInstance, deps: AdminRouteDeps): void {
  // Every answer of the admin port is counted; a change of the registry or a refusal is logged with what was
  // asked and answered (operators' calls: rare, and each one matters).
  const answers = new FastCounter('als_admin_requests_total', 'admin port answers, by route and status', deps.metrics);
  app.addHook('onSend', async (request, reply, payload) => {
    const route = request.routeOptions.url ?? 'unmatched';
    answers.child({ route, status: String(reply.statusCode) }).inc();
    if (request.method !== 'GET' || reply.statusCode >= 400) {
      request.log.info(
        {
          method: request.method,
          url: request.url,
          status: reply.statusCode,
          answer: reply.statusCode >= 400 ? payload : undefined,
        },
        'admin request',
      );
    }
    return payload;
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const known = knownPaths.find((p) => p.pattern.test(path));
    if (known) {
      return reply
        .code(405)
        .header('allow', known.methods.join(','))
        .send({ errorInformation: errorInformation(FspiopError.CLIENT_ERROR, 'Method Not Allowed') });
    }
    return reply.code(404).send({ errorInformation: errorInformation(FspiopError.UNKNOWN_URI, 'Not Found') });
  });

  // No framework text and no SQL reaches a client: a failure of ours is 2001, logged with its cause.
  app.setErrorHandler((error: Error & { statusCode?: number }, request, reply) => {
    if (error instanceof AdminRequestError) return refuse(reply, error);
    const status = error.statusCode ?? 500;
    if (status === 413) {
      return reply.code(400).send({ errorInformation: errorInformation(FspiopError.TOO_LARGE_PAYLOAD, error.message) });
    }
    if (status < 500) {
      return reply.code(400).send({ errorInformation: errorInformation(FspiopError.MALFORMED_SYNTAX, error.message) });
    }
    request.log.error({ err: error, method: request.method, url: request.url }, 'admin request failed');
    return reply.code(500).send({ errorInformation: errorInformation(FspiopError.INTERNAL_SERVER_ERROR) });
  });

  app.register(oraclesRoutes, deps);
  app.register(profileRoutes, deps);
}

/**
 * The oracle registry: GET|POST /oracles, PUT|DELETE /oracles/{ID}. The checks stay hand-written
 * (admin-validation.ts): the original validates what its raw-payload plugin makes of the bytes (an empty
 * object for a body that is not JSON or has no Content-Type) with Ajv's type coercion, and reports the body
 * before the query and headers; a route schema would see the bytes this port keeps, and an invalid body with
 * a bad query would be answered for the query.
 */
const oraclesRoutes: FastifyPluginAsync<AdminRouteDeps> = async (app, deps) => {
  const { registry } = deps;

  /** The body (for POST and PUT), then query and headers: the original reports the first failure in that order. */
  const admit = (operation: AdminOperation, request: Incoming) => {
    const input =
      operation === 'OraclesPost' || operation === 'OraclesByIdPut'
        ? checkOracleInfo(parseAdminBody(request.body, request.headers['content-type']), deps.currencies)
        : undefined;
    checkAdminParameters(operation, request.query, request.headers);
    return input;
  };

  app.get('/oracles', async (request: Incoming) => {
    admit('OraclesGet', request);
    const { type, currency } = request.query as { type?: string; currency?: string };
    const rows = await registry.store.list(type || undefined);
    return rows.filter((r) => !currency || r.currency === currency).map(oracleItem);
  });

  app.post('/oracles', async (request: Incoming, reply) => {
    const input = admit('OraclesPost', request);
    if (input === undefined) throw new Error('POST /oracles admitted without a body');
    const result = await addOracle(registry.store, input);
    registry.invalidate();
    if (result === 'conflict') return refuse(reply, conflict());
    return reply.code(201).send();
  });

  app.put<{ Params: { id: string } }>('/oracles/:id', async (request, reply) => {
    const input = admit('OraclesByIdPut', request as unknown as Incoming);
    if (input === undefined) throw new Error('PUT /oracles admitted without a body');
    const result = await changeOracle(registry.store, request.params.id, input);
    registry.invalidate();
    if (result === 'not-found')
      return refuse(reply, new AdminRequestError(FspiopError.ADD_PARTY_INFO_ERROR, 'Oracle not found'));
    if (result === 'conflict') return refuse(reply, conflict());
    return reply.code(204).send();
  });

  app.delete<{ Params: { id: string } }>('/oracles/:id', async (request, reply) => {
    admit('OraclesByIdDelete', request as unknown as Incoming);
    await removeOracle(registry.store, request.params.id);
    registry.invalidate();
    return reply.code(204).send();
  });
};

/** POST /profile?seconds=N: a CPU profile of this process, written to the profile directory. */
const profileRoutes: FastifyPluginAsync<AdminRouteDeps> = async (app, deps) => {
  app.post<{ Querystring: { seconds?: string } }>('/profile', async (request, reply) => {
    const seconds = Number(request.query.seconds ?? deps.defaultProfileSeconds);
    if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 600)
      return reply.code(400).send({
        errorInformation: errorInformation(FspiopError.MALFORMED_SYNTAX, 'seconds must be between 0 and 600'),
      });
    if (deps.profiler.running)
      return reply
        .code(409)
        .send({ errorInformation: errorInformation(FspiopError.MALFORMED_SYNTAX, 'a profile is already running') });
    const file = await deps.profiler.profile(seconds);
    return { file };
  });
};

/**
 * A second active oracle for the same type, endpoint type and currency. The original refuses it with a
 * 500 (2001, "Internal server error - Active oracle ..."); it is the client's request that cannot be
 * served, so ours answers 400 with the original's words under 3100.
 */
function conflict() {
  return new AdminRequestError(
    FspiopError.VALIDATION_ERROR,
    'Active oracle with matching partyIdTypeId, endpointTypeId, currencyId already exists',
  );
}

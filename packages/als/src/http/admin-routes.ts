import type { CpuProfiler } from '@mojafast/service-kit';
import type { FastifyInstance } from 'fastify';
import type { OracleRecord } from '../discovery/oracles.js';
import type { OracleInput, OracleRegistry } from '../upstream/oracle-registry.js';

export interface AdminRouteDeps {
  readonly registry: OracleRegistry;
  readonly partyIdTypes: ReadonlySet<string>;
  readonly clearEndpointCache: () => void;
  readonly profiler: CpuProfiler;
  readonly defaultProfileSeconds: number;
}

/** The original admin API's oracle item (GET /oracles). */
function oracleItem(record: OracleRecord) {
  return {
    oracleId: record.id,
    oracleIdType: record.type,
    endpoint: { value: record.url, endpointType: record.endpointType },
    currency: record.currency ?? undefined,
    isDefault: record.isDefault,
  };
}

function badRequest(description: string) {
  return { errorInformation: { errorCode: '3101', errorDescription: `Malformed syntax - ${description}` } };
}

function parseJson(body: unknown): unknown {
  if (!Buffer.isBuffer(body)) return undefined;
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * The admin surface of the original (its admin port): the oracle registry (GET|POST /oracles,
 * PUT|DELETE /oracles/{ID}), DELETE /endpointcache; and ours: POST /profile?seconds=N.
 */
export function registerAdminRoutes(app: FastifyInstance, deps: AdminRouteDeps): void {
  const { registry } = deps;

  const validate = (value: unknown, partial: boolean): OracleInput | string => {
    const input = value as Partial<OracleInput> | undefined;
    if (!input || typeof input !== 'object') return 'body must be a JSON object';
    if (!partial || input.oracleIdType !== undefined) {
      if (typeof input.oracleIdType !== 'string' || !deps.partyIdTypes.has(input.oracleIdType))
        return 'oracleIdType must be a party ID type';
    }
    if (!partial || input.endpoint !== undefined) {
      if (typeof input.endpoint?.value !== 'string' || !URL.canParse(input.endpoint.value))
        return 'endpoint.value must be a URL';
    }
    if (input.currency !== undefined && input.currency !== null && !/^[A-Z]{3}$/.test(String(input.currency)))
      return 'currency must be three capital letters';
    return input as OracleInput;
  };

  app.get<{ Querystring: { type?: string; currency?: string } }>('/oracles', async (request) => {
    const rows = await registry.store.list(request.query.type);
    return rows.filter((r) => !request.query.currency || r.currency === request.query.currency).map(oracleItem);
  });

  app.post('/oracles', async (request, reply) => {
    const input = validate(parseJson(request.body), false);
    if (typeof input === 'string') return reply.code(400).send(badRequest(input));
    await registry.store.create(input);
    registry.invalidate();
    return reply.code(201).send();
  });

  app.put<{ Params: { id: string } }>('/oracles/:id', async (request, reply) => {
    const input = validate(parseJson(request.body), true);
    if (typeof input === 'string') return reply.code(400).send(badRequest(input));
    const found = await registry.store.update(Number(request.params.id), input);
    registry.invalidate();
    return reply.code(found ? 204 : 404).send();
  });

  app.delete<{ Params: { id: string } }>('/oracles/:id', async (request, reply) => {
    const found = await registry.store.remove(Number(request.params.id));
    registry.invalidate();
    return reply.code(found ? 204 : 404).send();
  });

  app.delete('/endpointcache', async (_request, reply) => {
    deps.clearEndpointCache();
    return reply.code(202).send();
  });

  app.post<{ Querystring: { seconds?: string } }>('/profile', async (request, reply) => {
    const seconds = Number(request.query.seconds ?? deps.defaultProfileSeconds);
    if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 600)
      return reply.code(400).send(badRequest('seconds must be between 0 and 600'));
    if (deps.profiler.running) return reply.code(409).send(badRequest('a profile is already running'));
    const file = await deps.profiler.profile(seconds);
    return { file };
  });
}

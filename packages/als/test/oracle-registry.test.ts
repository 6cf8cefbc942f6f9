import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type OracleSim, startOracleSim } from '@mojafast/sim';
import { createDatabase, type TestDatabase } from '@mojafast/testkit';
import Fastify from 'fastify';
import { Registry as PromRegistry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFspiopSchemas } from '../src/fspiop/schemas.js';
import { registerAdminRoutes } from '../src/http/admin-routes.js';
import { createMemoryOracleStore, createOracleRegistry, type OracleStore } from '../src/upstream/oracle-registry.js';
import { type AdminAnswer, adminCall, adminHeaders, errorOf } from './admin-client.js';
import { call, errorCodeOf, lookupHeaders, newTraceId, type Stack, startStack } from './helpers.js';

/** An error answer: status, code and description, word for word. */
function expectError(answer: AdminAnswer, status: number, errorCode: string, errorDescription: string) {
  expect({ status: answer.status, errorInformation: errorOf(answer) }).toEqual({
    status,
    errorInformation: { errorCode, errorDescription },
  });
}

const oracleInfo = (overrides: Record<string, unknown> = {}) => ({
  oracleIdType: 'MSISDN',
  endpoint: { value: 'http://127.0.0.1:9/oracle', endpointType: 'URL' },
  ...overrides,
});

const without = (name: string) => {
  const headers = adminHeaders();
  delete headers[name];
  return headers;
};

interface Registry {
  readonly stack: Stack;
  readonly second: OracleSim;
  close(): Promise<void>;
}

/** An ALS whose oracle registry is in MySQL (a database of its own) or in memory (an empty oracles file). */
async function startRegistry(kind: 'mysql' | 'memory'): Promise<Registry> {
  const second = await startOracleSim({ fsps: 1, notFoundPrefix: '' });
  if (kind === 'mysql') {
    const database: TestDatabase = await createDatabase({ prefix: 'als_oracles' });
    const { host, port, user, password } = database.connection;
    const stack = await startStack({
      config: {
        dbHost: host,
        dbPort: port,
        dbUser: user,
        dbPassword: password,
        dbName: database.name,
        oracleRegistryCacheTtlMs: 0,
      },
    });
    return {
      stack,
      second,
      async close() {
        await stack.close();
        await second.close();
        await database.drop();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'als-oracles-'));
  const file = join(dir, 'oracles.json');
  writeFileSync(file, '[]');
  const stack = await startStack({ config: { oraclesFile: file, oracleUrl: '' } });
  return {
    stack,
    second,
    async close() {
      await stack.close();
      await second.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe.each(['mysql', 'memory'] as const)('the admin API on a %s oracle registry', (kind) => {
  let registry: Registry;
  let admin: (...args: Parameters<typeof adminCall> extends [string, ...infer R] ? R : never) => Promise<AdminAnswer>;
  beforeAll(async () => {
    registry = await startRegistry(kind);
    admin = (...args) => adminCall(registry.stack.als.adminUrl, ...args);
  });
  afterAll(async () => {
    await registry?.close();
  });

  const list = async () => (await admin('GET', '/oracles')).json as { oracleId: number; [key: string]: unknown }[];

  async function lookUp(id: string) {
    const traceId = newTraceId();
    await call(`${registry.stack.als.url}/parties/MSISDN/${id}`, 'GET', lookupHeaders(traceId));
    const callback = await registry.stack.sims.payer?.waitForCallback(traceId, 5_000);
    if (!callback) throw new Error('no payer simulator');
    return callback;
  }

  it('calls back 3003 while no oracle is registered for the type', async () => {
    const callback = await lookUp('46740000001');
    expect(callback.kind).toBe('error');
    expect(errorCodeOf(callback.body)).toBe('3003');
  });

  it('registers an oracle with POST /oracles (201, no body), lists it, and routes lookups to it', async () => {
    const url = registry.stack.sims.oracle.url;
    const created = await admin(
      'POST',
      '/oracles',
      oracleInfo({ endpoint: { value: url, endpointType: 'URL' }, isDefault: true }),
    );
    expect({ status: created.status, text: created.text }).toEqual({ status: 201, text: '' });
    expect(await list()).toEqual([
      {
        oracleId: expect.any(Number),
        oracleIdType: 'MSISDN',
        endpoint: { value: url, endpointType: 'URL' },
        isDefault: 1,
      },
    ]);
    const before = registry.stack.sims.oracle.stats.get;
    expect((await lookUp('46740000002')).kind).toBe('success');
    expect(registry.stack.sims.oracle.stats.get).toBe(before + 1);
  });

  it('refuses a second active oracle of the same type, endpoint type and currency: 400 3100, nothing stored', async () => {
    const again = await admin(
      'POST',
      '/oracles',
      oracleInfo({ endpoint: { value: registry.second.url, endpointType: 'URL' } }),
    );
    expectError(
      again,
      400,
      '3100',
      'Generic validation error - Active oracle with matching partyIdTypeId, endpointTypeId, currencyId already exists',
    );
    expect(await list()).toHaveLength(1);
  });

  it('PUT /oracles/{ID} replaces type and endpoint, keeps an omitted currency, and applies isDefault false', async () => {
    const [first] = await list();
    const usd = oracleInfo({ endpoint: { value: registry.second.url, endpointType: 'URL' }, currency: 'USD' });
    expect((await admin('POST', '/oracles', usd)).status).toBe(201);
    const second = (await list()).find((o) => o.currency === 'USD');
    // The first (no currency) stops being the default: two rows, none default, a clear 2001.
    const url = registry.stack.sims.oracle.url;
    const put = await admin(
      'PUT',
      `/oracles/${first?.oracleId}`,
      oracleInfo({ endpoint: { value: url, endpointType: 'URL' }, isDefault: false }),
    );
    expect({ status: put.status, text: put.text }).toEqual({ status: 204, text: '' });
    const ambiguous = await lookUp('46740000003');
    expect(errorCodeOf(ambiguous.body)).toBe('2001');

    const promote = await admin('PUT', `/oracles/${second?.oracleId}`, {
      ...usd,
      endpoint: { value: `${registry.second.url}/`, endpointType: 'URL' },
      currency: undefined,
      isDefault: true,
    });
    expect(promote.status).toBe(204);
    expect((await list()).find((o) => o.oracleId === second?.oracleId)).toEqual({
      oracleId: second?.oracleId,
      oracleIdType: 'MSISDN',
      endpoint: { value: `${registry.second.url}/`, endpointType: 'URL' },
      currency: 'USD',
      isDefault: 1,
    });
    const before = registry.second.stats.get;
    expect((await lookUp('46740000004')).kind).toBe('success');
    expect(registry.second.stats.get).toBe(before + 1);
  });

  it('PUT without endpoint or oracleIdType is 400 3102 and changes nothing', async () => {
    const before = await list();
    const id = before[0]?.oracleId;
    const noEndpoint = await admin('PUT', `/oracles/${id}`, { oracleIdType: 'EMAIL', isDefault: true });
    expectError(
      noEndpoint,
      400,
      '3102',
      "Missing mandatory element - /requestBody must have required property 'endpoint'",
    );
    const noType = await admin('PUT', `/oracles/${id}`, {
      endpoint: { value: 'http://127.0.0.1:9', endpointType: 'URL' },
    });
    expectError(
      noType,
      400,
      '3102',
      "Missing mandatory element - /requestBody must have required property 'oracleIdType'",
    );
    expect(await list()).toEqual(before);
  });

  it('PUT of an unknown, non-numeric or partly numeric ID is 400 3003; onto another row’s type and currency 400 3100', async () => {
    const before = await list();
    for (const id of ['99999', 'INVALID', `${before[0]?.oracleId}abc`, '0', '99999999999'])
      expectError(
        await admin('PUT', `/oracles/${id}`, oracleInfo({ currency: 'EUR' })),
        400,
        '3003',
        'Add Party information error - Oracle not found',
      );
    const usdRow = before.find((o) => o.currency === 'USD');
    const other = before.find((o) => o.currency === undefined);
    expectError(
      await admin('PUT', `/oracles/${other?.oracleId}`, oracleInfo({ currency: 'USD' })),
      400,
      '3100',
      'Generic validation error - Active oracle with matching partyIdTypeId, endpointTypeId, currencyId already exists',
    );
    expect(usdRow).toBeDefined();
    expect(await list()).toEqual(before);
  });

  it('accepts the extended party ID types on the admin port, as the original does whatever the API port allows', async () => {
    expect((await admin('POST', '/oracles', oracleInfo({ oracleIdType: 'CONSENT' }))).status).toBe(201);
    expect((await admin('GET', '/oracles?type=CONSENT')).json).toEqual([
      expect.objectContaining({ oracleIdType: 'CONSENT' }),
    ]);
  });

  it('DELETE of an unknown or malformed ID is 204 with no body and changes nothing; a known one deactivates it', async () => {
    const before = await list();
    for (const id of ['INVALID', '99999', `${before[0]?.oracleId}abc`]) {
      const answer = await admin('DELETE', `/oracles/${id}`);
      expect({ status: answer.status, text: answer.text }).toEqual({ status: 204, text: '' });
    }
    expect(await list()).toEqual(before);
    for (const row of before) expect((await admin('DELETE', `/oracles/${row.oracleId}`)).status).toBe(204);
    expect(await list()).toEqual([]);
    expect((await admin('DELETE', `/oracles/${before[0]?.oracleId}`)).status).toBe(204);
    expectError(
      await admin('PUT', `/oracles/${before[0]?.oracleId}`, oracleInfo()),
      400,
      '3003',
      'Add Party information error - Oracle not found',
    );
  });
});

describe('admin API validation: the original’s codes and texts', () => {
  let registry: Registry;
  let admin: (...args: Parameters<typeof adminCall> extends [string, ...infer R] ? R : never) => Promise<AdminAnswer>;
  beforeAll(async () => {
    registry = await startRegistry('memory');
    admin = (...args) => adminCall(registry.stack.als.adminUrl, ...args);
  });
  afterAll(async () => {
    await registry?.close();
  });

  const post: [string, unknown, number, string, string][] = [
    [
      'an empty body',
      '',
      400,
      '3102',
      "Missing mandatory element - /requestBody must have required property 'endpoint'",
    ],
    [
      'a body that is not JSON',
      '{"oracleIdType":',
      400,
      '3102',
      "Missing mandatory element - /requestBody must have required property 'endpoint'",
    ],
    ['a JSON array', [], 400, '3101', 'Malformed syntax - /requestBody must be object'],
    [
      'no oracleIdType',
      { endpoint: oracleInfo().endpoint },
      400,
      '3102',
      "Missing mandatory element - /requestBody must have required property 'oracleIdType'",
    ],
    [
      'an unknown oracleIdType',
      oracleInfo({ oracleIdType: 'PHONE' }),
      400,
      '3100',
      'Generic validation error - /requestBody/oracleIdType must be equal to one of the allowed values',
    ],
    [
      'an oracleIdType that is an object',
      oracleInfo({ oracleIdType: {} }),
      400,
      '3101',
      'Malformed syntax - /requestBody/oracleIdType must be string',
    ],
    [
      'an endpoint that is a string',
      oracleInfo({ endpoint: 'http://x' }),
      400,
      '3101',
      'Malformed syntax - /requestBody/endpoint must be object',
    ],
    [
      'no endpointType',
      oracleInfo({ endpoint: { value: 'http://x' } }),
      400,
      '3102',
      "Missing mandatory element - /requestBody/endpoint must have required property 'endpointType'",
    ],
    [
      'no endpoint value',
      oracleInfo({ endpoint: { endpointType: 'URL' } }),
      400,
      '3102',
      "Missing mandatory element - /requestBody/endpoint must have required property 'value'",
    ],
    [
      'an unknown endpointType',
      oracleInfo({ endpoint: { value: 'http://x', endpointType: 'FTP' } }),
      400,
      '3100',
      'Generic validation error - /requestBody/endpoint/endpointType must be equal to one of the allowed values',
    ],
    [
      'an endpoint that is no URL (ours)',
      oracleInfo({ endpoint: { value: 'oracle', endpointType: 'URL' } }),
      400,
      '3100',
      'Generic validation error - /requestBody/endpoint/value must match format "uri"',
    ],
    [
      'currency ZZZ',
      oracleInfo({ currency: 'ZZZ' }),
      400,
      '3100',
      'Generic validation error - /requestBody/currency must be equal to one of the allowed values',
    ],
    [
      'currency null',
      oracleInfo({ currency: null }),
      400,
      '3100',
      'Generic validation error - /requestBody/currency must be equal to one of the allowed values',
    ],
    [
      'isDefault "yes"',
      oracleInfo({ isDefault: 'yes' }),
      400,
      '3101',
      'Malformed syntax - /requestBody/isDefault must be boolean',
    ],
  ];
  it.each(post)('POST /oracles with %s', async (_name, body, status, code, text) => {
    expectError(await admin('POST', '/oracles', body), status, code, text);
  });

  it('checks the body before the headers, then Accept, Content-Type and Date in that order', async () => {
    expectError(
      await admin('POST', '/oracles', {}, without('accept')),
      400,
      '3102',
      "Missing mandatory element - /requestBody must have required property 'endpoint'",
    );
    for (const header of ['accept', 'date'])
      expectError(
        await admin('POST', '/oracles', oracleInfo(), without(header)),
        400,
        '3102',
        `Missing mandatory element - /header must have required property '${header}'`,
      );
    // Without Content-Type the original does not read the body: it is found without its properties.
    expectError(
      await admin('POST', '/oracles', oracleInfo(), without('content-type')),
      400,
      '3102',
      "Missing mandatory element - /requestBody must have required property 'endpoint'",
    );
    const { date: _date, ...noDate } = adminHeaders();
    const { accept: _accept, ...noAcceptNoDate } = noDate;
    expectError(
      await admin('POST', '/oracles', oracleInfo(), noAcceptNoDate),
      400,
      '3102',
      "Missing mandatory element - /header must have required property 'accept'",
    );
    expect(await admin('GET', '/oracles')).toMatchObject({ status: 200, json: [] });
  });

  it('requires Date on PUT (not Accept; without Content-Type the body is unread), Accept, Content-Type and Date on DELETE and GET', async () => {
    expectError(
      await admin('PUT', '/oracles/1', oracleInfo(), without('date')),
      400,
      '3102',
      "Missing mandatory element - /header must have required property 'date'",
    );
    expectError(
      await admin('PUT', '/oracles/1', oracleInfo(), without('content-type')),
      400,
      '3102',
      "Missing mandatory element - /requestBody must have required property 'endpoint'",
    );
    const { 'content-type': _type, ...noType } = adminHeaders();
    expectError(
      await admin('PUT', '/oracles/1', undefined, noType),
      400,
      '3102',
      "Missing mandatory element - /requestBody must have required property 'endpoint'",
    );
    const { date: _day, ...typeNoDate } = adminHeaders();
    expectError(
      await admin('PUT', '/oracles/1', {}, { ...typeNoDate }),
      400,
      '3102',
      "Missing mandatory element - /requestBody must have required property 'endpoint'",
    );
    expectError(
      await admin('PUT', '/oracles/1', oracleInfo(), without('accept')),
      400,
      '3003',
      'Add Party information error - Oracle not found',
    );
    for (const method of ['DELETE', 'GET'] as const)
      for (const header of ['accept', 'content-type', 'date'])
        expectError(
          await admin(method, method === 'GET' ? '/oracles' : '/oracles/1', undefined, without(header)),
          400,
          '3102',
          `Missing mandatory element - /header must have required property '${header}'`,
        );
  });

  it('refuses undeclared query parameters with 3103, a repeated one with 3101', async () => {
    expectError(
      await admin('GET', '/oracles?type=MSISDN&page=2'),
      400,
      '3103',
      'Too many elements - /query must NOT have additional properties',
    );
    expectError(
      await admin('POST', '/oracles?x=1', oracleInfo()),
      400,
      '3103',
      'Too many elements - /query must NOT have additional properties',
    );
    expectError(
      await admin('GET', '/oracles?type=MSISDN&type=EMAIL'),
      400,
      '3101',
      'Malformed syntax - /query/type must be string',
    );
    expect(await admin('GET', '/oracles?type=MSISDN&currency=USD')).toMatchObject({ status: 200, json: [] });
  });

  it('answers unknown paths 404 3002 (DELETE /endpointcache too: it is on the API port) and other methods 405 with Allow', async () => {
    for (const [method, path] of [
      ['DELETE', '/endpointcache'],
      ['GET', '/nothing'],
      ['GET', '/oracles/'],
    ] as const)
      expectError(await admin(method, path), 404, '3002', 'Unknown URI - Not Found');
    const patch = await admin('PATCH', '/oracles', oracleInfo());
    expectError(patch, 405, '3000', 'Generic client error - Method Not Allowed');
    expect(patch.headers.allow).toBe('get,post');
    const get = await admin('GET', '/oracles/1');
    expectError(get, 405, '3000', 'Generic client error - Method Not Allowed');
    expect(get.headers.allow).toBe('put,delete');
  });
  it('counts every answer of the admin port by route and status', async () => {
    const count = async (route: string, status: number) => {
      const text = (await admin('GET', '/metrics')).text;
      const line = text
        .split('\n')
        .find((l) => l.startsWith(`als_admin_requests_total{route="${route}",status="${status}"}`));
      return Number(line?.split(' ')[1] ?? 0);
    };
    const [refused, missing] = [await count('/oracles', 400), await count('unmatched', 404)];
    await admin('POST', '/oracles', oracleInfo({ currency: 'ZZZ' }));
    await admin('GET', '/nothing');
    expect([await count('/oracles', 400), await count('unmatched', 404)]).toEqual([refused + 1, missing + 1]);
  });
});

describe('admin API when the registry fails', () => {
  it('answers 500 2001 without the cause’s text (no SQL reaches a client)', async () => {
    const store = createMemoryOracleStore([]);
    // The fault: the database refuses the query, its message naming the SQL.
    const refuse = async (): Promise<never> => {
      throw new Error('select * from `oracleEndpoint` where `oracleEndpointId` = NaN - ER_BAD_FIELD_ERROR');
    };
    const failing: OracleStore = { ...store, list: refuse, get: refuse };
    const app = Fastify({ logger: false });
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    registerAdminRoutes(app, {
      registry: createOracleRegistry(failing, { ttlMs: 0, maxStaleMs: 0 }),
      currencies: loadFspiopSchemas().currencies,
      profiler: { running: false, profile: async () => '', stop: async () => {} } as never,
      defaultProfileSeconds: 1,
      metrics: new PromRegistry(),
    });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      for (const [method, path, body] of [
        ['GET', '/oracles', undefined],
        ['POST', '/oracles', oracleInfo()],
        ['PUT', '/oracles/1', oracleInfo()],
      ] as const) {
        const answer = await adminCall(url, method, path, body);
        expect(answer.text).not.toMatch(/select|oracleEndpoint|NaN/);
        expectError(answer, 500, '2001', 'Internal server error');
      }
    } finally {
      await app.close();
    }
  });
});

import { type OracleSim, startOracleSim } from '@mojafast/sim';
import { createDatabase, type TestDatabase } from '@mojafast/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, errorCodeOf, lookupHeaders, newTraceId, type Stack, startStack } from './helpers.js';

let database: TestDatabase;
let stack: Stack;
let second: OracleSim;
beforeAll(async () => {
  database = await createDatabase({ prefix: 'als_oracles' });
  second = await startOracleSim({ fsps: 1, notFoundPrefix: '' });
  const { host, port, user, password, name } = { ...database.connection, name: database.name };
  stack = await startStack({
    config: {
      dbHost: host,
      dbPort: port,
      dbUser: user,
      dbPassword: password,
      dbName: name,
      oracleRegistryCacheTtlMs: 0,
    },
  });
});
afterAll(async () => {
  await stack?.close();
  await second?.close();
  await database?.drop();
});

const admin = (path: string, method: 'GET' | 'POST' | 'PUT' | 'DELETE' = 'GET', body?: unknown) =>
  call(
    `${stack.als.adminUrl}${path}`,
    method,
    { 'content-type': 'application/json' },
    body === undefined ? undefined : JSON.stringify(body),
  );

async function lookUp(id: string) {
  const traceId = newTraceId();
  await call(`${stack.als.url}/parties/MSISDN/${id}`, 'GET', lookupHeaders(traceId));
  const callback = await stack.sims.payer?.waitForCallback(traceId, 5_000);
  if (!callback) throw new Error('no payer simulator');
  return callback;
}

describe('oracle registry in MySQL (table oracleEndpoint)', () => {
  it('calls back 3003 while no oracle is registered for the type', async () => {
    const callback = await lookUp('46740000001');
    expect(callback.kind).toBe('error');
    expect(errorCodeOf(callback.body)).toBe('3003');
  });

  it('registers an oracle with POST /oracles, lists it, and routes lookups to it', async () => {
    const created = await admin('/oracles', 'POST', {
      oracleIdType: 'MSISDN',
      endpoint: { value: stack.sims.oracle.url, endpointType: 'URL' },
      isDefault: true,
    });
    expect(created.status).toBe(201);
    const list = JSON.parse((await admin('/oracles')).body);
    expect(list).toEqual([
      expect.objectContaining({
        oracleIdType: 'MSISDN',
        endpoint: { value: stack.sims.oracle.url, endpointType: 'URL' },
      }),
    ]);
    const before = stack.sims.oracle.stats.get;
    expect((await lookUp('46740000002')).kind).toBe('success');
    expect(stack.sims.oracle.stats.get).toBe(before + 1);
  });

  it('with two oracles and no default, calls back a clear 2001; PUT to make one default fixes it', async () => {
    const list = JSON.parse((await admin('/oracles')).body) as { oracleId: number }[];
    const firstId = (list[0] as { oracleId: number }).oracleId;
    expect((await admin(`/oracles/${firstId}`, 'PUT', { isDefault: false })).status).toBe(204);
    expect(
      (await admin('/oracles', 'POST', { oracleIdType: 'MSISDN', endpoint: { value: second.url }, isDefault: false }))
        .status,
    ).toBe(201);
    const ambiguous = await lookUp('46740000003');
    expect(errorCodeOf(ambiguous.body)).toBe('2001');
    expect(JSON.parse(ambiguous.body.toString()).errorInformation.errorDescription).toContain('none is the default');

    const rows = JSON.parse((await admin('/oracles')).body) as { oracleId: number; endpoint: { value: string } }[];
    const secondId = rows.find((r) => r.endpoint.value === second.url)?.oracleId;
    expect((await admin(`/oracles/${secondId}`, 'PUT', { isDefault: true })).status).toBe(204);
    const before = second.stats.get;
    expect((await lookUp('46740000004')).kind).toBe('success');
    expect(second.stats.get).toBe(before + 1);
  });

  it('DELETE /oracles/{ID} deactivates the row; an unknown ID is 404; a bad body is 400', async () => {
    const rows = JSON.parse((await admin('/oracles')).body) as { oracleId: number }[];
    for (const row of rows) expect((await admin(`/oracles/${row.oracleId}`, 'DELETE')).status).toBe(204);
    expect(JSON.parse((await admin('/oracles')).body)).toEqual([]);
    expect((await admin('/oracles/99999', 'DELETE')).status).toBe(404);
    expect((await admin('/oracles', 'POST', { oracleIdType: 'PHONE', endpoint: { value: 'x' } })).status).toBe(400);
  });
});

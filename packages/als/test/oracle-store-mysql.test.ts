import { createDatabase, type TestDatabase } from '@mojafast/testkit';
import knexFactory, { type Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OracleStore } from '../src/upstream/oracle-registry.js';
import { createMysqlOracleStore } from '../src/upstream/oracle-store-mysql.js';

// The per-lookup read of one type skips knex's builder: it must answer what the builder's query answers and
// fail with the text knex gives (its statement, " - ", mysql2's message).
describe('the MySQL oracle registry, read by party ID type', () => {
  let database: TestDatabase;
  let store: OracleStore;
  let db: Knex;

  beforeAll(async () => {
    database = await createDatabase({ prefix: 'als_store' });
    const { host, port, user, password } = database.connection;
    store = await createMysqlOracleStore({ host, port, user, password, database: database.name });
    db = knexFactory({ client: 'mysql2', connection: { host, port, user, password, database: database.name } });
  });

  afterAll(async () => {
    await store?.close();
    await db?.destroy();
    await database?.drop();
  });

  it('answers the rows of its type only, as the whole list filtered by type', async () => {
    const base = { endpointType: 'URL', isDefault: true } as const;
    await store.create({ ...base, type: 'MSISDN', currency: null, url: 'http://127.0.0.1:9/msisdn' });
    await store.create({ ...base, type: 'MSISDN', currency: 'EUR', url: 'http://127.0.0.1:9/msisdn-eur' });
    await store.create({ ...base, type: 'EMAIL', currency: null, url: 'http://127.0.0.1:9/email' });
    const all = await store.list();
    const msisdn = await store.list('MSISDN');
    expect(msisdn.map((r) => r.url)).toEqual(['http://127.0.0.1:9/msisdn', 'http://127.0.0.1:9/msisdn-eur']);
    expect(msisdn).toEqual(all.filter((r) => r.type === 'MSISDN'));
    expect(await store.list('ACCOUNT_ID')).toEqual([]);
  });

  it("fails with knex's text when the table is gone", async () => {
    await db.schema.renameTable('oracleEndpoint', 'oracleEndpointAway');
    try {
      const knexQuery = db('oracleEndpoint as oe')
        .join('partyIdType as pit', 'pit.partyIdTypeId', 'oe.partyIdTypeId')
        .join('endpointType as et', 'et.endpointTypeId', 'oe.endpointTypeId')
        .where({ 'oe.isActive': 1, 'pit.isActive': 1, 'et.isActive': 1 })
        .orderBy('oe.oracleEndpointId')
        .select(
          'oe.oracleEndpointId as id',
          'pit.name as type',
          'oe.currencyId as currency',
          'oe.value as url',
          'et.type as endpointType',
          'oe.isDefault as isDefault',
          'oe.isActive as isActive',
        )
        .andWhere('pit.name', 'MSISDN');
      const knexError = await knexQuery.then(
        () => undefined,
        (error: Error) => error,
      );
      const ours = await store.list('MSISDN').then(
        () => undefined,
        (error: Error) => error,
      );
      expect(knexError?.message).toMatch(/ - .*oracleEndpoint/);
      expect({ message: ours?.message, code: (ours as { code?: string })?.code }).toEqual({
        message: knexError?.message,
        code: (knexError as { code?: string })?.code,
      });
    } finally {
      await db.schema.renameTable('oracleEndpointAway', 'oracleEndpoint');
    }
  });
});

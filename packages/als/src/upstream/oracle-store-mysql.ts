import knexFactory, { type Knex } from 'knex';
import type { OracleRecord } from '../discovery/oracles.js';
import type { OracleInput, OracleStore } from './oracle-registry.js';

export interface MysqlSettings {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  readonly database: string;
}

/** Party ID types of FSPIOP v1.1 (section 7.5.6), the rows of the original's partyIdType seed. */
const partyIdTypes = ['MSISDN', 'EMAIL', 'PERSONAL_ID', 'BUSINESS', 'DEVICE', 'ACCOUNT_ID', 'IBAN', 'ALIAS'];

/**
 * Creates the original's tables when they are missing (an empty database), with the columns the ALS
 * reads: partyIdType, endpointType, oracleEndpoint. An existing account_lookup database is used as is.
 */
export async function ensureOracleSchema(db: Knex): Promise<void> {
  if (!(await db.schema.hasTable('partyIdType'))) {
    await db.schema.createTable('partyIdType', (t) => {
      t.increments('partyIdTypeId').primary();
      t.string('name', 512).notNullable().unique();
      t.string('description', 512).notNullable().defaultTo('');
      t.boolean('isActive').notNullable().defaultTo(true);
      t.dateTime('createdDate').notNullable().defaultTo(db.fn.now());
    });
    await db('partyIdType').insert(partyIdTypes.map((name) => ({ name, description: name })));
  }
  if (!(await db.schema.hasTable('endpointType'))) {
    await db.schema.createTable('endpointType', (t) => {
      t.increments('endpointTypeId').primary();
      t.string('type', 50).notNullable().unique();
      t.string('description', 512).notNullable().defaultTo('');
      t.boolean('isActive').notNullable().defaultTo(true);
      t.dateTime('createdDate').notNullable().defaultTo(db.fn.now());
    });
    await db('endpointType').insert({ type: 'URL', description: 'REST URLs' });
  }
  if (!(await db.schema.hasTable('oracleEndpoint'))) {
    await db.schema.createTable('oracleEndpoint', (t) => {
      t.increments('oracleEndpointId').primary();
      t.integer('partyIdTypeId').unsigned().notNullable().references('partyIdTypeId').inTable('partyIdType');
      t.integer('endpointTypeId').unsigned().notNullable().references('endpointTypeId').inTable('endpointType');
      t.string('currencyId', 3).nullable();
      t.string('value', 512).notNullable();
      t.boolean('isDefault').notNullable().defaultTo(false);
      t.boolean('isActive').notNullable().defaultTo(true);
      t.dateTime('createdDate').notNullable().defaultTo(db.fn.now());
      t.string('createdBy', 128).notNullable().defaultTo('mojafast-als');
    });
  }
}

interface Row {
  id: number;
  type: string;
  currency: string | null;
  url: string;
  endpointType: string;
  isDefault: number;
  isActive: number;
}

const toRecord = (row: Row): OracleRecord => ({
  id: row.id,
  type: row.type,
  currency: row.currency,
  url: row.url.replace(/\/+$/, ''),
  endpointType: row.endpointType,
  isDefault: Boolean(row.isDefault),
  isActive: Boolean(row.isActive),
});

/** The oracle registry in MySQL: the original's table oracleEndpoint through knex/mysql2. */
export async function createMysqlOracleStore(settings: MysqlSettings): Promise<OracleStore> {
  const db = knexFactory({
    client: 'mysql2',
    connection: { ...settings },
    pool: { min: 0, max: 4 },
  });
  await ensureOracleSchema(db);

  const select = () =>
    db('oracleEndpoint as oe')
      .join('partyIdType as pit', 'pit.partyIdTypeId', 'oe.partyIdTypeId')
      .join('endpointType as et', 'et.endpointTypeId', 'oe.endpointTypeId')
      .where('oe.isActive', 1)
      .select(
        'oe.oracleEndpointId as id',
        'pit.name as type',
        'oe.currencyId as currency',
        'oe.value as url',
        'et.type as endpointType',
        'oe.isDefault as isDefault',
        'oe.isActive as isActive',
      );

  const idsOf = async (input: Partial<OracleInput>): Promise<Record<string, unknown>> => {
    const columns: Record<string, unknown> = {};
    if (input.oracleIdType !== undefined) {
      const type = await db('partyIdType').where({ name: input.oracleIdType }).first('partyIdTypeId');
      if (!type) throw new Error(`unknown oracleIdType ${input.oracleIdType}`);
      columns.partyIdTypeId = type.partyIdTypeId;
    }
    if (input.endpoint !== undefined) {
      const endpointType = await db('endpointType')
        .where({ type: input.endpoint.endpointType ?? 'URL' })
        .first('endpointTypeId');
      if (!endpointType) throw new Error(`unknown endpointType ${input.endpoint.endpointType}`);
      columns.endpointTypeId = endpointType.endpointTypeId;
      columns.value = input.endpoint.value;
    }
    if (input.currency !== undefined) columns.currencyId = input.currency;
    if (input.isDefault !== undefined) columns.isDefault = input.isDefault;
    return columns;
  };

  return {
    async list(type) {
      const query = select();
      if (type !== undefined) query.andWhere('pit.name', type);
      return ((await query) as Row[]).map(toRecord);
    },
    async create(input) {
      const [id] = await db('oracleEndpoint').insert(await idsOf(input));
      const row = (await select().andWhere('oe.oracleEndpointId', id).first()) as Row;
      return toRecord(row);
    },
    async update(id, input) {
      const columns = await idsOf(input);
      if (Object.keys(columns).length === 0)
        return (await select().andWhere('oe.oracleEndpointId', id).first()) !== undefined;
      return (await db('oracleEndpoint').where({ oracleEndpointId: id, isActive: 1 }).update(columns)) > 0;
    },
    async remove(id) {
      return (await db('oracleEndpoint').where({ oracleEndpointId: id, isActive: 1 }).update({ isActive: 0 })) > 0;
    },
    async ping() {
      await db.raw('SELECT 1');
    },
    close: () => db.destroy(),
  };
}

import type { ConnectionOptions } from 'node:tls';
import knexFactory, { type Knex } from 'knex';
import type { OracleRecord } from '../discovery/oracles.js';
import { oraclePartyIdTypes } from '../fspiop/party-id.js';
import type { OracleFields, OracleStore } from './oracle-registry.js';
import { ConnectionStartError, failureReason } from './tls.js';

export interface MysqlSettings {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  readonly database: string;
  /**
   * mysql2's `ssl`: node:tls options plus `verifyIdentity` (mysql2 checks the host name only with it), or
   * the name of one of its CA profiles; undefined: no TLS.
   */
  readonly ssl?: (ConnectionOptions & { verifyIdentity?: boolean }) | string | undefined;
  /** How the settings are named in the one line a failed start stops with (ours and the original's keys). */
  readonly keys?: string;
}

/**
 * Creates a table, or finds it made meanwhile: the API and the admin processes of one deployment (Mojaloop's
 * charts run them as two) start at once on an empty database, and both find the table missing. True when this
 * call made it.
 */
async function createMissing(db: Knex, table: string, columns: (t: Knex.CreateTableBuilder) => void): Promise<boolean> {
  try {
    await db.schema.createTable(table, columns);
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === 'ER_TABLE_EXISTS_ERROR') return false;
    throw error;
  }
}

/**
 * Creates the original's tables when they are missing (an empty database), with the columns the ALS
 * reads: partyIdType, endpointType, oracleEndpoint. An existing account_lookup database is used as is,
 * except that party ID types of the seed it lacks are added (a database made by an older version of ours).
 */
export async function ensureOracleSchema(db: Knex): Promise<void> {
  if (!(await db.schema.hasTable('partyIdType'))) {
    await createMissing(db, 'partyIdType', (t) => {
      t.increments('partyIdTypeId').primary();
      t.string('name', 512).notNullable().unique();
      t.string('description', 512).notNullable().defaultTo('');
      t.boolean('isActive').notNullable().defaultTo(true);
      t.dateTime('createdDate').notNullable().defaultTo(db.fn.now());
    });
  }
  const known = new Set((await db('partyIdType').select('name')).map((row: { name: string }) => row.name));
  const lacking = oraclePartyIdTypes.filter((name) => !known.has(name));
  // Several processes may start at once: a row another one just added is no error.
  if (lacking.length > 0)
    await db('partyIdType')
      .insert(lacking.map((name) => ({ name, description: name })))
      .onConflict('name')
      .ignore();
  if (!(await db.schema.hasTable('endpointType'))) {
    const created = await createMissing(db, 'endpointType', (t) => {
      t.increments('endpointTypeId').primary();
      t.string('type', 50).notNullable().unique();
      t.string('description', 512).notNullable().defaultTo('');
      t.boolean('isActive').notNullable().defaultTo(true);
      t.dateTime('createdDate').notNullable().defaultTo(db.fn.now());
    });
    if (created) await db('endpointType').insert({ type: 'URL', description: 'REST URLs' });
  }
  if (!(await db.schema.hasTable('oracleEndpoint'))) {
    await createMissing(db, 'oracleEndpoint', (t) => {
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
  url: row.url,
  endpointType: row.endpointType,
  isDefault: Boolean(row.isDefault),
  isActive: Boolean(row.isActive),
});

/** The part of mysql2's connection the per-lookup read uses (knex's pool holds mysql2 connections). */
interface RawConnection {
  query(sql: string, callback: (error: Error | null, rows: unknown) => void): void;
}

/**
 * The registry's rows of one party ID type, read on every lookup when no cache is configured (the original's
 * default): the same statement knex would send, on a connection of knex's own pool, without knex's builder
 * and runner, which cost more CPU than the round trip itself. The statement is compiled once per type (the
 * types are the scheme's few); a failure reads as knex's would (its statement, " - ", mysql2's message), and
 * acquiring the connection fails as knex's runner does (the same pool, its timeout).
 */
function typeRowsReader(db: Knex, query: (type: string) => Knex.QueryBuilder): (type: string) => Promise<Row[]> {
  const statements = new Map<string, string>();
  const client = db.client as {
    acquireConnection(): Promise<RawConnection>;
    releaseConnection(connection: RawConnection): Promise<unknown>;
  };
  return async (type) => {
    let sql = statements.get(type);
    if (sql === undefined) {
      sql = query(type).toString();
      if (statements.size < 1_000) statements.set(type, sql);
    }
    const statement = sql;
    const connection = await client.acquireConnection();
    try {
      return await new Promise<Row[]>((resolve, reject) => {
        connection.query(statement, (error, rows) => {
          if (error) {
            error.message = `${statement} - ${error.message}`;
            reject(error);
          } else resolve(rows as Row[]);
        });
      });
    } finally {
      await client.releaseConnection(connection);
    }
  };
}

/** The oracle registry in MySQL: the original's table oracleEndpoint through knex/mysql2. */
export async function createMysqlOracleStore(settings: MysqlSettings): Promise<OracleStore> {
  const { ssl, keys, ...connection } = settings;
  const db = knexFactory({
    client: 'mysql2',
    connection: { ...connection, ...(ssl !== undefined ? { ssl } : {}) },
    pool: { min: 0, max: 4 },
  });
  try {
    await ensureOracleSchema(db);
  } catch (error) {
    await db.destroy().catch(() => undefined);
    // The first query is the first connection: a refused, untrusted or plaintext one stops the start in one
    // line naming the server, not a stack of knex's.
    throw new ConnectionStartError(
      `the oracle registry's MySQL at ${settings.host}:${settings.port}${keys ? ` (${keys})` : ''} cannot be used: ${failureReason(error)}`,
      error,
    );
  }

  const select = () =>
    db('oracleEndpoint as oe')
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
      );

  const idOf = async (table: string, column: string, where: Record<string, string>) => {
    const row = await db(table).where(where).first(column);
    if (!row) throw new Error(`${table} has no row ${JSON.stringify(where)}`);
    return row[column] as number;
  };
  const columnsOf = async (fields: OracleFields) => ({
    partyIdTypeId: await idOf('partyIdType', 'partyIdTypeId', { name: fields.type }),
    endpointTypeId: await idOf('endpointType', 'endpointTypeId', { type: fields.endpointType }),
    currencyId: fields.currency,
    value: fields.url,
    isDefault: fields.isDefault,
  });

  const rowsOfType = typeRowsReader(db, (type) => select().andWhere('pit.name', type));

  return {
    async list(type) {
      if (type !== undefined) return (await rowsOfType(type)).map(toRecord);
      return ((await select()) as Row[]).map(toRecord);
    },
    async get(id) {
      const row = (await select().andWhere('oe.oracleEndpointId', id).first()) as Row | undefined;
      return row && toRecord(row);
    },
    async create(fields) {
      // createdBy has no default in the original's table; its admin API writes 'Admin'.
      const [id] = await db('oracleEndpoint').insert({ ...(await columnsOf(fields)), createdBy: 'Admin' });
      const row = (await select().andWhere('oe.oracleEndpointId', id).first()) as Row;
      return toRecord(row);
    },
    async update(id, fields) {
      return (
        (await db('oracleEndpoint')
          .where({ oracleEndpointId: id, isActive: 1 })
          .update(await columnsOf(fields))) > 0
      );
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

import knexFactory, { type Knex } from 'knex';
import { createPool, type Pool, type PoolConnection } from 'mysql2';
import type { PositionConfig } from '../config/index.js';

export interface DbSettings {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  readonly database: string;
  readonly poolMax?: number;
  /** TLS: undefined for none (security.ts builds it from the settings). */
  readonly ssl?: DbSsl;
  /** mysql2's connectTimeout (its default 10 s when unset). */
  readonly connectTimeoutMs?: number;
}

/**
 * mysql2's `ssl`: the name of one of its profiles (a CA bundle), or its object: the certificate is verified
 * unless rejectUnauthorized is false, the host name checked only with verifyIdentity; ca, cert and key are PEM text.
 */
export type DbSsl =
  | string
  | {
      /** mysql2's default: true. */
      readonly rejectUnauthorized?: boolean;
      /** mysql2's default: false. */
      readonly verifyIdentity?: boolean;
      readonly ca?: string;
      readonly cert?: string;
      readonly key?: string;
      readonly passphrase?: string;
    };

/**
 * mysql2's connection options for both pools. DECIMAL and BIGINT come back as strings (amounts are parsed into
 * exact BigInt ten-thousandths; ids stay text).
 */
function connectionOptions(settings: DbSettings) {
  return {
    host: settings.host,
    port: settings.port,
    user: settings.user,
    password: settings.password,
    database: settings.database,
    ...(settings.ssl === undefined ? {} : { ssl: settings.ssl }),
    ...(settings.connectTimeoutMs === undefined ? {} : { connectTimeout: settings.connectTimeoutMs }),
    supportBigNumbers: true,
    bigNumberStrings: true,
    decimalNumbers: false,
    dateStrings: true,
    // A batch sends its statements in two round trips (PositionStore); every value is bound and escaped.
    multipleStatements: true,
  };
}

/**
 * A knex instance on mysql2, for the schema: migrations, provisioning and tests' reads. The handler's batches
 * run on the pool of createPool, not on this one.
 */
export function createKnex(settings: DbSettings): Knex {
  return knexFactory({
    client: 'mysql2',
    connection: connectionOptions(settings),
    pool: { min: 0, max: settings.poolMax ?? 4 },
  });
}

/**
 * The store's pool, on mysql2's public pool API (getConnection / release; knex hands out its pooled
 * connections only through its undocumented client). Every new connection is set up before the first
 * statement of whoever acquired it (mysql2 runs a connection's commands in order, and emits `connection`
 * before handing a new one over):
 * - READ COMMITTED: see PositionStore (the history read must see what other processes committed);
 * - MariaDB rewrites an IN list of in_predicate_conversion_threshold (1000) values or more into a join with a
 *   derived table, and then scans the whole transferStateChange table per batch (EXPLAIN: type ALL, 80k rows
 *   for a 1,000-transfer batch; it grows with the table). 0 turns the rewrite off, so the IN stays an index
 *   range. MySQL has no such variable (errno 1193): nothing to turn off there.
 * A connection whose set-up fails is destroyed, so the batch that acquired it fails (and is retried) instead of
 * running at the wrong isolation level.
 */
export function createStorePool(settings: DbSettings): Pool {
  const pool = createPool({
    ...connectionOptions(settings),
    connectionLimit: settings.poolMax ?? 4,
    // A reset on release (COM_RESET_CONNECTION) would drop the session settings below and cost a round trip.
    resetOnRelease: false,
  });
  pool.on('connection', (connection: PoolConnection) => {
    const fail = (error: Error | null) => {
      if (error) connection.destroy();
    };
    connection.query('SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED', fail);
    connection.query(
      'SET SESSION in_predicate_conversion_threshold = 0',
      (error: (Error & { errno?: number }) | null) => fail(error && error.errno !== 1193 ? error : null),
    );
  });
  return pool;
}

/** Ends a pool of createStorePool: its connections are closed once the statements in hand finish. */
export function endStorePool(pool: Pool): Promise<void> {
  return new Promise((resolve, reject) => pool.end((error) => (error ? reject(error) : resolve())));
}

function settingsOf(config: PositionConfig, ssl: DbSsl | undefined): DbSettings {
  return {
    ssl,
    connectTimeoutMs: config.dbConnectTimeoutMs,
    host: config.dbHost,
    port: config.dbPort,
    user: config.dbUser,
    password: config.dbPassword,
    database: config.dbName,
    poolMax: config.dbPoolMax,
  };
}

/** The handler's database, as its configuration names it (the provisioning CLI); `ssl` from security.ts. */
export function knexFromConfig(config: PositionConfig, ssl?: DbSsl): Knex {
  return createKnex(settingsOf(config, ssl));
}

/** The handler's batches' pool, as its configuration names it (main); `ssl` from security.ts. */
export function storePoolFromConfig(config: PositionConfig, ssl?: DbSsl): Pool {
  return createStorePool(settingsOf(config, ssl));
}

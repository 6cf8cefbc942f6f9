import knexFactory, { type Knex } from 'knex';
import type { PositionConfig } from '../config/index.js';

export interface DbSettings {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  readonly database: string;
  readonly poolMax?: number;
}

/**
 * A knex instance on mysql2. DECIMAL and BIGINT come back as strings (amounts are parsed into exact BigInt
 * ten-thousandths; ids stay text). Every pooled connection runs READ COMMITTED: see PositionStore.
 */
export function createKnex(settings: DbSettings): Knex {
  return knexFactory({
    client: 'mysql2',
    connection: {
      host: settings.host,
      port: settings.port,
      user: settings.user,
      password: settings.password,
      database: settings.database,
      supportBigNumbers: true,
      bigNumberStrings: true,
      decimalNumbers: false,
      dateStrings: true,
      // A batch sends its statements in two round trips (PositionStore); every value is bound and escaped.
      multipleStatements: true,
    },
    pool: {
      min: 0,
      max: settings.poolMax ?? 4,
      afterCreate(
        connection: { query: (sql: string, cb: (error: Error | null) => void) => void },
        done: (error: Error | null, c: unknown) => void,
      ) {
        connection.query('SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED', (error) => {
          if (error) return done(error, connection);
          // MariaDB rewrites an IN list of in_predicate_conversion_threshold (1000) values or more into a join
          // with a derived table, and then scans the whole transferStateChange table per batch (EXPLAIN: type
          // ALL, 80k rows for a 1,000-transfer batch; it grows with the table). 0 turns the rewrite off, so the
          // IN stays an index range. MySQL has no such variable (errno 1193): nothing to turn off there.
          connection.query('SET SESSION in_predicate_conversion_threshold = 0', (mariaError) =>
            done(mariaError && (mariaError as { errno?: number }).errno !== 1193 ? mariaError : null, connection),
          );
        });
      },
    },
  });
}

/** The handler's database, as its configuration names it (main and the provisioning CLI). */
export function knexFromConfig(config: PositionConfig): Knex {
  return createKnex({
    host: config.dbHost,
    port: config.dbPort,
    user: config.dbUser,
    password: config.dbPassword,
    database: config.dbName,
    poolMax: config.dbPoolMax,
  });
}

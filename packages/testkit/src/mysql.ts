import mysql from 'mysql2/promise';
import { recordResource } from './leftovers.js';
import { uniqueName } from './names.js';
import { type InfraSettings, loadInfraSettings, readTlsCredentials } from './settings.js';

export interface DatabaseConnection {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  readonly database: string;
  /** On the secure stack's server: the CA its certificate is checked against (mysql2's `ssl`). */
  readonly ssl?: { readonly ca: string };
}

export interface TestDatabase {
  readonly name: string;
  readonly connection: DatabaseConnection;
  /** Drops the database; safe to call twice. */
  drop(): Promise<void>;
}

/** The plain server's connection settings, or (secure) the secure stack's, over TLS. */
export function serverConnection(settings: InfraSettings, secure = false): Omit<DatabaseConnection, 'database'> {
  const { user, password } = settings.mysql;
  if (!secure) return { host: settings.mysql.host, port: settings.mysql.port, user, password };
  const { host, port } = settings.tls.mysql;
  // Not frozen: mysql2 writes its defaults (rejectUnauthorized) into the ssl object it is given.
  return { host, port, user, password, ssl: { ca: readTlsCredentials(settings).ca } };
}

async function withServer<T>(
  server: Omit<DatabaseConnection, 'database'>,
  work: (c: mysql.Connection) => Promise<T>,
): Promise<T> {
  const connection = await mysql.createConnection({ ...server, ...(server.ssl ? { ssl: { ...server.ssl } } : {}) });
  try {
    return await work(connection);
  } finally {
    await connection.end();
  }
}

/** Creates an empty database that belongs to one test file; with `secure`, on the secure stack's server. */
export async function createDatabase(
  options: { prefix?: string; settings?: InfraSettings; secure?: boolean } = {},
): Promise<TestDatabase> {
  const settings = options.settings ?? loadInfraSettings();
  const name = uniqueName(options.prefix ?? 'test');
  const at = serverConnection(settings, options.secure);
  await withServer(at, (c) => c.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4`));
  const server = `${at.host}:${at.port}`;
  recordResource('database', name, server, 'created');
  let dropped = false;
  return {
    name,
    connection: Object.freeze({ ...at, database: name }),
    async drop() {
      if (dropped) return;
      dropped = true;
      await withServer(at, (c) => c.query(`DROP DATABASE IF EXISTS \`${name}\``));
      recordResource('database', name, server, 'dropped');
    },
  };
}

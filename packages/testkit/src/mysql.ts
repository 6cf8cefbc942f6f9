import mysql from 'mysql2/promise';
import { recordResource } from './leftovers.js';
import { uniqueName } from './names.js';
import { type InfraSettings, loadInfraSettings } from './settings.js';

export interface DatabaseConnection {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  readonly database: string;
}

export interface TestDatabase {
  readonly name: string;
  readonly connection: DatabaseConnection;
  /** Drops the database; safe to call twice. */
  drop(): Promise<void>;
}

async function withServer<T>(settings: InfraSettings, work: (c: mysql.Connection) => Promise<T>): Promise<T> {
  const { host, port, user, password } = settings.mysql;
  const connection = await mysql.createConnection({ host, port, user, password });
  try {
    return await work(connection);
  } finally {
    await connection.end();
  }
}

/** Creates an empty database that belongs to one test file. */
export async function createDatabase(
  options: { prefix?: string; settings?: InfraSettings } = {},
): Promise<TestDatabase> {
  const settings = options.settings ?? loadInfraSettings();
  const name = uniqueName(options.prefix ?? 'test');
  await withServer(settings, (c) => c.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4`));
  const server = `${settings.mysql.host}:${settings.mysql.port}`;
  recordResource('database', name, server, 'created');
  let dropped = false;
  return {
    name,
    connection: Object.freeze({ ...settings.mysql, database: name }),
    async drop() {
      if (dropped) return;
      dropped = true;
      await withServer(settings, (c) => c.query(`DROP DATABASE IF EXISTS \`${name}\``));
      recordResource('database', name, server, 'dropped');
    },
  };
}

import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  centralLedgerAppDir,
  createDatabase,
  loadInfraSettings,
  type PrivateCentralLedger,
  startCentralLedger,
  testKafka,
} from '../src/index.js';

// `infra/svc start central-ledger`: central-ledger itself (built into the cache ./run fills), its API and its
// handlers on the shared Kafka and MariaDB, here as a private switch (own prefix, database and ports).
const svc = fileURLToPath(new URL('../../../infra/svc', import.meta.url));
const migrator = fileURLToPath(new URL('../../../infra/central-ledger/migrate.mjs', import.meta.url));
const run = promisify(execFile);
const settings = loadInfraSettings();
let cl: PrivateCentralLedger;

async function groupMembers(groupId: string): Promise<number> {
  const admin = testKafka(settings, 'mojafast-cl-test').admin();
  await admin.connect();
  try {
    const { groups } = await admin.describeGroups([groupId]);
    return groups[0]?.members.length ?? 0;
  } finally {
    await admin.disconnect();
  }
}

async function health(port: number): Promise<{ status: number; body: { status?: string; services?: unknown } }> {
  const response = await fetch(`http://127.0.0.1:${port}/health`);
  return { status: response.status, body: (await response.json()) as { status?: string } };
}

/**
 * Asks /health until it answers 200 with the datastore and the broker OK. A start waits for each /health to
 * answer 200, but the broker's check can still turn 502 for a moment while a handler's consumers join their
 * groups (seen on a loaded machine, at each of the switch's processes).
 */
async function untilHealthy(port: number): Promise<void> {
  await vi.waitFor(
    async () => {
      const { status, body } = await health(port);
      expect({ status, body }).toMatchObject({
        status: 200,
        body: {
          status: 'OK',
          services: [
            { name: 'datastore', status: 'OK' },
            { name: 'broker', status: 'OK' },
          ],
        },
      });
    },
    { timeout: 12_000, interval: 250 },
  );
}

/** Whether a TCP connection to HOST:PORT is accepted. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

beforeAll(async () => {
  cl = await startCentralLedger({ timeoutCron: '*/2 * * * * *', positionBatchSize: 7 });
}, 300_000);

afterAll(async () => {
  await cl?.stop();
});

describe('infra/svc start central-ledger', () => {
  it('serves its admin API and /health (datastore and broker OK) on the ports it was given, on loopback only', async () => {
    for (const port of [cl.ports.api, cl.ports.handlers]) await untilHealthy(port);
    const participants = (await (await fetch(`${cl.adminUrl}/participants`)).json()) as { name: string }[];
    expect(participants.map((p) => p.name)).toEqual(['Hub']);
    const outside = Object.values(networkInterfaces())
      .flat()
      .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal);
    if (outside) expect(await accepts(outside.address, cl.ports.api)).toBe(false);
  });

  it("migrated and seeded its database with central-ledger's own migrations", async () => {
    const migrations = readdirSync(join(centralLedgerAppDir(), 'migrations'));
    const connection = await mysql.createConnection({ ...settings.mysql, database: cl.database });
    try {
      const [rows] = await connection.query<mysql.RowDataPacket[]>('SELECT COUNT(*) AS n FROM migration');
      expect(Number(rows[0]?.n)).toBe(migrations.filter((f) => f.endsWith('.js')).length);
    } finally {
      await connection.end();
    }
  });

  // infra/svc start migrates the default database from central-ledger's npm tarball with our knex
  // (migrate.mjs), without its install: the tables, columns, indexes and seeded rows must be the ones its own
  // API makes at start.
  it('gives the same schema and seeds as the light migration infra/svc start runs on the default database', async () => {
    const light = await createDatabase({ prefix: 'cl_light' });
    try {
      // The same release's migrations: the switch's build, whatever the default database's release.
      await run(process.execPath, [migrator], {
        env: { ...process.env, CENTRAL_LEDGER_DB: light.name, CENTRAL_LEDGER_SCHEMA_DIR: centralLedgerAppDir() },
      });
      const connection = await mysql.createConnection(settings.mysql);
      try {
        const shape = async (database: string) => {
          const [columns] = await connection.query(
            'SELECT table_name, column_name, column_type, is_nullable, column_default, extra, column_key FROM information_schema.columns WHERE table_schema = ? ORDER BY 1, 2',
            [database],
          );
          const [indexes] = await connection.query(
            'SELECT table_name, index_name, seq_in_index, column_name, non_unique FROM information_schema.statistics WHERE table_schema = ? ORDER BY 1, 2, 3',
            [database],
          );
          const [seeded] = await connection.query(
            `SELECT (SELECT COUNT(*) FROM \`${database}\`.currency) AS currencies, (SELECT COUNT(*) FROM \`${database}\`.transferState) AS states, (SELECT GROUP_CONCAT(name) FROM \`${database}\`.participant) AS participants, (SELECT COUNT(*) FROM \`${database}\`.migration) AS migrations`,
          );
          return { columns, indexes, seeded };
        };
        const [theirs, ours] = [await shape(cl.database), await shape(light.name)];
        expect((theirs.columns as unknown[]).length).toBeGreaterThan(500);
        expect(ours).toEqual(theirs);
      } finally {
        await connection.end();
      }
    } finally {
      await light.drop();
    }
  }, 60_000);

  it('runs the prepare, fulfil, get and admin handlers in consumer groups of its prefix, with the settings it was given', async () => {
    for (const group of ['transfer-prepare', 'transfer-fulfil', 'transfer-get', 'transfer-admin']) {
      await vi.waitFor(async () => expect(await groupMembers(`${cl.prefix}cl-group-${group}`)).toBe(1), {
        timeout: 30_000,
        interval: 500,
      });
    }
    const config = JSON.parse(readFileSync(join(cl.env.CENTRAL_LEDGER_RUN_DIR ?? '', 'config.json'), 'utf8'));
    expect(config.HANDLERS.TIMEOUT.TIMEXP).toBe('*/2 * * * * *');
    expect(config.KAFKA.CONSUMER.TRANSFER.POSITION_BATCH.config.options).toEqual({ batchSize: 7 });
    expect(config.KAFKA.EVENT_TYPE_ACTION_TOPIC_MAP.POSITION.PREPARE).toBe(`${cl.prefix}topic-transfer-position-batch`);
  });

  it('starts and stops its own batch position handler on the running switch', async () => {
    const group = `${cl.prefix}cl-group-transfer-position-batch`;
    await cl.startOriginalPosition();
    await untilHealthy(cl.ports.position);
    await vi.waitFor(async () => expect(await groupMembers(group)).toBe(1), { timeout: 30_000, interval: 500 });
    await cl.stopOriginalPosition();
    expect(await accepts('127.0.0.1', cl.ports.position)).toBe(false);
    await vi.waitFor(async () => expect(await groupMembers(group)).toBe(0), { timeout: 30_000, interval: 500 });
    // The switch itself runs on.
    await untilHealthy(cl.ports.handlers);
  }, 90_000);

  it('answers a second start on the running switch from what runs, and names a port in use in one line', async () => {
    const { stderr } = await run(svc, ['start', 'central-ledger'], { env: { ...process.env, ...cl.env } });
    expect(stderr).toMatch(/services ready: central-ledger in \d+ms \(warm\)/);

    const other = { ...cl.env, CENTRAL_LEDGER_RUN_DIR: `${cl.env.CENTRAL_LEDGER_RUN_DIR}-other` };
    const failed = await run(svc, ['start', 'central-ledger'], { env: { ...process.env, ...other } }).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    rmSync(other.CENTRAL_LEDGER_RUN_DIR, { recursive: true, force: true });
    expect(failed?.code).toBe(1);
    const errors = (failed?.stderr ?? '').split('\n').filter((line) => line.includes('ERROR'));
    expect(errors).toEqual([
      expect.stringMatching(
        new RegExp(
          `^\\[infra\\] ERROR: central-ledger api: port ${cl.ports.api} is in use by \\d+ \\(.*node.*\\); stop it or set CENTRAL_LEDGER_PORT to a free port$`,
        ),
      ),
    ]);
  }, 60_000);

  it('stops every process it started', async () => {
    await run(svc, ['stop', 'central-ledger'], { env: { ...process.env, ...cl.env } });
    for (const port of Object.values(cl.ports)) expect(await accepts('127.0.0.1', port)).toBe(false);
    const status = await run(svc, ['status', 'central-ledger'], { env: { ...process.env, ...cl.env } }).then(
      () => 0,
      (error: { code: number; stdout: string }) => {
        expect(error.stdout).toMatch(
          /central-ledger api: stopped\ncentral-ledger handlers: stopped\ncentral-ledger position: stopped/,
        );
        return error.code;
      },
    );
    expect(status).toBe(1);
  }, 60_000);
});

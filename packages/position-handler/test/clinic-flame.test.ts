import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { configDefaults as defaults } from '../src/config/index.js';

// After `infra/svc start`, `clinic flame -- node dist/position` from this folder, with no settings at all,
// ends in a flame graph. This runs exactly that command against what infra/svc provides: the original's
// topics (topic-transfer-position-batch, topic-notification-event, ...), central-ledger's default user and
// database (central_ledger / password on central_ledger), and that database migrated and seeded with
// central-ledger's own migrations, as a deployment's central-ledger API leaves it at its start. The test
// migrates nothing itself: a database the start left unmigrated fails it.
const packageDir = fileURLToPath(new URL('..', import.meta.url));
const repoRoot = join(packageDir, '../..');
const clinicBin = join(repoRoot, 'node_modules/clinic/bin.js');
const work = mkdtempSync(join(tmpdir(), 'clinic-flame-'));
const configHome = join(work, 'config');
// Only what a shell gives a command: no DB_*, KAFKA_* or POSITION_* settings reach the handler.
const bareEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? work, XDG_CONFIG_HOME: configHome };

const defaultDb = {
  host: defaults.dbHost,
  port: defaults.dbPort,
  user: defaults.dbUser,
  password: defaults.dbPassword,
  database: defaults.dbName,
};
let clinic: ChildProcess | undefined;
let htmlFile: string | undefined;

async function tablesOfDefaultDb(): Promise<string[]> {
  const connection = await mysql.createConnection(defaultDb);
  try {
    const [rows] = await connection.query<mysql.RowDataPacket[]>('SHOW TABLES');
    return rows.map((row) => String(Object.values(row)[0]));
  } finally {
    await connection.end();
  }
}

beforeAll(async () => {
  // What infra/svc start (the vitest global setup) left: central-ledger's migration record and its seeds.
  const tables = await tablesOfDefaultDb();
  expect(tables).toEqual(expect.arrayContaining(['migration', 'participantPosition', 'transferStateChange']));
  // clinic asks about usage statistics first and, with no terminal, exits at once having written nothing
  // (docs/profiling.md); ./run stores the answer with this script. Here it is stored in a
  // config home of the test's own, so the user's is left alone.
  execFileSync(process.execPath, [join(repoRoot, 'infra/profiling/clinic-optout.mjs')], { env: bareEnv });
});

afterAll(async () => {
  // A run that failed half-way: stop the whole group (clinic, 0x and the handler).
  if (clinic?.pid !== undefined && clinic.exitCode === null && clinic.signalCode === null)
    process.kill(-clinic.pid, 'SIGKILL');
  if (htmlFile) {
    rmSync(htmlFile, { force: true });
    rmSync(htmlFile.replace(/\.html$/, ''), { recursive: true, force: true });
    const clinicDir = join(packageDir, '.clinic');
    if (existsSync(clinicDir) && readdirSync(clinicDir).length === 0) rmSync(clinicDir, { recursive: true });
  }
  rmSync(work, { recursive: true, force: true });
});

describe('clinic flame -- node dist/position', () => {
  it('profiles the handler started with no settings and writes the flame graph when stopped with SIGINT', async () => {
    // Its own process group, as a terminal runs it: Ctrl-C sends SIGINT to clinic, 0x and the handler alike.
    clinic = spawn(process.execPath, [clinicBin, 'flame', '--', 'node', 'dist/position'], {
      cwd: packageDir,
      env: bareEnv,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    for (const stream of [clinic.stdout, clinic.stderr]) stream?.on('data', (chunk: Buffer) => (output += chunk));
    const exited = once(clinic, 'exit');

    // Ready: the handler joined its group on the default topic with the default database.
    await vi.waitFor(
      () => {
        if (clinic?.exitCode !== null) throw new Error(`clinic exited early:\n${output}`);
        expect(output).toContain('"msg":"position handler started"');
      },
      { timeout: 60_000, interval: 200 },
    );
    expect(output).toContain('"topics":["topic-transfer-position-batch"]');
    // The ready line is JSON (pino: fields first, then msg); read its http field rather than rely on key order.
    const readyLine = output.split('\n').find((line) => line.includes('"msg":"position handler started"'));
    const http = (JSON.parse(readyLine ?? '{}') as { http?: string }).http;
    expect(http).toMatch(/:\d+$/);
    // Some work to sample: its health endpoint on the default port, which asks the broker and the database.
    for (let i = 0; i < 20; i++) {
      const health = await fetch(`http://${http}/health`);
      expect(health.status).toBe(200);
      await health.text();
    }

    if (clinic.pid === undefined) throw new Error('clinic has no pid');
    process.kill(-clinic.pid, 'SIGINT');
    const [code] = (await exited) as [number | null];
    expect({ code, output }).toMatchObject({ code: 0 });

    const generated = /Generated HTML file is file:\/\/(\S+\.clinic-flame\.html)/.exec(output)?.[1];
    expect(generated, output).toBeDefined();
    htmlFile = generated as string;
    expect(htmlFile.startsWith(join(packageDir, '.clinic'))).toBe(true);
    expect(statSync(htmlFile).size).toBeGreaterThan(10_000);
    const html = readFileSync(htmlFile, 'utf8');
    expect(html.trimStart().slice(0, 15).toLowerCase()).toBe('<!doctype html>');
    expect(html).toContain('</html>');
  }, 150_000);
});

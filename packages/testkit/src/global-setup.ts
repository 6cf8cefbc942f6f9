import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Leftover, RESOURCE_JOURNAL_ENV, readJournal, undropped } from './leftovers.js';
import { type InfraSettings, loadInfraSettings, readTlsCredentials } from './settings.js';

// Vitest loads a global set-up file in its own process, where a bare import of this package's dependencies
// does not resolve (pnpm does not hoist them to the root); Node's require from this file does.
const require = createRequire(import.meta.url);

// Two lanes that need the services list this file; the set-up is done once per vitest process.
const started = Symbol.for('mojafast.testkit.services-setup');

/**
 * Vitest global setup of the lanes that need the services: makes sure Kafka, MariaDB and Redis run
 * (`infra/svc start` starts them all), and the secure stack's TLS instances beside them (`infra/svc start
 * --tls`), before any test file starts, so `pnpm test` works on its own as well as through ./run; on running
 * services this only checks readiness. MOJAFAST_SKIP_SERVICES=1 skips that check
 * (docs/testing.md). It also opens the run's journal of databases and topics: the teardown names any that a
 * test file created and never dropped, drops it, and fails the run.
 */
export default function startServices(): (() => Promise<void>) | undefined {
  const state = globalThis as { [started]?: true };
  if (state[started]) return undefined;
  state[started] = true;
  if (process.env.MOJAFAST_SKIP_SERVICES !== '1') {
    const svc = fileURLToPath(new URL('../../../infra/svc', import.meta.url));
    execFileSync(svc, ['start'], { stdio: 'inherit' });
    execFileSync(svc, ['start', '--tls'], { stdio: 'inherit' });
  }
  const dir = mkdtempSync(join(tmpdir(), 'mojafast-test-resources-'));
  const journal = join(dir, 'journal.jsonl');
  process.env[RESOURCE_JOURNAL_ENV] = journal;
  return async () => {
    try {
      const leftovers = await dropLeftovers(undropped(readJournal(journal)));
      if (leftovers.length > 0) {
        const names = leftovers
          .map((l) => `${l.kind} ${l.name} (${l.file ?? 'created outside a test file'})`)
          .join(', ');
        throw new Error(
          `test files left ${leftovers.length} of their own resources behind (now dropped): ${names}; ` +
            'each test file drops the databases and topics it creates (docs/testing.md)',
        );
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

/** The journal's undropped resources that still exist, each dropped now: on the plain servers and the secure stack's. */
async function dropLeftovers(candidates: Leftover[]): Promise<Leftover[]> {
  if (candidates.length === 0) return [];
  const settings = loadInfraSettings();
  const found: Leftover[] = [];
  for (const secure of [false, true]) {
    const mysqlServer = secure ? settings.tls.mysql : settings.mysql;
    const databases = candidates.filter(
      (c) => c.kind === 'database' && c.server === `${mysqlServer.host}:${mysqlServer.port}`,
    );
    if (databases.length > 0) found.push(...(await dropDatabases(settings, secure, databases)));
    const brokers = secure ? settings.tls.kafka.sslBrokers : settings.kafka.brokers;
    const topics = candidates.filter((c) => c.kind === 'topic' && c.server === brokers.join(','));
    if (topics.length > 0) found.push(...(await dropTopics(settings, secure, topics)));
  }
  return found;
}

async function dropDatabases(settings: InfraSettings, secure: boolean, databases: Leftover[]): Promise<Leftover[]> {
  const mysql = require('mysql2/promise') as typeof import('mysql2/promise');
  const { user, password } = settings.mysql;
  const { host, port } = secure ? settings.tls.mysql : settings.mysql;
  const ssl = secure ? { ca: readTlsCredentials(settings).ca } : undefined;
  const connection = await mysql.createConnection({ host, port, user, password, ...(ssl ? { ssl } : {}) });
  try {
    const [rows] = await connection.query<import('mysql2/promise').RowDataPacket[]>('SHOW DATABASES');
    const existing = new Set(rows.map((row) => String(Object.values(row)[0])));
    const left = databases.filter((d) => existing.has(d.name));
    for (const database of left) await connection.query(`DROP DATABASE IF EXISTS \`${database.name}\``);
    return left;
  } finally {
    await connection.end();
  }
}

async function dropTopics(settings: InfraSettings, secure: boolean, topics: Leftover[]): Promise<Leftover[]> {
  const { Kafka, logLevel } = require('kafkajs') as typeof import('kafkajs');
  const connection = secure
    ? { brokers: [...settings.tls.kafka.sslBrokers], ssl: { ca: readTlsCredentials(settings).ca } }
    : { brokers: [...settings.kafka.brokers] };
  const admin = new Kafka({ clientId: 'mojafast-testkit-leftovers', ...connection, logLevel: logLevel.ERROR }).admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const left = topics.filter((t) => existing.has(t.name));
    if (left.length > 0) await admin.deleteTopics({ topics: left.map((t) => t.name) });
    return left;
  } finally {
    await admin.disconnect();
  }
}

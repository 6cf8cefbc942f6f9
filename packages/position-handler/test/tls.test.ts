import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadInfraSettings, uniqueName } from '@mojafast/testkit';
import { Admin } from '@platformatic/kafka';
import { Kafka, logLevel } from 'kafkajs';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TransferState } from '../src/ledger/types.js';
import { createKnex } from '../src/store/db.js';
import { migrateLatest } from '../src/store/migrations.js';
import { type ProvisionedLedger, provisionLedger } from '../src/store/provision.js';
import { insertTransfers, recordTransferStates } from '../src/testing/index.js';
import { generatePositionMessages, generateTransfers } from '../src/testing/messages.js';
import { centralLedgerPackageDir } from './central-ledger.js';
import { kafkaClients, positionOf, statesOf } from './helpers.js';

/**
 * The handler on the secure stack (`infra/svc start --tls`): a Kafka broker with only an SSL listener and a
 * SASL_SSL one (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512), and a MariaDB with require_secure_transport=ON. It is
 * started as a secure Mojaloop deployment starts central-ledger's handler: its default.json with
 * `security.protocol` and `enable.ssl.certificate.verification` in the consumer's and the producers'
 * rdkafkaConf and `DATABASE.ADDITIONAL_CONNECTION_OPTIONS.ssl`.
 *
 * Where the stack is: the testkit's `tls` settings when it has them, else the stack's published defaults
 * (TLS_DIR or .infra/tls, the brokers on KAFKA_TLS_PORT 9192 and KAFKA_SASL_PORT 9193, MariaDB on MYSQL_TLS_PORT
 * 3307). Without its CA file the file is skipped, the reason in the suite's name.
 */
interface SecureStack {
  readonly caFile: string;
  readonly sslBrokers: readonly string[];
  readonly saslBrokers: readonly string[];
  readonly sasl: { readonly username: string; readonly password: string };
  readonly mysql: { readonly host: string; readonly port: number; readonly user: string; readonly password: string };
}

function secureStack(): SecureStack {
  const settings = loadInfraSettings();
  const published = (settings as unknown as { tls?: unknown }).tls as
    | {
        caFile: string;
        kafka: { sslBrokers: string[]; saslBrokers: string[]; sasl: { username: string; password: string } };
        mysql: { host: string; port: number };
      }
    | undefined;
  const env = process.env;
  const dir = env.TLS_DIR || join(fileURLToPath(new URL('../../../.infra', import.meta.url)), 'tls');
  const host = '127.0.0.1';
  return {
    caFile: published?.caFile ?? join(dir, 'ca.pem'),
    sslBrokers: published?.kafka.sslBrokers ?? [`${host}:${env.KAFKA_TLS_PORT ?? 9192}`],
    saslBrokers: published?.kafka.saslBrokers ?? [`${host}:${env.KAFKA_SASL_PORT ?? 9193}`],
    sasl: published?.kafka.sasl ?? {
      username: env.KAFKA_SASL_USER ?? 'mojafast',
      password: env.KAFKA_SASL_PASSWORD ?? 'mojafast-secret',
    },
    mysql: {
      host: published?.mysql.host ?? host,
      port: published?.mysql.port ?? Number(env.MYSQL_TLS_PORT ?? 3307),
      user: settings.mysql.user,
      password: settings.mysql.password,
    },
  };
}

const stack = secureStack();
const missing = existsSync(stack.caFile) ? undefined : `${stack.caFile} missing: start it with infra/svc start --tls`;
const entry = fileURLToPath(new URL('../dist/position.js', import.meta.url));
const consumer = ['KAFKA', 'CONSUMER', 'TRANSFER', 'POSITION_BATCH'];
const producers = [
  ['KAFKA', 'PRODUCER', 'NOTIFICATION', 'EVENT'],
  ['KAFKA', 'PRODUCER', 'TRANSFER', 'POSITION'],
];
const dfsps = ['tlspayer', 'tlspayee'];

describe.skipIf(missing !== undefined)(`on the secure stack${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let dir: string;
  let ca: string;
  let knex: Knex;
  let database: string;
  let ledger: ProvisionedLedger;
  const topics: string[] = [];

  const admin = () =>
    new Admin({
      clientId: 'position-tls-test',
      bootstrapBrokers: [...stack.sslBrokers],
      tls: { ca },
      retries: 3,
    });
  const kafka = () =>
    new Kafka({
      clientId: 'position-tls-test',
      brokers: [...stack.sslBrokers],
      ssl: { ca },
      logLevel: logLevel.NOTHING,
    });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'position-tls-'));
    ca = readFileSync(stack.caFile, 'utf8');
    database = uniqueName('position_tls');
    const server = createKnex({
      ...stack.mysql,
      database: '',
      ssl: { rejectUnauthorized: true, verifyIdentity: false, ca },
    });
    await server.raw(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4`);
    await server.destroy();
    knex = createKnex({
      ...stack.mysql,
      database,
      ssl: { rejectUnauthorized: true, verifyIdentity: false, ca },
    });
    await migrateLatest(knex);
    ledger = await provisionLedger(knex, {
      currencies: ['USD'],
      dfsps: dfsps.map((name) => ({ name, netDebitCap: '100000', liquidity: '100000' })),
    });
  }, 120_000);

  afterAll(async () => {
    if (topics.length > 0) {
      const client = admin();
      await client.deleteTopics({ topics }).catch(() => {});
      await client.close();
    }
    await knex?.raw(`DROP DATABASE IF EXISTS \`${database}\``);
    await knex?.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Four topics of this test on the secure broker: the position topic, notifications, follow-ups, bulk. */
  async function newTopics(): Promise<Record<'input' | 'output' | 'commit' | 'bulk', string>> {
    const names = {
      input: uniqueName('position_tls_in'),
      output: uniqueName('position_tls_out'),
      commit: uniqueName('position_tls_commit'),
      bulk: uniqueName('position_tls_bulk'),
    };
    const client = admin();
    try {
      await client.createTopics({ topics: Object.values(names), partitions: 1, replicas: 1 });
    } finally {
      await client.close();
    }
    topics.push(...Object.values(names));
    return names;
  }

  /** central-ledger 19.5.5's default.json, the secure deployment's keys in all three rdkafkaConf blocks. */
  function configFile(brokers: readonly string[], rdkafka: Record<string, unknown>, ssl: unknown): string {
    const tree = JSON.parse(readFileSync(join(centralLedgerPackageDir(), 'config', 'default.json'), 'utf8'));
    for (const block of [consumer, ...producers]) {
      const conf = block.reduce((at, key) => at[key], tree).config.rdkafkaConf;
      Object.assign(conf, { ...rdkafka, 'metadata.broker.list': brokers.join(',') });
    }
    tree.DATABASE.ADDITIONAL_CONNECTION_OPTIONS = { ssl };
    const file = join(dir, `${uniqueName('default')}.json`);
    writeFileSync(file, JSON.stringify(tree));
    return file;
  }

  function start(file: string, names: Record<string, string>, env: Record<string, string> = {}) {
    const child = spawn(process.execPath, [entry, 'handler', '--positionbatch'], {
      env: {
        PATH: process.env.PATH,
        CONFIG_FILE: file,
        CLEDG_PORT: '0',
        CLEDG_DATABASE__HOST: stack.mysql.host,
        CLEDG_DATABASE__PORT: String(stack.mysql.port),
        CLEDG_DATABASE__USER: stack.mysql.user,
        CLEDG_DATABASE__PASSWORD: stack.mysql.password,
        CLEDG_DATABASE__SCHEMA: database,
        'CLEDG_KAFKA__CONSUMER__TRANSFER__POSITION_BATCH__config__rdkafkaConf__group.id': `${names.input}-group`,
        CLEDG_KAFKA__EVENT_TYPE_ACTION_TOPIC_MAP__POSITION__PREPARE: names.input as string,
        CLEDG_KAFKA__EVENT_TYPE_ACTION_TOPIC_MAP__POSITION__COMMIT: names.commit as string,
        POSITION_NOTIFICATION_TOPIC: names.output as string,
        POSITION_BULK_PROCESSING_TOPIC: names.bulk as string,
        POSITION_RETRY_INITIAL_MS: '20',
        POSITION_RETRY_MAX_MS: '100',
        // The ready line is an info line.
        LOG_LEVEL: 'info',
        ...env,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.once('exit', () => clearTimeout(killer));
    return {
      child,
      stderr: () => stderr,
      async started() {
        await vi.waitFor(
          () => {
            if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}: ${stderr}`);
            if (!stderr.includes('position handler started')) throw new Error(`not started yet: ${stderr}`);
          },
          { timeout: 60_000, interval: 100 },
        );
      },
      async stop() {
        if (child.exitCode === null) {
          child.kill('SIGTERM');
          await once(child, 'exit');
        }
      },
    };
  }

  async function produce(topic: string, messages: readonly { key: string; value: string }[]) {
    const producer = kafka().producer();
    await producer.connect();
    try {
      await producer.send({ topic, acks: -1, messages: messages.map((m) => ({ ...m })) });
    } finally {
      await producer.disconnect();
    }
  }

  const account = (dfsp: string) => ledger.accounts.get(`${dfsp}:USD`)?.position as number;

  /** Prepares that the handler reserves, then (with `commit`) their commits, checked in the database. */
  async function reserveAndCommit(input: string, commit: boolean) {
    const transfers = generateTransfers({
      transfers: 5,
      dfsps: [dfsps[0] as string, dfsps[1] as string],
      currencies: ['USD'],
    }).map((t) => ({ ...t, payer: dfsps[0] as string, payee: dfsps[1] as string }));
    const before = await positionOf(knex, account(dfsps[0] as string));
    await insertTransfers(
      knex,
      transfers.map((t) => ({ ...t, state: 'RECEIVED_PREPARE' as const })),
      ledger.accounts,
    );
    await produce(input, generatePositionMessages({ transfers, action: 'prepare', accountOf: account }));
    await vi.waitFor(
      async () => {
        for (const t of transfers) expect((await statesOf(knex, t.transferId)).at(-1)).toBe(TransferState.RESERVED);
      },
      { timeout: 30_000, interval: 200 },
    );
    expect(Number(await positionOf(knex, account(dfsps[0] as string)))).toBe(Number(before) + 50);
    if (!commit) return;
    await recordTransferStates(
      knex,
      transfers.map((t) => t.transferId),
      TransferState.RECEIVED_FULFIL,
    );
    await produce(input, generatePositionMessages({ transfers, action: 'commit', accountOf: account }));
    await vi.waitFor(
      async () => {
        for (const t of transfers) expect((await statesOf(knex, t.transferId)).at(-1)).toBe(TransferState.COMMITTED);
      },
      { timeout: 30_000, interval: 200 },
    );
  }

  it.each(kafkaClients)(
    'security.protocol ssl without certificate verification, and ADDITIONAL_CONNECTION_OPTIONS.ssl {rejectUnauthorized: false}: reserves and commits (KAFKA_CLIENT=%s)',
    async (client) => {
      const names = await newTopics();
      const file = configFile(
        stack.sslBrokers,
        { 'security.protocol': 'ssl', 'enable.ssl.certificate.verification': false },
        { rejectUnauthorized: false },
      );
      const handler = start(file, names, { POSITION_KAFKA_CLIENT: client });
      try {
        await handler.started();
        // Nothing of the secure deployment's keys is left unhonoured.
        const warning = handler
          .stderr()
          .split('\n')
          .find((line) => line.includes('keys not honoured'));
        expect(
          JSON.parse(warning ?? '{"keys":[]}').keys.filter((key: string) => /ssl|security|ADDITIONAL/.test(key)),
        ).toEqual([]);
        await reserveAndCommit(names.input, true);
      } finally {
        await handler.stop();
      }
      expect(handler.child.exitCode).toBe(0);
    },
    120_000,
  );

  it.each(kafkaClients)(
    'sasl_ssl with SCRAM-SHA-512, the CA verified: reserves (KAFKA_CLIENT=%s)',
    async (client) => {
      const names = await newTopics();
      const file = configFile(
        stack.saslBrokers,
        {
          'security.protocol': 'sasl_ssl',
          'sasl.mechanisms': 'SCRAM-SHA-512',
          'sasl.username': stack.sasl.username,
          'sasl.password': stack.sasl.password,
          'ssl.ca.location': stack.caFile,
        },
        { ca },
      );
      const handler = start(file, names, { POSITION_KAFKA_CLIENT: client });
      try {
        await handler.started();
        await reserveAndCommit(names.input, false);
      } finally {
        await handler.stop();
      }
      expect(handler.child.exitCode).toBe(0);
    },
    120_000,
  );

  /** A CA that signed none of the stack's certificates. */
  function wrongCa(): string {
    const file = join(dir, 'wrong-ca.pem');
    if (!existsSync(file)) {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-subj',
          '/CN=not the stack CA',
          '-days',
          '1',
          '-keyout',
          join(dir, 'wrong-ca-key.pem'),
          '-out',
          file,
        ],
        { stdio: 'ignore' },
      );
    }
    return file;
  }

  /** The lines the failed start wrote, without the start-up warning about keys. */
  async function failedStart(handler: ReturnType<typeof start>) {
    const [code] = (await once(handler.child, 'exit')) as [number | null];
    const lines = handler
      .stderr()
      .trim()
      .split('\n')
      .filter((line) => !line.includes('keys not honoured'));
    return { code, lines };
  }

  it('a wrong CA with verification on stops the start in one line naming the database host and the reason', async () => {
    const names = await newTopics();
    const file = configFile(
      stack.sslBrokers,
      { 'security.protocol': 'ssl', 'enable.ssl.certificate.verification': false },
      {
        ca: readFileSync(wrongCa(), 'utf8'),
      },
    );
    const { code, lines } = await failedStart(start(file, names));
    expect(code).toBe(1);
    expect(lines).toEqual([
      expect.stringMatching(
        new RegExp(
          `^database ${stack.mysql.host}:${stack.mysql.port}: secure connection failed: .*(certificate|self.signed)`,
        ),
      ),
    ]);
  }, 60_000);

  it('a wrong CA for the brokers with verification on stops the start in one line naming the brokers and the reason', async () => {
    const names = await newTopics();
    const file = configFile(
      stack.sslBrokers,
      { 'security.protocol': 'ssl', 'ssl.ca.location': wrongCa() },
      { rejectUnauthorized: false },
    );
    const { code, lines } = await failedStart(start(file, names));
    expect(code).toBe(1);
    expect(lines).toEqual([
      expect.stringMatching(
        new RegExp(
          `^Kafka brokers ${stack.sslBrokers.join(',')}: secure connection failed: .*(certificate|self.signed)`,
        ),
      ),
    ]);
  }, 60_000);
});

import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createKnex } from '@mojafast/position-handler';
import { loadInfraSettings, testKafka } from '@mojafast/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { planCluster } from '../src/cluster-plan.js';
import { composeEnv, k8sEnv, loadCompose, loadK8s, services, servicesRoot } from '../src/index.js';
import { runSmoke, type SmokeReport } from '../src/smoke.js';

// The whole cluster of the compose file, without Docker. The plan test checks that the env
// each process gets is the compose file's with only addresses rewritten; the run test starts the three
// services and passes one lookup and one prepare -> commit through them (src/smoke.ts), as infra/smoke does.
const repoRoot = resolve(fileURLToPath(new URL('../../../', import.meta.url)));
const compose = loadCompose(repoRoot);
const k8s = loadK8s(repoRoot);
const settings = loadInfraSettings();
const runDir = mkdtempSync(join(tmpdir(), 'smoke-test-'));

afterAll(() => rmSync(runDir, { recursive: true, force: true }));

describe('infra/smoke: the compose or Kubernetes cluster as local processes', () => {
  it('gives each process its compose env with only host names, ports and the infra addresses rewritten', async () => {
    const infra = { kafkaBrokers: ['127.0.0.1:9092'], mysql: { host: '127.0.0.1', port: 3306 } };
    const plan = await planCluster({ repoRoot, from: 'compose', specs: services, infra, runDir });
    const env = Object.fromEntries(plan.map((p) => [p.spec.id, p.env]));
    const ports = Object.fromEntries(plan.map((p) => [p.spec.id, p.ports]));
    const als = env.als as Record<string, string>;
    const sim = env.sim as Record<string, string>;
    const position = env['position-handler'] as Record<string, string>;
    // The sim shares the ALS's network namespace: the ALS's 127.0.0.1:3001/3002 are the sim's admin and oracle.
    expect(als.ALS_SWITCH_ENDPOINT).toBe(`http://127.0.0.1:${ports.sim?.admin}`);
    expect(als.ALS_ORACLE_URL).toBe(`http://127.0.0.1:${ports.sim?.oracle}`);
    expect(sim.SIM_ALS_URL).toBe(`http://127.0.0.1:${ports.als?.api}`);
    expect(sim.SIM_PORT_BASE).toBe(String(ports.sim?.admin));
    expect(als.ALS_HOST).toBe('127.0.0.1');
    // Kafka and mysql-cl are the local services; the credentials and names are the compose file's.
    expect(position).toMatchObject({
      KAFKA_BROKERS: '127.0.0.1:9092',
      DB_HOST: '127.0.0.1',
      DB_PORT: '3306',
      DB_USER: 'central_ledger',
      DB_NAME: 'central_ledger',
      POSITION_TOPICS: 'topic-transfer-position-batch',
      POSITION_HTTP_HOST: '127.0.0.1',
    });
    // No compose `command` for ours: the image's CMD, run from the package.
    expect(plan.map((p) => p.command)).toEqual(services.map((s) => ['node', s.entry]));
    // Every listener on its own free port, none shared (compose has the sim and the handler both on 3001).
    const all = plan.flatMap((p) => Object.values(p.ports));
    expect(new Set(all).size).toBe(all.length);
    // Nothing else differs from what the container gets.
    const addressKeys = new Set([
      'ALS_HOST',
      'ALS_PORT',
      'ALS_ADMIN_PORT',
      'ALS_SWITCH_ENDPOINT',
      'ALS_ORACLE_URL',
      'ALS_PROFILE_DIR',
      'SIM_PORT_BASE',
      'SIM_ALS_URL',
      'KAFKA_BROKERS',
      'DB_HOST',
      'DB_PORT',
      'POSITION_HTTP_HOST',
      'POSITION_HTTP_PORT',
      'POSITION_PROFILE_DIR',
    ]);
    for (const p of plan) {
      const container = composeEnv(repoRoot, compose, p.spec);
      expect(Object.keys(p.env).sort()).toEqual(Object.keys(container).sort());
      const changed = Object.keys(container).filter((key) => container[key] !== p.env[key]);
      expect(changed.filter((key) => !addressKeys.has(key))).toEqual([]);
    }
  });

  it('gives each process its Kubernetes env (image, ConfigMap, Secret, env) with only addresses rewritten', async () => {
    const infra = { kafkaBrokers: ['127.0.0.1:9092'], mysql: { host: '127.0.0.1', port: 3306 } };
    const plan = await planCluster({ repoRoot, from: 'k8s', specs: services, infra, runDir });
    const env = Object.fromEntries(plan.map((p) => [p.spec.id, p.env]));
    const ports = Object.fromEntries(plan.map((p) => [p.spec.id, p.ports]));
    // http://sim:3001 is Service sim's port 3001 → targetPort admin → the sim pod's admin listener.
    expect(env.als?.ALS_SWITCH_ENDPOINT).toBe(`http://127.0.0.1:${ports.sim?.admin}`);
    expect(env.als?.ALS_ORACLE_URL).toBe(`http://127.0.0.1:${ports.sim?.oracle}`);
    expect(env.sim).toMatchObject({
      SIM_ALS_URL: `http://127.0.0.1:${ports.als?.api}`,
      SIM_HOST: '127.0.0.1',
      SIM_PUBLIC_HOST: '127.0.0.1',
    });
    expect(plan.map((p) => p.command)).toEqual(services.map((s) => ['node', s.entry]));
    // kafka:9092 and mysqldb (Mojaloop's backend chart, not in our manifests) are the local services; the
    // password is the Secret's.
    expect(env['position-handler']).toMatchObject({
      KAFKA_BROKERS: '127.0.0.1:9092',
      DB_HOST: '127.0.0.1',
      DB_PORT: '3306',
      DB_USER: 'central_ledger',
      DB_PASSWORD: 'password',
    });
    const addressKeys = new Set([
      'ALS_HOST',
      'ALS_PORT',
      'ALS_ADMIN_PORT',
      'ALS_SWITCH_ENDPOINT',
      'ALS_ORACLE_URL',
      'ALS_PROFILE_DIR',
      'SIM_PORT_BASE',
      'SIM_ALS_URL',
      'SIM_HOST',
      'SIM_PUBLIC_HOST',
      'KAFKA_BROKERS',
      'DB_HOST',
      'POSITION_HTTP_HOST',
      'POSITION_HTTP_PORT',
      'POSITION_PROFILE_DIR',
    ]);
    for (const p of plan) {
      const pod = k8sEnv(repoRoot, k8s, p.spec).env;
      expect(Object.keys(p.env).sort()).toEqual(Object.keys(pod).sort());
      const changed = Object.keys(pod).filter((key) => pod[key] !== p.env[key]);
      expect(changed.filter((key) => !addressKeys.has(key))).toEqual([]);
    }
  });

  const runs: { report: SmokeReport; database: string; topics: string[] }[] = [];
  it.each(['compose', 'k8s'] as const)(
    'wired as %s says: passes one lookup and one prepare -> commit through the ALS, the simulators and the position handler',
    async (from) => {
      const lines: string[] = [];
      const report = await runSmoke({
        repoRoot,
        servicesRoot: servicesRoot(repoRoot),
        settings,
        runDir,
        from,
        waitMs: 30_000,
        log: (line) => lines.push(line),
      });
      const log = lines.join('\n');
      runs.push({
        report,
        database: /database (\S+),/.exec(log)?.[1] ?? '',
        topics: [...(/topics (\S+), (\S+)/.exec(log)?.slice(1) ?? [])],
      });
      expect(report.from).toBe(from);
      expect(report.processes.map((p) => p.composeService).sort()).toEqual([
        'account-lookup-service',
        'central-handler-position-batch',
        'sim',
      ]);
      expect(report.lookup).toEqual({ status: 202, callback: 'success', path: '/parties/MSISDN/46750000001' });
      // The payer's position grows by the amount on prepare; the payee's falls by it on commit.
      expect(report.prepare).toEqual({ notification: 'prepare/success', payerPosition: ['0.0000', '10.0000'] });
      expect(report.commit).toEqual({ notification: 'commit/success', payeePosition: ['0.0000', '-10.0000'] });
    },
    120_000,
  );

  it('leaves no process, database or topic of its runs behind', async () => {
    expect(runs).toHaveLength(2);
    const databases = runs.map((r) => r.database);
    const topicNames = runs.flatMap((r) => r.topics);
    expect(databases.filter((d) => d !== '')).toHaveLength(2);
    expect(topicNames).toHaveLength(4);
    const knex = createKnex({ ...settings.mysql, database: 'information_schema' });
    try {
      const rows = await knex('SCHEMATA').select('SCHEMA_NAME').whereIn('SCHEMA_NAME', databases);
      expect(rows).toEqual([]);
    } finally {
      await knex.destroy();
    }
    const admin = testKafka(settings, 'mojafast-smoke-check').admin();
    await admin.connect();
    try {
      const topics = await admin.listTopics();
      expect(topics.filter((t) => topicNames.includes(t))).toEqual([]);
    } finally {
      await admin.disconnect();
    }
    // Every port a service listened on is closed again (each was stopped with SIGTERM and exited).
    const ports = runs.flatMap((r) => r.report.processes.flatMap((p) => Object.values(p.ports)));
    expect(ports.length).toBe(14);
    const open = await Promise.all(
      ports.map(
        (port) =>
          new Promise<boolean>((done) => {
            const socket = connect(port, '127.0.0.1');
            socket.once('connect', () => {
              socket.destroy();
              done(true);
            });
            socket.once('error', () => done(false));
          }),
      ),
    );
    expect(open.filter(Boolean)).toEqual([]);
  });
});

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createDatabase,
  createTopic,
  loadInfraSettings,
  type TestDatabase,
  type TestTopic,
  uniqueName,
} from '@mojafast/testkit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  composeEnv,
  dashboardExprs,
  exportedSampleNames,
  loadCompose,
  loadDashboards,
  metricNamesIn,
  type RunningService,
  type ServiceSpec,
  services,
  servicesRoot,
  startService,
} from '../src/index.js';

// Starts each service from its built dist/ with the env of the compose file (addresses moved to loopback,
// ports to 0) and asks the endpoints the deployment files point at: the health path the probes use and the
// metrics the dashboards query.
const repoRoot = resolve(fileURLToPath(new URL('../../../', import.meta.url)));
const root = servicesRoot(repoRoot);
const compose = loadCompose(repoRoot);
const dashboards = loadDashboards(repoRoot);
const spec = (id: ServiceSpec['id']) => services.find((s) => s.id === id) as ServiceSpec;
const sim = spec('sim');
const als = spec('als');
const position = spec('position-handler');

type Urls = Record<string, string>;

function readyJson(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

async function get(url: string): Promise<{ status: number; body: string }> {
  const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
  return { status: response.status, body: await response.text() };
}

/** Waits until the health path answers 200 (a consumer needs a moment to join its group); fails with the last status. */
async function expectHealthy(url: string, withinMs: number): Promise<void> {
  await vi.waitFor(
    async () => {
      const status = await get(url).then(
        (r) => r.status,
        () => 0,
      );
      expect(status, `GET ${url}`).toBe(200);
    },
    { timeout: withinMs, interval: 250 },
  );
}

/** Dashboard metric names the scraped exposition does not declare. */
async function missingMetrics(s: ServiceSpec, baseUrl: string): Promise<string[]> {
  const dashboard = dashboards.get(s.dashboard ?? '');
  if (!dashboard || !s.metrics) throw new Error(`${s.id} has no dashboard or metrics path`);
  const scraped = await get(`${baseUrl}${s.metrics.path}`);
  expect(scraped.status).toBe(200);
  const exported = exportedSampleNames(scraped.body);
  const queried = new Set(dashboardExprs(dashboard).flatMap(metricNamesIn));
  return [...queried].filter((name) => !exported.has(name)).sort();
}

const profileDir = mkdtempSync(join(tmpdir(), 'deploy-check-'));
let simProcess: RunningService<Urls> | undefined;
let alsProcess: RunningService<Urls> | undefined;
let positionProcess: RunningService<Urls> | undefined;
let database: TestDatabase | undefined;
let topics: TestTopic[] = [];

beforeAll(() => {
  // The vitest global setup (packages/testkit/src/build-setup.ts) ran `tsc -b` for this repository; another
  // checkout (MOJAFAST_SERVICES_ROOT) is only read, so its dist/ must already be built.
  for (const s of services) {
    if (!existsSync(join(root, s.packageDir, s.entry))) throw new Error(`${s.packageDir}/${s.entry} is not built`);
  }
});

afterAll(async () => {
  await Promise.all([simProcess, alsProcess, positionProcess].map((p) => p?.stop()));
  await database?.drop();
  await Promise.all(topics.map((t) => t.drop()));
  rmSync(profileDir, { recursive: true, force: true });
});

describe.sequential('services started from dist/ with the compose environment', () => {
  it('sim: the health path of its container and Deployment answers 200', async () => {
    simProcess = await startService<Urls>(join(root, sim.packageDir, sim.entry), {
      cwd: join(root, sim.packageDir),
      env: { ...composeEnv(repoRoot, compose, sim), SIM_PORT_BASE: '0' },
      readyWhen: (line) => {
        const ready = readyJson(line);
        return ready?.ready ? (ready as Urls) : undefined;
      },
    });
    expect((await get(`${simProcess.ready[sim.health.listener]}${sim.health.path}`)).status).toBe(200);
  });

  it('als: /health answers 200 and /metrics exports every metric its dashboard queries', async () => {
    if (!simProcess) throw new Error('the simulators did not start');
    alsProcess = await startService<Urls>(join(root, als.packageDir, als.entry), {
      cwd: join(root, als.packageDir),
      env: {
        ...composeEnv(repoRoot, compose, als),
        ALS_HOST: '127.0.0.1',
        ALS_PORT: '0',
        ALS_ADMIN_PORT: '0',
        ALS_SWITCH_ENDPOINT: simProcess.ready.admin ?? '',
        ALS_ORACLE_URL: simProcess.ready.oracle ?? '',
        ALS_PROFILE_DIR: profileDir,
      },
      readyWhen: (line) => {
        const ready = readyJson(line);
        return ready?.ready ? { api: String(ready.url), admin: String(ready.admin) } : undefined;
      },
    });
    const admin = alsProcess.ready[als.health.listener] ?? '';
    await expectHealthy(`${admin}${als.health.path}`, 10_000);
    expect(await missingMetrics(als, alsProcess.ready[als.metrics?.listener ?? ''] ?? '')).toEqual([]);
  });

  it('position-handler: /health answers 200 with Kafka and MariaDB up, /metrics exports every metric its dashboard queries', async () => {
    const settings = loadInfraSettings();
    database = await createDatabase({ prefix: 'deploy_check' });
    topics = await Promise.all([createTopic({ prefix: 'deploy-position' }), createTopic({ prefix: 'deploy-notify' })]);
    const [positionTopic, notificationTopic] = topics;
    const db = database.connection;
    // The handler waits for a migrated database (it never migrates by itself): migrate it with the package's own command.
    const ledgerFile = join(profileDir, 'ledger.json');
    writeFileSync(ledgerFile, JSON.stringify({ currencies: ['USD'], dfsps: [] }));
    execFileSync(
      process.execPath,
      [join(root, position.packageDir, 'dist/provision-cli.js'), '--migrate', ledgerFile],
      {
        env: {
          ...process.env,
          DB_HOST: db.host,
          DB_PORT: String(db.port),
          DB_USER: db.user,
          DB_PASSWORD: db.password,
          DB_NAME: db.database,
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    positionProcess = await startService<Urls>(join(root, position.packageDir, position.entry), {
      cwd: join(root, position.packageDir),
      env: {
        ...composeEnv(repoRoot, compose, position),
        KAFKA_BROKERS: settings.kafka.brokers.join(','),
        POSITION_TOPICS: positionTopic?.name ?? '',
        NOTIFICATION_TOPIC: notificationTopic?.name ?? '',
        POSITION_CONSUMER_GROUP: uniqueName('deploy-check'),
        DB_HOST: db.host,
        DB_PORT: String(db.port),
        DB_USER: db.user,
        DB_PASSWORD: db.password,
        DB_NAME: db.database,
        POSITION_HTTP_HOST: '127.0.0.1',
        POSITION_HTTP_PORT: '0',
        POSITION_PROFILE_DIR: profileDir,
      },
      readyWhen: (line) => {
        const ready = readyJson(line);
        return ready?.msg === 'position handler started' ? { http: `http://${String(ready.http)}` } : undefined;
      },
      timeoutMs: 30_000,
    });
    const base = positionProcess.ready[position.health.listener] ?? '';
    await expectHealthy(`${base}${position.health.path}`, 20_000);
    expect(await missingMetrics(position, base)).toEqual([]);
  }, 60_000);

  // SIGTERM is what `docker stop` and the kubelet send (STOPSIGNAL in the Dockerfiles).
  it('every started service exits 0 on SIGTERM', async () => {
    const started = { sim: simProcess, als: alsProcess, 'position-handler': positionProcess };
    const endings: Record<string, unknown> = {};
    for (const [id, running] of Object.entries(started)) {
      if (running) endings[id] = await running.stop();
    }
    simProcess = alsProcess = positionProcess = undefined;
    for (const [id, ending] of Object.entries(endings))
      expect({ id, ending }).toEqual({ id, ending: { code: 0, signal: null } });
    expect(Object.keys(endings).length).toBeGreaterThan(0);
  }, 45_000);
});

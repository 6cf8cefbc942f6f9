/// <reference lib="esnext.disposable" />
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createKnex, migrateLatest } from '@mojafast/position-handler';
import { generatePositionMessages, insertTransfers, provisionLedger } from '@mojafast/position-handler/testing';
import { createResources, type Resources } from '@mojafast/service-kit';
import {
  createDatabase,
  createTopic,
  type InfraSettings,
  registerOracle,
  type TestDatabase,
  testKafka,
  uniqueName,
} from '@mojafast/testkit';
import { parseAllDocuments } from 'yaml';
import { freePorts } from './cluster-plan.js';
import { followContainer, imageOf, mainProcessIds, playedContainerName, type RunningContainer } from './containers.js';
import { exec, execOk } from './engine.js';
import { lookupParty, refused, until as untilProbe } from './probes.js';
import { startService } from './process.js';
import { readyWhen } from './smoke.js';

/**
 * Mojaloop's own helm charts for the services we replace, rendered by `infra/helm/render` (helm template)
 * with only the image and the addresses of Kafka, MySQL and central-ledger set, then played by `podman kube
 * play` against this machine's Kafka and MariaDB:
 * - als-api (`server --api`) and als-admin (`server --admin`): an oracle registered through the admin
 *   deployment, a lookup answered through the API deployment (the payer simulator gets the PUT callback);
 * - position-batch (`handler --positionbatch`) and position (`handler --position`): transfers reserved and
 *   committed, each notified;
 * - each: the chart's readiness and liveness probes answer 200, the process runs as the chart's user, the
 *   container wrote nothing to its filesystem (`podman diff`), and SIGTERM ends it with exit code 0.
 *
 * What the play changes in the rendered Deployment, each because a one-host podman is not a cluster: the pod
 * uses the host's network (Kafka and MariaDB listen on its loopback), so container ports are dropped and each
 * service gets a free port (our port variable, the probes moved with it); containers and init containers of
 * images no registry gives here (the event sidecar, wait-for-kafka/mysql) are dropped; the image is the local
 * build; the run's own topics and consumer group are given as our variables, so a play never touches the
 * shared ones. Command, args, securityContext, env, ConfigMaps and their mounts are the chart's.
 */
export type ChartId = 'als-api' | 'als-admin' | 'position-batch' | 'position';

export interface ChartResult {
  readonly chart: ChartId;
  /** As rendered. */
  readonly command: readonly string[];
  readonly runAsUser: number | null;
  readonly readOnlyRootFilesystem: boolean;
  readonly mounts: readonly string[];
  readonly probes: Record<string, { path: string; status: number }>;
  /** The ALS port this deployment is not for (the API's on the admin deployment and the reverse): refused. */
  readonly otherPortRefused?: boolean;
  /** The uid the main process runs as. */
  readonly uid: number;
  /** Paths the container changed in its filesystem (podman diff), mounts excepted. */
  readonly written: readonly string[];
  readonly dropped: readonly string[];
  readonly stop: { code: number | null; ms: number; graceSeconds: number };
}

export interface ChartPlayReport {
  readonly charts: readonly ChartResult[];
  readonly lookup: { oracleStatus: number; status: number; callback: string };
  readonly transfers: { count: number; reserved: number; committed: number; notified: number };
  readonly seconds: number;
}

interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  env?: { name: string; value?: string | null }[];
  ports?: unknown;
  securityContext?: { runAsUser?: number; readOnlyRootFilesystem?: boolean };
  volumeMounts?: { name: string; mountPath: string }[];
  readinessProbe?: { httpGet?: { path: string; port: number | string } };
  livenessProbe?: { httpGet?: { path: string; port: number | string } };
  imagePullPolicy?: string;
}
interface Manifest {
  kind: string;
  metadata: { name: string };
  spec?: {
    replicas?: number;
    template: {
      spec: {
        hostNetwork?: boolean;
        containers: Container[];
        initContainers?: Container[] | null;
        terminationGracePeriodSeconds?: number;
      };
    };
  };
}

/** `infra/helm/render <chart> <args>`: the rendered manifests. */
export function renderChart(repoRoot: string, chart: ChartId, values: Record<string, string>): Promise<Manifest[]> {
  const args = [chart, ...Object.entries(values).flatMap(([key, value]) => ['--set-string', `${key}=${value}`])];
  return new Promise((resolve, reject) => {
    const child = spawn(join(repoRoot, 'infra/helm/render'), args, {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.once('close', (code) => {
      if (code !== 0) return reject(new Error(`infra/helm/render ${chart}: ${err.trim().split('\n').at(-1)}`));
      resolve(
        parseAllDocuments(out)
          .map((d) => d.toJSON() as Manifest | null)
          .filter((d): d is Manifest => d !== null),
      );
    });
  });
}

/**
 * What a container wrote to its own filesystem (`podman diff`): files added, deleted or changed, without the
 * runtime's own (/etc/hosts, resolv.conf), the mount points the runtime made, and the folders that only
 * changed because something in them did (that something is listed).
 */
async function writtenPaths(container: string, mounts: readonly string[]): Promise<string[]> {
  const { stdout } = await execOk('podman', ['diff', '--format', 'json', container]);
  const diff = JSON.parse(stdout || '{}') as { changed?: string[]; added?: string[]; deleted?: string[] };
  const all = [...(diff.added ?? []), ...(diff.deleted ?? []), ...(diff.changed ?? [])];
  const under = (path: string, dir: string) => path === dir || path.startsWith(`${dir}/`);
  return all.filter(
    (path) =>
      !under(path, '/etc') &&
      !mounts.some((m) => under(m, path)) &&
      !all.some((other) => other !== path && under(other, path)),
  );
}

const until = <T>(what: string, withinMs: number, probe: () => Promise<T | undefined>) =>
  untilProbe('chart play', what, withinMs, probe);

const ours: Record<ChartId, 'als' | 'position-handler'> = {
  'als-api': 'als',
  'als-admin': 'als',
  'position-batch': 'position-handler',
  position: 'position-handler',
};

/** What a play needs of one chart: its values, the env a one-host play adds, and its port variable. */
interface Planned {
  readonly chart: ChartId;
  readonly values: Record<string, string>;
  readonly env: Record<string, string>;
  readonly port: number;
}

interface Adapted {
  /** The port the chart's service listens on (its probes moved with it). */
  readonly port: number;
  readonly documents: Manifest[];
  readonly deployment: Manifest;
  readonly main: Container;
  readonly rendered: Container;
  readonly dropped: string[];
}

/** The rendered chart made playable on one host (see the module's comment). */
function adapt(planned: Planned, manifests: Manifest[], suffix: string): Adapted {
  const deployment = manifests.find((m) => m.kind === 'Deployment');
  if (!deployment?.spec) throw new Error(`chart play: ${planned.chart} renders no Deployment`);
  const image = imageOf(ours[planned.chart]);
  const pod = deployment.spec.template.spec;
  const dropped: string[] = [];
  const isOurs = (c: Container) => c.image.endsWith(image);
  for (const c of [...pod.containers, ...(pod.initContainers ?? [])])
    if (!isOurs(c)) dropped.push(`${c.name} (${c.image})`);
  const rendered = pod.containers.find(isOurs);
  if (!rendered) throw new Error(`chart play: ${planned.chart} has no container of ${image}`);
  const probe = (p: Container['readinessProbe']) =>
    p?.httpGet ? { ...p, httpGet: { ...p.httpGet, port: planned.port } } : p;
  const { ports: _ports, ...rest } = rendered;
  const main: Container = {
    ...rest,
    image: `localhost/${image}`,
    imagePullPolicy: 'Never',
    env: [...(rendered.env ?? []), ...Object.entries(planned.env).map(([name, value]) => ({ name, value }))],
    ...(rendered.readinessProbe ? { readinessProbe: probe(rendered.readinessProbe) } : {}),
    ...(rendered.livenessProbe ? { livenessProbe: probe(rendered.livenessProbe) } : {}),
  };
  pod.containers = [main];
  pod.initContainers = [];
  pod.hostNetwork = true;
  deployment.spec.replicas = 1;
  // Unique names: ConfigMaps and the pod are podman objects of this host, as a namespace would hold them.
  const rename = (name: string) => `${name}-${suffix}`;
  for (const m of manifests) m.metadata.name = rename(m.metadata.name);
  const volumes = (pod as { volumes?: { configMap?: { name: string } }[] }).volumes ?? [];
  for (const v of volumes) if (v.configMap) v.configMap.name = rename(v.configMap.name);
  const documents = manifests.filter((m) => m.kind === 'Deployment' || m.kind === 'ConfigMap');
  return { port: planned.port, documents, deployment, main, rendered, dropped };
}

export interface ChartPlayOptions {
  readonly repoRoot: string;
  readonly settings: InfraSettings;
  readonly runDir: string;
  readonly transfers?: number;
  readonly log?: (line: string) => void;
}

export async function runChartPlay(options: ChartPlayOptions): Promise<ChartPlayReport> {
  const log = options.log ?? (() => {});
  const started = Date.now();
  const count = options.transfers ?? 200;
  // What the play made (databases, topics, clients, the simulators, the pods), closed last opened first,
  // however it ends; a close that fails fails the play, naming what did not close.
  await using resources = createResources();
  const ledger = await prepareLedger(options.settings, resources);
  const ports = await choosePorts();
  const sim = await startSimulators(options.repoRoot, ports, resources);
  const plans = planCharts(options.settings, ledger, ports, new URL(sim.ready.admin));
  const { file, adapted } = await renderCharts(options, plans);
  const containers = new Map<ChartId, RunningContainer>();
  try {
    log(`chart play: ${plans.map((p) => `${p.chart} on ${p.port}`).join(', ')}`);
    resources.own('kube play', file, (played) => exec('podman', ['kube', 'down', played], { timeoutMs: 120_000 }));
    await execOk('podman', ['kube', 'play', file], { timeoutMs: 180_000 });
    for (const [chart, a] of adapted) {
      const name = await playedContainerName('chart play', a.deployment.metadata.name, a.main.name);
      containers.set(chart, await followContainer('podman', name, readyWhen[ours[chart]], 90_000));
    }
    // The admin deployment registers the oracle; the API deployment answers a lookup through it.
    const oracleStatus = await registerOracle(`http://127.0.0.1:${ports.admin}`, sim.ready.oracle, 10_000);
    const lookup = await lookupParty(`http://127.0.0.1:${ports.api}`, sim.ready.payer, 30_000);
    log(`chart play: oracle ${oracleStatus}, lookup ${lookup.status}, callback ${lookup.callback.kind ?? 'none'}`);
    const transfers = await moveTransfers(options.settings, ledger, count, resources);
    log(`chart play: ${transfers.reserved} reserved, ${transfers.committed} committed, ${transfers.notified} notified`);
    const charts: ChartResult[] = [];
    for (const [chart, a] of adapted) {
      const result = await inspectAndStop(chart, a, containers.get(chart) as RunningContainer, ports);
      log(`chart play: ${chart} stopped in ${result.stop.ms} ms with ${result.stop.code}`);
      charts.push(result);
    }
    return {
      charts,
      lookup: { oracleStatus, status: lookup.status, callback: lookup.callback.kind ?? 'none' },
      transfers,
      seconds: Math.round((Date.now() - started) / 1000),
    };
  } catch (error) {
    for (const [chart, container] of containers) log(`--- ${chart} output ---\n${container.output().slice(-3000)}`);
    throw error;
  }
}

type Knex = ReturnType<typeof createKnex>;
type Connection = TestDatabase['connection'];

const PAYERS = ['chartpayer0', 'chartpayer1', 'chartpayer2', 'chartpayer3'];
const PAYEE = 'chartpayee';

/** The run's topics and databases, central-ledger's migrated and provisioned with the payers and the payee. */
interface ChartLedger {
  readonly topics: {
    readonly batch: string;
    readonly single: string;
    readonly notification: string;
    readonly bulk: string;
  };
  readonly ledgerDb: Connection;
  readonly alsDb: Connection;
  readonly knex: Knex;
  readonly accounts: Awaited<ReturnType<typeof provisionLedger>>['accounts'];
  readonly group: string;
}

async function prepareLedger(settings: InfraSettings, resources: Resources): Promise<ChartLedger> {
  // The databases a chart user points the charts at: central-ledger's, migrated and provisioned, and the
  // ALS's own (its tables are made by the ALS on an empty database).
  const database = async (prefix: string) =>
    resources.own(prefix, await createDatabase({ prefix, settings }), (opened) => opened.drop()).connection;
  const ledgerDb = await database('chart_central_ledger');
  const alsDb = await database('chart_account_lookup');
  const topic = async (prefix: string, partitions = 1) => {
    const created = await createTopic({ prefix, partitions, settings });
    return resources.own(`topic ${created.name}`, created, (opened) => opened.drop()).name;
  };
  const topics = {
    batch: await topic('chart-transfer-position-batch', 2),
    single: await topic('chart-transfer-position', 2),
    notification: await topic('chart-notification-event'),
    bulk: await topic('chart-bulk-processing'),
  };
  const knex = resources.own('knex', createKnex(ledgerDb), (opened) => opened.destroy());
  await migrateLatest(knex);
  const { accounts } = await provisionLedger(knex, {
    currencies: ['USD'],
    dfsps: [...PAYERS, PAYEE].map((name) => ({ name, netDebitCap: '1000000', liquidity: '1000000' })),
  });
  return { topics, ledgerDb, alsDb, knex, accounts, group: uniqueName('chart-position') };
}

interface ChartPorts {
  readonly api: number;
  readonly admin: number;
  readonly batch: number;
  readonly single: number;
  /** The port each ALS deployment is not meant to serve: nothing may listen there. */
  readonly apiOfAdmin: number;
  readonly adminOfApi: number;
}

async function choosePorts(): Promise<ChartPorts> {
  return {
    api: await freePorts(),
    admin: await freePorts(),
    batch: await freePorts(),
    single: await freePorts(),
    apiOfAdmin: await freePorts(),
    adminOfApi: await freePorts(),
  };
}

/** central-ledger's admin API, the oracle and the FSPs, as simulators on this host. */
async function startSimulators(repoRoot: string, ports: ChartPorts, resources: Resources) {
  const sim = await startService<{ admin: string; oracle: string; payer: string }>(
    join(repoRoot, 'packages/sim/dist/sim.js'),
    {
      cwd: repoRoot,
      env: {},
      args: ['--als-url', `http://127.0.0.1:${ports.api}`, '--port-base', '0'],
      readyWhen: (line) => (line.startsWith('{"ready":true') ? JSON.parse(line) : undefined),
      timeoutMs: 30_000,
    },
  );
  return resources.own('sim', sim, (opened) => opened.stop());
}

/** Each chart's values (our image, the addresses of Kafka, the databases and the admin simulator) and env. */
function planCharts(settings: InfraSettings, ledger: ChartLedger, ports: ChartPorts, adminSim: URL): Planned[] {
  const [kafkaHost, kafkaPort] = (settings.kafka.brokers[0] ?? '127.0.0.1:9092').split(':');
  const { topics, ledgerDb: ldb, alsDb: adb } = ledger;
  const als = {
    'config.db_host': adb.host,
    'config.db_port': String(adb.port),
    'config.db_user': adb.user,
    'config.db_password': adb.password,
    'config.db_database': adb.database,
    'config.central_services_host': adminSim.hostname,
    'config.central_services_port': adminSim.port,
  };
  const ledgerValues = {
    'image.repository': `localhost/${imageOf('position-handler').split(':')[0]}`,
    'image.tag': 'latest',
    'config.kafka_host': kafkaHost ?? '127.0.0.1',
    'config.kafka_port': kafkaPort ?? '9092',
    'config.db_host': ldb.host,
    'config.db_port': String(ldb.port),
    'config.db_user': ldb.user,
    'config.db_password': ldb.password,
    'config.db_database': ldb.database,
  };
  const positionEnv = (topicName: string, port: number) => ({
    POSITION_HTTP_PORT: String(port),
    POSITION_TOPICS: topicName,
    POSITION_NOTIFICATION_TOPIC: topics.notification,
    POSITION_COMMIT_TOPIC: topics.single,
    POSITION_BULK_PROCESSING_TOPIC: topics.bulk,
    POSITION_CONSUMER_GROUP: `${ledger.group}-${topicName}`,
  });
  const alsImage = `localhost/${imageOf('als').split(':')[0]}`;
  return [
    {
      chart: 'als-admin',
      // The stored admin chart is of the older layout: its image is under containers.admin.
      values: { 'containers.admin.image.repository': alsImage, 'containers.admin.image.tag': 'latest', ...als },
      env: { ALS_ADMIN_PORT: String(ports.admin), ALS_PORT: String(ports.apiOfAdmin) },
      port: ports.admin,
    },
    {
      chart: 'als-api',
      values: { 'image.repository': alsImage, 'image.tag': 'latest', ...als },
      env: { ALS_PORT: String(ports.api), ALS_ADMIN_PORT: String(ports.adminOfApi) },
      port: ports.api,
    },
    { chart: 'position-batch', values: ledgerValues, env: positionEnv(topics.batch, ports.batch), port: ports.batch },
    { chart: 'position', values: ledgerValues, env: positionEnv(topics.single, ports.single), port: ports.single },
  ];
}

/** Each chart rendered and adapted (its pod and ConfigMaps under one suffix), all written to one file to play. */
async function renderCharts(
  options: ChartPlayOptions,
  plans: readonly Planned[],
): Promise<{ file: string; adapted: Map<ChartId, Adapted> }> {
  const suffix = randomBytes(3).toString('hex');
  const adapted = new Map<ChartId, Adapted>();
  for (const planned of plans) {
    const manifests = await renderChart(options.repoRoot, planned.chart, planned.values);
    adapted.set(planned.chart, adapt(planned, manifests, suffix));
  }
  const documents = [...adapted.values()].flatMap((a) => a.documents);
  const file = join(options.runDir, 'charts.yaml');
  writeFileSync(file, documents.map((d) => JSON.stringify(d)).join('\n---\n'));
  return { file, adapted };
}

const stateCount = async (knex: Knex, state: string) => {
  const [row] = await knex('transferStateChange').count({ n: '*' }).where('transferStateId', state);
  return Number(row?.n);
};

/**
 * Transfers through each position handler, half on the batch topic and half on the one-at-a-time topic:
 * prepared until all are reserved, then committed until all are, each of the two steps notified.
 */
async function moveTransfers(
  settings: InfraSettings,
  ledger: ChartLedger,
  count: number,
  resources: Resources,
): Promise<ChartPlayReport['transfers']> {
  const { knex, topics } = ledger;
  const accountOf = (dfsp: string) => ledger.accounts.get(`${dfsp}:USD`)?.position as number;
  const transfers = Array.from({ length: count }, (_, i) => ({
    transferId: randomUUID(),
    payer: PAYERS[i % PAYERS.length] as string,
    payee: PAYEE,
    currency: 'USD',
    amount: String(1 + (i % 5)),
  }));
  await insertTransfers(
    knex,
    transfers.map((t) => ({ ...t, state: 'RECEIVED_PREPARE' as const })),
    ledger.accounts,
  );
  const notified = new Set<string>();
  const kafka = testKafka(settings, 'mojafast-chart-play');
  const reader = resources.own('reader', kafka.consumer({ groupId: uniqueName('chart-reader') }), (opened) =>
    opened.disconnect(),
  );
  await reader.connect();
  await reader.subscribe({ topic: topics.notification, fromBeginning: true });
  await reader.run({
    eachMessage: async ({ message }) => {
      const value = JSON.parse(String(message.value)) as { id: string; metadata?: { event?: { action?: string } } };
      notified.add(`${value.metadata?.event?.action}:${value.id}`);
    },
  });
  const producer = resources.own('producer', kafka.producer(), (opened) => opened.disconnect());
  await producer.connect();
  const half = Math.ceil(count / 2);
  const byTopic: [string, typeof transfers][] = [
    [topics.batch, transfers.slice(0, half)],
    [topics.single, transfers.slice(half)],
  ];
  const send = async (action: 'prepare' | 'commit') => {
    for (const [name, list] of byTopic) {
      const messages = generatePositionMessages({ transfers: list, action, accountOf });
      await producer.send({ topic: name, messages: [...messages] });
    }
  };
  const allIn = (state: string) =>
    until(`${count} transfers ${state.toLowerCase()}`, 90_000, async () => {
      const n = await stateCount(knex, state);
      return n >= count ? n : undefined;
    });
  await send('prepare');
  const reserved = await allIn('RESERVED');
  // What central-ledger's fulfil handler records before it sends the commit to the position topic.
  await knex('transferStateChange').insert(
    transfers.map((t) => ({ transferId: t.transferId, transferStateId: 'RECEIVED_FULFIL' })),
  );
  await send('commit');
  const committed = await allIn('COMMITTED');
  await until(`${2 * count} notifications`, 60_000, async () => (notified.size >= 2 * count ? true : undefined));
  return { count, reserved, committed, notified: notified.size };
}

/** One chart's probes, user and writes, then SIGTERM as the kubelet sends it. */
async function inspectAndStop(
  chart: ChartId,
  a: Adapted,
  container: RunningContainer,
  ports: ChartPorts,
): Promise<ChartResult> {
  const probes: ChartResult['probes'] = {};
  for (const kind of ['readinessProbe', 'livenessProbe'] as const) {
    const path = a.main[kind]?.httpGet?.path;
    if (path === undefined) continue;
    const answer = await fetch(`http://127.0.0.1:${a.port}${path}`, { signal: AbortSignal.timeout(5000) });
    await answer.arrayBuffer();
    probes[kind] = { path, status: answer.status };
  }
  const other = chart === 'als-api' ? ports.adminOfApi : chart === 'als-admin' ? ports.apiOfAdmin : undefined;
  const otherPortRefused = other === undefined ? undefined : await refused(other);
  const { uid } = await mainProcessIds('podman', container.name);
  const mounts = (a.main.volumeMounts ?? []).map((m) => m.mountPath);
  const written = await writtenPaths(container.name, mounts);
  const grace = a.deployment.spec?.template.spec.terminationGracePeriodSeconds ?? 30;
  const stop = await container.stop(grace);
  return {
    chart,
    command: [...(a.rendered.command ?? []), ...(a.rendered.args ?? [])],
    runAsUser: a.rendered.securityContext?.runAsUser ?? null,
    readOnlyRootFilesystem: a.rendered.securityContext?.readOnlyRootFilesystem === true,
    mounts,
    probes,
    ...(otherPortRefused === undefined ? {} : { otherPortRefused }),
    uid,
    written,
    dropped: a.dropped,
    stop: { code: stop.code, ms: stop.ms, graceSeconds: grace },
  };
}

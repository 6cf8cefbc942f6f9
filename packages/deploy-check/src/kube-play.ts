/// <reference lib="esnext.disposable" />
import { randomBytes, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createKnex, migrateLatest } from '@mojafast/position-handler';
import {
  type GeneratedTransfer,
  generatePositionMessages,
  insertTransfers,
  provisionLedger,
} from '@mojafast/position-handler/testing';
import { createResources, type Resources } from '@mojafast/service-kit';
import {
  createDatabase,
  createTopic,
  type InfraSettings,
  type TestDatabase,
  type TestTopic,
  testKafka,
  uniqueName,
} from '@mojafast/testkit';
import { stringify } from 'yaml';
import { freePorts, planCluster } from './cluster-plan.js';
import {
  followContainer,
  imageOf,
  mainProcessIds,
  playedContainerName,
  type RunningContainer,
  type StopResult,
} from './containers.js';
import { type EngineName, exec, execOk } from './engine.js';
import { type K8sContainer, type K8sObject, k8sObject, loadK8s } from './infra.js';
import { until as untilProbe } from './probes.js';
import { handlerDatabaseEnv, type ServiceSpec, services } from './services.js';
import { readyWhen } from './smoke.js';

/**
 * `podman kube play` of infra/k8s/position-handler.yaml with two replicas on a topic of four partitions,
 * against the host's Kafka and MariaDB (a fresh topic and database of this run):
 * - both replicas get partitions (the consumer group's assignment, read from the broker);
 * - the probes the manifest declares answer 200 on each replica, and each main process is not root;
 * - one replica is SIGKILLed while the prepares are being applied, and at the end every transfer is RESERVED
 *   exactly once, each payer's position equals the sum of its transfers and of its position changes, and
 *   every transfer was notified (the crash test's exactly-once check);
 * - SIGTERM (`podman stop -t <terminationGracePeriodSeconds>`) ends the surviving replica with exit code 0
 *   within the grace period.
 *
 * What the rendered manifest changes, and why: podman runs one pod per Deployment (it caps replicas at 1), so
 * the Deployment appears twice, `-0` and `-1`; the pods use the host's network (Kafka and MariaDB listen on
 * its loopback), so each replica gets its own HTTP port (env and probes; no container ports, which podman
 * refuses on the host's network); the
 * ConfigMap's and Secret's values, planned by cluster-plan.ts with the run's topic and database, are given
 * as the container's env (podman 4.3's kube play looks Secrets up in its own store, not in the file); the
 * image is the local build (imagePullPolicy Never). Everything else, securityContext (runAsNonRoot, uid 1000,
 * read-only root filesystem), probes, grace period and the /profiles emptyDir, is the manifest's.
 */
export interface KubePlayReport {
  readonly replicas: {
    name: string;
    port: number;
    uid: number;
    gid: number;
    partitions: number[];
    probes: Record<string, number>;
  }[];
  readonly transfers: number;
  readonly killed: { replica: string; appliedBefore: number; exit: string };
  readonly result: {
    reserved: number;
    reservedTwice: number;
    positionsMatch: boolean;
    changesMatch: boolean;
    notified: number;
  };
  readonly stop: StopResult & { graceSeconds: number };
  readonly seconds: number;
}

const DEPLOYMENT = 'central-handler-position-batch';
const REPLICAS = 2;
const PARTITIONS = 4;
const PAYERS = Array.from({ length: 16 }, (_, i) => `kubepayer${i}`);
const PAYEE = 'kubepayee';

/** Decodes a consumer group member's assignment (the consumer protocol's MemberAssignment). */
export function assignedPartitions(assignment: Buffer): Map<string, number[]> {
  const topics = new Map<string, number[]>();
  if (assignment.length < 6) return topics;
  let at = 2; // version
  const topicCount = assignment.readInt32BE(at);
  at += 4;
  for (let t = 0; t < topicCount; t++) {
    const length = assignment.readInt16BE(at);
    at += 2;
    const topic = assignment.toString('utf8', at, at + length);
    at += length;
    const count = assignment.readInt32BE(at);
    at += 4;
    const partitions: number[] = [];
    for (let p = 0; p < count; p++, at += 4) partitions.push(assignment.readInt32BE(at));
    topics.set(topic, partitions);
  }
  return topics;
}

const until = <T>(what: string, withinMs: number, probe: () => Promise<T | undefined>) =>
  untilProbe('kube play', what, withinMs, probe);

export interface KubePlayOptions {
  readonly engine: EngineName;
  readonly repoRoot: string;
  readonly settings: InfraSettings;
  readonly runDir: string;
  readonly transfers?: number;
  readonly log?: (line: string) => void;
}

export async function runKubePlay(options: KubePlayOptions): Promise<KubePlayReport> {
  const log = options.log ?? (() => {});
  if (options.engine !== 'podman') throw new Error('kube play: needs podman (docker has no kube play)');
  const spec = services.find((s) => s.id === 'position-handler');
  if (!spec) throw new Error('kube play: no position-handler service');
  const started = Date.now();
  const transfers = options.transfers ?? 6000;
  // What the play made (topics, database, clients, the pods), closed last opened first, however it ends.
  await using resources = createResources();
  const ledger = await prepareLedger(options.settings, transfers, resources);
  const rendered = await renderReplicas(options, spec, ledger);
  const containers: RunningContainer[] = [];
  try {
    log(
      `kube play: ${rendered.names.join(', ')} on ports ${rendered.ports.join(', ')}, topic ${ledger.input.name} (${PARTITIONS} partitions)`,
    );
    resources.own('kube play', rendered.file, (file) => exec('podman', ['kube', 'down', file], { timeoutMs: 120_000 }));
    await execOk('podman', ['kube', 'play', rendered.file], { timeoutMs: 120_000 });
    for (const name of rendered.names) {
      const played = await playedContainerName('kube play', name, DEPLOYMENT);
      containers.push(await followContainer('podman', played, readyWhen['position-handler'], 60_000));
    }
    const replicas = await probeReplicas(options.settings, ledger, rendered, containers, resources, log);
    const killed = await killDuringPrepares(
      options.settings,
      ledger,
      containers[1] as RunningContainer,
      resources,
      log,
    );
    await until(`all ${transfers} prepares applied`, 120_000, async () =>
      (await reservedCount(ledger.knex)) >= transfers ? true : undefined,
    );
    const result = await exactlyOnce(options.settings, ledger, resources);
    // SIGTERM to the survivor, as the kubelet does on a rollout or a scale-down.
    const survivor = containers[0] as RunningContainer;
    const stop = await survivor.stop(rendered.grace);
    log(`kube play: ${survivor.name} stopped in ${stop.ms} ms, exit ${stop.code}`);
    return {
      replicas,
      transfers,
      killed,
      result,
      stop: { ...stop, graceSeconds: rendered.grace },
      seconds: Math.round((Date.now() - started) / 1000),
    };
  } catch (error) {
    for (const container of containers) log(`--- ${container.name} output ---\n${container.output().slice(-3000)}`);
    throw error;
  }
}

type Knex = ReturnType<typeof createKnex>;

/** The run's topics and database, the ledger provisioned, and the transfers the prepares will reserve. */
interface PlayLedger {
  readonly input: TestTopic;
  readonly notifications: TestTopic;
  readonly commits: TestTopic;
  readonly bulk: TestTopic;
  readonly connection: TestDatabase['connection'];
  readonly knex: Knex;
  readonly batch: readonly GeneratedTransfer[];
  readonly accountOf: (dfsp: string) => number;
  readonly amountOf: (i: number) => number;
  readonly group: string;
}

async function prepareLedger(settings: InfraSettings, transfers: number, resources: Resources): Promise<PlayLedger> {
  const topic = async (prefix: string, partitions = 1): Promise<TestTopic> => {
    const created = await createTopic({ prefix, partitions, settings });
    return resources.own(`topic ${created.name}`, created, (opened) => opened.drop());
  };
  const input = await topic('kube-transfer-position-batch', PARTITIONS);
  const notifications = await topic('kube-notification-event');
  const commits = await topic('kube-transfer-position');
  const bulk = await topic('kube-bulk-processing');
  const database = resources.own(
    'database',
    await createDatabase({ prefix: 'kube_central_ledger', settings }),
    (opened) => opened.drop(),
  );
  const knex = resources.own('knex', createKnex(database.connection), (opened) => opened.destroy());
  await migrateLatest(knex);
  const ledger = await provisionLedger(knex, {
    currencies: ['USD'],
    dfsps: [...PAYERS, PAYEE].map((name) => ({ name, netDebitCap: '1000000', liquidity: '1000000' })),
  });
  const accountOf = (dfsp: string) => ledger.accounts.get(`${dfsp}:USD`)?.position as number;
  const amountOf = (i: number) => 1 + (i % 7);
  const batch = Array.from({ length: transfers }, (_, i) => ({
    transferId: randomUUID(),
    payer: PAYERS[i % PAYERS.length] as string,
    payee: PAYEE,
    currency: 'USD',
    amount: String(amountOf(i)),
  }));
  await insertTransfers(
    knex,
    batch.map((t) => ({ ...t, state: 'RECEIVED_PREPARE' as const })),
    ledger.accounts,
  );
  const group = uniqueName('kube-position');
  return {
    input,
    notifications,
    commits,
    bulk,
    connection: database.connection,
    knex,
    batch,
    accountOf,
    amountOf,
    group,
  };
}

type ReplicaDocument = K8sObject & {
  spec: { replicas: number; template: { spec: { hostNetwork?: boolean; containers: K8sContainer[] } } };
};

/** The manifest as podman plays it: one Deployment per replica, each on the host's network with its own port. */
interface RenderedReplicas {
  readonly file: string;
  readonly names: readonly string[];
  readonly ports: readonly number[];
  readonly documents: readonly ReplicaDocument[];
  readonly grace: number;
}

async function renderReplicas(
  options: KubePlayOptions,
  spec: ServiceSpec,
  ledger: PlayLedger,
): Promise<RenderedReplicas> {
  // The Deployment's env as the manifests give it (ConfigMap, Secret), addresses and the run's names rewritten.
  const [planned] = await planCluster({
    repoRoot: options.repoRoot,
    from: 'k8s',
    specs: [spec],
    infra: { kafkaBrokers: options.settings.kafka.brokers, mysql: options.settings.mysql },
    runDir: '/profiles',
    overrides: {
      'position-handler': {
        ...handlerDatabaseEnv(ledger.connection),
        POSITION_TOPICS: ledger.input.name,
        NOTIFICATION_TOPIC: ledger.notifications.name,
        POSITION_COMMIT_TOPIC: ledger.commits.name,
        BULK_PROCESSING_TOPIC: ledger.bulk.name,
        POSITION_CONSUMER_GROUP: ledger.group,
        // Small batches and a short session: the kill lands inside the work, and the survivor takes the
        // dead replica's partitions within seconds instead of the default session timeout.
        POSITION_BATCH_SIZE: '50',
        KAFKA_SESSION_TIMEOUT_MS: '6000',
      },
    },
  });
  if (!planned) throw new Error('kube play: nothing planned');
  const ports = [await freePorts(), await freePorts()];
  const deployment = k8sObject(loadK8s(options.repoRoot), 'Deployment', DEPLOYMENT);
  const suffix = randomBytes(3).toString('hex');
  const names = ports.map((_, i) => `${DEPLOYMENT}-${suffix}-${i}`);
  const documents = ports.map((port, i) => {
    const copy = structuredClone(deployment) as ReplicaDocument;
    copy.metadata = { ...copy.metadata, name: names[i] as string };
    copy.spec.replicas = 1;
    copy.spec.template.spec.hostNetwork = true;
    copy.spec.template.spec.containers = copy.spec.template.spec.containers.map((container) => {
      // A client id per replica tells the group's members apart (on Kubernetes each pod's address does).
      const env = { ...planned.env, POSITION_HTTP_PORT: String(port), KAFKA_CLIENT_ID: names[i] as string };
      const probe = (p: K8sContainer['readinessProbe']) => (p?.httpGet ? { ...p, httpGet: { ...p.httpGet, port } } : p);
      // No envFrom (the planned env replaces it) and no ports: podman refuses port mappings on the host's network.
      const { envFrom: _envFrom, ports: _ports, ...rest } = container;
      return {
        ...rest,
        image: `localhost/${imageOf(spec.id)}`,
        imagePullPolicy: 'Never',
        env: Object.entries(env).map(([name, value]) => ({ name, value })),
        readinessProbe: probe(container.readinessProbe),
        livenessProbe: probe(container.livenessProbe),
      };
    });
    return copy;
  });
  const file = join(options.runDir, 'kube.yaml');
  writeFileSync(file, documents.map((d) => stringify(d)).join('---\n'));
  const grace = Number(
    (deployment.spec as { template: { spec: { terminationGracePeriodSeconds?: number } } }).template.spec
      .terminationGracePeriodSeconds ?? 30,
  );
  return { file, names, ports, documents, grace };
}

/** Both replicas in the group, each holding partitions; then each one's probes, user and partitions. */
async function probeReplicas(
  settings: InfraSettings,
  ledger: PlayLedger,
  rendered: RenderedReplicas,
  containers: readonly RunningContainer[],
  resources: Resources,
  log: (line: string) => void,
): Promise<KubePlayReport['replicas']> {
  const admin = testKafka(settings, 'mojafast-kube-play').admin();
  await admin.connect();
  resources.own('admin', admin, (opened) => opened.disconnect());
  const assignment = await until('both replicas holding partitions', 60_000, async () => {
    const { groups } = await admin.describeGroups([ledger.group]);
    const members = groups[0]?.members ?? [];
    const parts = members.map((m) => assignedPartitions(m.memberAssignment).get(ledger.input.name) ?? []);
    return parts.length === REPLICAS && parts.every((p) => p.length > 0) && groups[0]?.state === 'Stable'
      ? new Map(members.map((m, i) => [m.clientId, (parts[i] ?? []).sort()]))
      : undefined;
  });
  log(`kube play: assignment ${JSON.stringify([...assignment])}`);
  const replicas: KubePlayReport['replicas'] = [];
  for (const [i, container] of containers.entries()) {
    const port = rendered.ports[i] as number;
    const probes: Record<string, number> = {};
    for (const kind of ['readinessProbe', 'livenessProbe'] as const) {
      const path = rendered.documents[i]?.spec.template.spec.containers[0]?.[kind]?.httpGet?.path ?? '';
      probes[kind] = (await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(5000) })).status;
    }
    replicas.push({
      name: container.name,
      port,
      ...(await mainProcessIds('podman', container.name)),
      // The client may suffix the id it was given (a connection pool's name).
      partitions: [...assignment].find(([clientId]) => clientId.startsWith(rendered.names[i] as string))?.[1] ?? [],
      probes,
    });
  }
  return replicas;
}

const reservedCount = async (knex: Knex) => {
  const [row] = await knex('transferStateChange').count({ n: '*' }).where('transferStateId', 'RESERVED');
  return Number(row?.n);
};

/** The prepares, then a SIGKILL of `victim` once the first of them are applied. */
async function killDuringPrepares(
  settings: InfraSettings,
  ledger: PlayLedger,
  victim: RunningContainer,
  resources: Resources,
  log: (line: string) => void,
): Promise<KubePlayReport['killed']> {
  const producer = testKafka(settings, 'mojafast-kube-play').producer();
  await producer.connect();
  resources.own('producer', producer, (opened) => opened.disconnect());
  const messages = generatePositionMessages({
    transfers: ledger.batch,
    action: 'prepare',
    accountOf: ledger.accountOf,
  });
  for (let i = 0; i < messages.length; i += 500)
    await producer.send({ topic: ledger.input.name, messages: [...messages.slice(i, i + 500)] });
  const appliedBefore = await until('the first prepares applied', 60_000, async () => {
    const n = await reservedCount(ledger.knex);
    return n > 0 ? n : undefined;
  });
  await execOk('podman', ['kill', '--signal', 'KILL', victim.name]);
  const exit = (
    await exec('podman', ['inspect', '--format', '{{.State.Status}} {{.State.ExitCode}}', victim.name])
  ).stdout.trim();
  log(`kube play: killed ${victim.name} with ${appliedBefore}/${ledger.batch.length} applied (${exit})`);
  if (appliedBefore >= ledger.batch.length)
    throw new Error('kube play: every prepare was applied before the kill; nothing was tested');
  return { replica: victim.name, appliedBefore, exit };
}

/** Exactly once: one RESERVED per transfer, positions = sum of amounts = sum of position changes, all notified. */
async function exactlyOnce(
  settings: InfraSettings,
  ledger: PlayLedger,
  resources: Resources,
): Promise<KubePlayReport['result']> {
  const { knex, batch, accountOf } = ledger;
  const rows = (await knex('transferStateChange')
    .select('transferId')
    .count({ n: '*' })
    .where('transferStateId', 'RESERVED')
    .groupBy('transferId')) as { transferId: string; n: number }[];
  const reservedTwice = rows.filter((r) => Number(r.n) !== 1).length;
  const expected = new Map<string, number>();
  for (const [i, t] of batch.entries()) expected.set(t.payer, (expected.get(t.payer) ?? 0) + ledger.amountOf(i));
  const [positions] = (await knex.raw(
    `SELECT pp.participantCurrencyId AS id, pp.value AS value, COALESCE(SUM(ppc.change), 0) AS total
       FROM participantPosition pp LEFT JOIN participantPositionChange ppc ON ppc.participantPositionId = pp.participantPositionId
      WHERE pp.participantCurrencyId IN (${PAYERS.map(() => '?').join(',')}) GROUP BY pp.participantPositionId`,
    PAYERS.map(accountOf),
  )) as [{ id: number; value: string; total: string }[]];
  const byAccount = new Map(positions.map((p) => [Number(p.id), p]));
  const positionsMatch = PAYERS.every((p) => Number(byAccount.get(accountOf(p))?.value) === expected.get(p));
  const changesMatch = positions.every((p) => Number(p.value) === Number(p.total));
  const notified = await notifiedTransfers(settings, ledger, resources);
  return { reserved: rows.length, reservedTwice, positionsMatch, changesMatch, notified };
}

/** How many transfers got a notification, read from the notification topic (waits for all, at most a minute). */
async function notifiedTransfers(settings: InfraSettings, ledger: PlayLedger, resources: Resources): Promise<number> {
  const seen = new Set<string>();
  const reader = testKafka(settings, 'mojafast-kube-play').consumer({ groupId: uniqueName('kube-reader') });
  await reader.connect();
  resources.own('reader', reader, (opened) => opened.disconnect());
  await reader.subscribe({ topic: ledger.notifications.name, fromBeginning: true });
  await reader.run({
    eachMessage: async ({ message }) => {
      seen.add((JSON.parse(String(message.value)) as { id: string }).id);
    },
  });
  await until(`notifications of all ${ledger.batch.length} transfers`, 60_000, async () =>
    seen.size >= ledger.batch.length ? true : undefined,
  ).catch(() => undefined);
  return seen.size;
}

import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createKnex, migrateLatest } from '@mojafast/position-handler';
import {
  generatePositionMessages,
  insertTransfers,
  type KeyedMessage,
  provisionLedger,
} from '@mojafast/position-handler/testing';
import { createResources } from '@mojafast/service-kit';
import {
  createDatabase,
  createTopic,
  type InfraSettings,
  type TestDatabase,
  type TestTopic,
  testKafka,
  uniqueName,
} from '@mojafast/testkit';
import { type ClusterProcess, planCluster, startOrder } from './cluster-plan.js';
import { loadCompose } from './infra.js';
import { lookupParty, until as untilProbe } from './probes.js';
import { startService } from './process.js';
import { handlerDatabaseEnv, type ServiceSpec, services } from './services.js';

/**
 * The whole-cluster smoke run without Docker: our ALS, position handler and simulators
 * started from dist/ as infra/compose/compose.yaml (or infra/k8s/*.yaml) wires them (cluster-plan.ts says
 * what is rewritten), then
 * one lookup (GET /parties from the payer FSP → the payer simulator receives the PUT callback) and one
 * prepare → commit on the position topics (→ the two notifications, the payer's and then the payee's
 * position moved).
 *
 * What compose's one-shot services do is done here against the local Kafka and MySQL of `infra/svc start`:
 * kafka-provisioning's topics and central-ledger-migrator's schema become a fresh set of topics and a fresh
 * database for this run, migrated with the handler's own schema (its provision code), with two DFSPs and
 * the transfer the prepare and fulfil handlers would have recorded. They are the only env values besides
 * addresses that differ from the compose file (DB_*, the topic names, the consumer group), so a run never
 * touches the shared topics or central_ledger; all of them are deleted at the end.
 */
export interface SmokeOptions {
  readonly repoRoot: string;
  /** Where the services' dist/ are (MOJAFAST_SERVICES_ROOT or the repository). */
  readonly servicesRoot: string;
  readonly settings: InfraSettings;
  /** A directory of this run (the images' /profiles). */
  readonly runDir: string;
  readonly log?: (line: string) => void;
  /** Whose wiring: the compose file's (default) or the Kubernetes manifests'. */
  readonly from?: 'compose' | 'k8s';
  /** Upper bound of each wait (a start, a callback, a notification). */
  readonly waitMs?: number;
  /**
   * How a service is started: by default `node <entry>` from the package as a local process; `infra/images
   * run` starts the service's image as a container instead (container-smoke.ts). The images' `/profiles`
   * is rewritten to runDir for processes only.
   */
  readonly launch?: Launcher;
  /** Called with the plan before any service starts (a compose tool brings the whole file up here). */
  readonly prepare?: (plan: readonly ClusterProcess[]) => Promise<void>;
  /** Called while everything still runs, after the lookup and the commit; its answer goes in the report. */
  readonly inspect?: (running: ReadonlyMap<ServiceSpec['id'], Launched>) => Promise<unknown>;
}

/** A started service: what it printed, and its stop with SIGTERM. */
export interface Launched {
  output(): string;
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms?: number }>;
}

export type Launcher = (launch: {
  spec: ServiceSpec;
  process: ClusterProcess;
  readyWhen: (line: string) => true | undefined;
  timeoutMs: number;
}) => Promise<Launched>;

export interface SmokeReport {
  readonly from: 'compose' | 'k8s';
  readonly processes: { id: string; composeService: string; ports: Record<string, number> }[];
  readonly lookup: { status: number; callback: string; path: string };
  readonly prepare: { notification: string; payerPosition: [string, string] };
  readonly commit: { notification: string; payeePosition: [string, string] };
  /** What options.inspect found. */
  readonly inspection?: unknown;
  /** How each service ended on SIGTERM, in stop order (filled once all are stopped). */
  readonly stops: { id: string; code: number | null; signal: NodeJS.Signals | null; ms?: number }[];
}

interface Notification {
  id?: string;
  action?: string;
  status?: string;
}

const AMOUNT = '10';
const CURRENCY = 'USD';
const PAYER = 'smokepayer';
const PAYEE = 'smokepayee';

function readyJson(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** The line each service prints once it serves. */
export const readyWhen: Record<ServiceSpec['id'], (line: string) => true | undefined> = {
  als: (line) => (readyJson(line)?.ready === true ? true : undefined),
  sim: (line) => (readyJson(line)?.ready === true ? true : undefined),
  'position-handler': (line) => (readyJson(line)?.msg === 'position handler started' ? true : undefined),
};

const until = <T>(what: string, withinMs: number, probe: () => T | undefined | Promise<T | undefined>) =>
  untilProbe('smoke', what, withinMs, probe, 100);

/** The default launcher: the container's command (`node <entry>`) run by this Node from the package. */
function launchProcess(servicesRoot: string): Launcher {
  return ({ spec, process: process_, readyWhen: ready, timeoutMs }) => {
    // The images' WORKDIR is the package.
    const [program, entry, ...args] = process_.command;
    if (program !== 'node' || entry === undefined)
      throw new Error(`smoke: ${spec.composeService} runs "${process_.command.join(' ')}", not node <entry>`);
    return startService(join(servicesRoot, spec.packageDir, entry), {
      cwd: join(servicesRoot, spec.packageDir),
      args,
      env: process_.env,
      readyWhen: ready,
      timeoutMs,
    });
  };
}

export async function runSmoke(options: SmokeOptions): Promise<SmokeReport> {
  const log = options.log ?? (() => {});
  const waitMs = options.waitMs ?? 30_000;
  const compose = loadCompose(options.repoRoot);
  // What the play made (databases, topics, clients, simulators), closed last opened first; a close that fails
  // is named in the log, the others still run.
  const resources = createResources();
  const running = new Map<ServiceSpec['id'], Launched>();
  const stops: SmokeReport['stops'] = [];
  const launch = options.launch ?? launchProcess(options.servicesRoot);
  try {
    // What kafka-provisioning and central-ledger-migrator do in compose, for this run only.
    const topicOf = async (prefix: string, partitions = 1) => {
      const topic: TestTopic = await createTopic({ prefix, partitions, settings: options.settings });
      resources.own(`topic ${topic.name}`, topic, (opened) => opened.drop());
      return topic.name;
    };
    const positionTopic = await topicOf('smoke-transfer-position-batch', 4);
    const notificationTopic = await topicOf('smoke-notification-event');
    const commitTopic = await topicOf('smoke-transfer-position');
    const bulkTopic = await topicOf('smoke-bulk-processing');
    const database: TestDatabase = await createDatabase({ prefix: 'smoke_central_ledger', settings: options.settings });
    resources.own('database', database, (opened) => opened.drop());
    const knex = createKnex(database.connection);
    resources.own('knex', knex, (opened) => opened.destroy());
    await migrateLatest(knex);
    const transferId = randomUUID();
    const transfer = { transferId, payer: PAYER, payee: PAYEE, currency: CURRENCY, amount: AMOUNT };
    const ledger = await provisionLedger(knex, {
      currencies: [CURRENCY],
      dfsps: [
        { name: PAYER, netDebitCap: '10000', liquidity: '100000' },
        { name: PAYEE, netDebitCap: '10000', liquidity: '100000' },
      ],
    });
    await insertTransfers(knex, [{ ...transfer, state: 'RECEIVED_PREPARE' }], ledger.accounts);
    const accountOf = (dfsp: string) => {
      const account = ledger.accounts.get(`${dfsp}:${CURRENCY}`);
      if (!account) throw new Error(`smoke: no ${dfsp} account provisioned`);
      return account.position;
    };
    const positionOf = async (dfsp: string): Promise<string> => {
      const row = await knex('participantPosition')
        .first('value')
        .where({ participantCurrencyId: accountOf(dfsp) });
      return String(row?.value);
    };
    log(`database ${database.name}, topics ${positionTopic}, ${notificationTopic}`);

    const { connection } = database;
    const plan: ClusterProcess[] = await planCluster({
      repoRoot: options.repoRoot,
      from: options.from ?? 'compose',
      specs: services,
      infra: { kafkaBrokers: options.settings.kafka.brokers, mysql: options.settings.mysql },
      // In a container /profiles is the image's own writable directory.
      runDir: options.launch ? '/profiles' : options.runDir,
      overrides: {
        'position-handler': {
          ...handlerDatabaseEnv(connection),
          POSITION_TOPICS: positionTopic,
          NOTIFICATION_TOPIC: notificationTopic,
          POSITION_COMMIT_TOPIC: commitTopic,
          BULK_PROCESSING_TOPIC: bulkTopic,
          POSITION_CONSUMER_GROUP: uniqueName('smoke-position'),
        },
      },
    });
    const byId = new Map(plan.map((p) => [p.spec.id, p]));
    await options.prepare?.(plan);
    for (const spec of startOrder(compose, services)) {
      const process_ = byId.get(spec.id) as ClusterProcess;
      log(`starting ${spec.composeService}: ${JSON.stringify(process_.ports)}`);
      running.set(spec.id, await launch({ spec, process: process_, readyWhen: readyWhen[spec.id], timeoutMs: waitMs }));
    }
    const port = (id: ServiceSpec['id'], listener: string) => byId.get(id)?.ports[listener] as number;

    // One lookup: the payer FSP asks the ALS, the payee simulator answers, the ALS calls the payer back.
    const lookup = await lookupParty(
      `http://127.0.0.1:${port('als', 'api')}`,
      `http://127.0.0.1:${port('sim', 'payer')}`,
      waitMs,
    );
    const { callback } = lookup;
    log(
      `lookup: ${lookup.status}, callback ${callback.kind ?? `none (${lookup.polledStatus})`} ${callback.path ?? ''}`,
    );

    // One prepare, then (after the fulfil handler's state) one commit, on the handler's position topic.
    const kafka = testKafka(options.settings, 'mojafast-smoke');
    const notifications: Notification[] = [];
    const consumer = kafka.consumer({ groupId: uniqueName('smoke-notifications') });
    resources.own('consumer', consumer, (opened) => opened.disconnect());
    await consumer.connect();
    await consumer.subscribe({ topic: notificationTopic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        const value = JSON.parse(message.value?.toString() ?? '{}') as {
          id?: string;
          metadata?: { event?: { action?: string; state?: { status?: string } } };
        };
        notifications.push({
          id: value.id,
          action: value.metadata?.event?.action,
          status: value.metadata?.event?.state?.status,
        });
      },
    });
    const producer = kafka.producer();
    resources.own('producer', producer, (opened) => opened.disconnect());
    await producer.connect();
    const send = (messages: KeyedMessage[]) => producer.send({ topic: positionTopic, messages: [...messages] });
    const seen = (action: string) =>
      until(`the ${action} notification`, waitMs, () => {
        const found = notifications.find((n) => n.id === transferId && n.action === action);
        return found ? `${found.action}/${found.status}` : undefined;
      });

    const payerBefore = await positionOf(PAYER);
    await send(generatePositionMessages({ transfers: [transfer], action: 'prepare', accountOf }));
    const prepared = await seen('prepare');
    const payerAfter = await positionOf(PAYER);
    log(`prepare: notification ${prepared}, ${PAYER} position ${payerBefore} -> ${payerAfter}`);

    // What central-ledger's fulfil handler records before it routes the commit to the position topic.
    await knex('transferStateChange').insert({ transferId, transferStateId: 'RECEIVED_FULFIL' });
    const payeeBefore = await positionOf(PAYEE);
    await send(generatePositionMessages({ transfers: [transfer], action: 'commit', accountOf }));
    const committed = await seen('commit');
    const payeeAfter = await positionOf(PAYEE);
    log(`commit: notification ${committed}, ${PAYEE} position ${payeeBefore} -> ${payeeAfter}`);

    const inspection = options.inspect ? await options.inspect(running) : undefined;
    return {
      from: options.from ?? 'compose',
      processes: plan.map((p) => ({ id: p.spec.id, composeService: p.composeService, ports: p.ports })),
      lookup: { status: lookup.status, callback: callback.kind ?? 'none', path: callback.path ?? '' },
      prepare: { notification: prepared, payerPosition: [payerBefore, payerAfter] },
      commit: { notification: committed, payeePosition: [payeeBefore, payeeAfter] },
      ...(inspection === undefined ? {} : { inspection }),
      stops,
    };
  } catch (error) {
    for (const [id, service] of running) log(`--- ${id} output ---\n${service.output()}`);
    throw error;
  } finally {
    // SIGTERM, as compose stops a container; the reverse of the start order.
    for (const [id, service] of [...running].reverse()) stops.push({ id, ...(await service.stop()) });
    for (const { name, error } of await resources.close()) log(`closing ${name} failed: ${String(error)}`);
  }
}

import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { entryPoints } from '../load/paths.js';
import { freePort } from '../load/ports.js';
import { pidFrom, type Service, spawnUntilHealthy, spawnUntilReadyLine } from '../load/processes.js';
import type { StackConnections } from './stack.js';

/**
 * What consumes the position topic: the handler, the passthrough (passthrough.ts: the handler's Kafka layer,
 * decode and notification encoding without the database), whose msgs/s is the floor the Kafka client sets, the
 * database floors (db-floor.ts: the rows written with no reads, `db-floor`, or after the fewest reads,
 * `db-reads-floor`), or central-ledger 19.5.5's own batch position handler (`original`, started by infra/svc).
 */
export type PositionTarget = 'handler' | 'passthrough' | 'db-floor' | 'db-reads-floor' | 'original';

export interface FleetOptions {
  readonly target: PositionTarget;
  readonly instances: number;
  /** The handler's built entry point (default: this checkout's dist/position.js). */
  readonly handlerEntry?: string;
  /** The handlers' environment: brokers, topics, group, database, batch size, client, knobs. */
  readonly env: Record<string, string>;
  /** The stack the run is on: whose broker and database pids are measured. */
  readonly stack: StackConnections;
  /** For `original`: its topic prefix and database (its topics are `<prefix>topic-transfer-position-batch`...). */
  readonly original?: { readonly prefix: string; readonly database: string; readonly batchSize: number };
}

/** The processes of one run, each ready, and the pids whose CPU a phase measures. */
export interface Fleet {
  readonly services: readonly Service[];
  /** The handlers' /metrics (none for the passthrough). */
  readonly metricsUrls: readonly string[];
  /** `handler` (or `handler1`, `handler2`... with several instances), `passthrough`, `kafka`, `mariadb`, `bench`. */
  readonly pids: ReadonlyMap<string, number>;
  stop(): Promise<void>;
}

/**
 * Starts `instances` handler (or passthrough) processes in one consumer group, each waited for until it is
 * ready (the handler's /health, the passthrough's ready line); the broker and database pids come from
 * infra/svc's pid files, so their CPU is measured beside ours.
 */
export async function startFleet(options: FleetOptions): Promise<Fleet> {
  if (options.target === 'original') return startOriginal(options);
  const services: Service[] = [];
  const metricsUrls: string[] = [];
  const stop = async () => {
    for (const s of services) await s.stop();
  };
  try {
    for (let i = 0; i < options.instances; i++) {
      const port = await freePort();
      const env = { ...options.env, POSITION_HTTP_PORT: String(port) };
      if (options.target !== 'handler') {
        const args =
          options.target === 'passthrough'
            ? [entryPoints.positionPassthrough]
            : [entryPoints.positionDbFloor, ...(options.target === 'db-reads-floor' ? ['--reads'] : [])];
        services.push(
          await spawnUntilReadyLine(
            { name: `${options.target}-${i + 1}`, command: process.execPath, args, env },
            60_000,
          ),
        );
        continue;
      }
      services.push(
        await spawnUntilHealthy(
          {
            name: `position-handler-${i + 1}`,
            command: process.execPath,
            args: [options.handlerEntry ?? entryPoints.position],
            env,
          },
          `http://127.0.0.1:${port}/health`,
          60_000,
        ),
      );
      metricsUrls.push(`http://127.0.0.1:${port}/metrics`);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  const pids = new Map<string, number>();
  for (const [i, s] of services.entries())
    pids.set(options.instances === 1 ? options.target : `${options.target}${i + 1}`, s.child.pid ?? 0);
  await addServerPids(pids, options.stack);
  pids.set('bench', process.pid);
  return { services, metricsUrls, pids, stop };
}

/** The broker's and the database's pids, from infra/svc's pid files of the stack the run is on. */
async function addServerPids(pids: Map<string, number>, stack: StackConnections): Promise<void> {
  const brokerPid = await pidFrom(join(stack.kafkaDir, 'kafka.pid'));
  const dbPid = await pidFrom(join(stack.mariadbDir, 'mysqld.pid'));
  if (brokerPid) pids.set('kafka', brokerPid);
  if (dbPid) pids.set('mariadb', dbPid);
}

const run = promisify(execFile);
const svc = fileURLToPath(new URL('../../../../infra/svc', import.meta.url));

/**
 * central-ledger's batch position handler (`infra/svc start central-ledger-position`, installed once into the
 * cache) on the bench's database and topics: its topic prefix and database name point it there, its consumer
 * batch (KAFKA.CONSUMER.TRANSFER.POSITION_BATCH.config.options.batchSize) is the bench's --batch-size, and it
 * logs at warn as ours does here.
 */
async function startOriginal(options: FleetOptions): Promise<Fleet> {
  const original = options.original;
  if (!original) throw new Error('the original position handler needs its topic prefix and database');
  const runDir = await mkdtemp(join(tmpdir(), 'bench-original-'));
  const env = {
    ...process.env,
    CENTRAL_LEDGER_TOPIC_PREFIX: original.prefix,
    CENTRAL_LEDGER_DB: original.database,
    CENTRAL_LEDGER_RUN_DIR: runDir,
    CENTRAL_LEDGER_POSITION_PORT: String(await freePort()),
    CENTRAL_LEDGER_LOG_LEVEL: 'warn',
    CENTRAL_LEDGER_POSITION_BATCH_SIZE: String(original.batchSize),
  };
  const call = async (action: 'start' | 'stop') => {
    try {
      await run(svc, [action, 'central-ledger-position'], { env, timeout: 600_000 });
    } catch (error) {
      const stderr = String((error as { stderr?: string }).stderr ?? '');
      throw new Error(
        `infra/svc ${action} central-ledger-position: ${stderr.split('\n').find((l) => l.includes('ERROR')) ?? stderr.trim()}`,
      );
    }
  };
  const stop = async () => {
    await call('stop');
    await rm(runDir, { recursive: true, force: true });
  };
  try {
    await call('start');
  } catch (error) {
    await stop().catch(() => {});
    throw error;
  }
  // A comparison at two batch sizes would measure the setting, not the handlers.
  const written = JSON.parse(await readFile(join(runDir, 'config.json'), 'utf8')) as {
    KAFKA?: { CONSUMER?: { TRANSFER?: { POSITION_BATCH?: { config?: { options?: { batchSize?: unknown } } } } } };
  };
  const batch = written.KAFKA?.CONSUMER?.TRANSFER?.POSITION_BATCH?.config?.options?.batchSize;
  if (batch !== original.batchSize) {
    await stop().catch(() => {});
    throw new Error(
      `central-ledger's position handler runs with batchSize ${JSON.stringify(batch)}, not ${original.batchSize}: infra/central-ledger/config.cjs must write CENTRAL_LEDGER_POSITION_BATCH_SIZE`,
    );
  }
  const pids = new Map<string, number>();
  const pid = await pidFrom(join(runDir, 'position.pid'));
  if (pid) pids.set('original', pid);
  await addServerPids(pids, options.stack);
  pids.set('bench', process.pid);
  return { services: [], metricsUrls: [], pids, stop };
}

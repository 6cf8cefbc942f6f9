import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { entryPoints, stateDir } from '../load/paths.js';
import { freePort } from '../load/ports.js';
import { type Service, spawnUntilHealthy, spawnUntilReadyLine } from '../load/processes.js';

/**
 * What consumes the position topic: the handler, or the passthrough (passthrough.ts: the handler's Kafka layer,
 * decode and notification encoding without the database), whose msgs/s is the floor the Kafka client sets.
 */
export type PositionTarget = 'handler' | 'passthrough';

export interface FleetOptions {
  readonly target: PositionTarget;
  readonly instances: number;
  /** The handlers' environment: brokers, topics, group, database, batch size, client, knobs. */
  readonly env: Record<string, string>;
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

async function pidFrom(file: string): Promise<number | undefined> {
  try {
    const pid = Number((await readFile(file, 'utf8')).trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Starts `instances` handler (or passthrough) processes in one consumer group, each waited for until it is
 * ready (the handler's /health, the passthrough's ready line); the broker and database pids come from
 * infra/svc's pid files, so their CPU is measured beside ours.
 */
export async function startFleet(options: FleetOptions): Promise<Fleet> {
  const services: Service[] = [];
  const metricsUrls: string[] = [];
  const stop = async () => {
    for (const s of services) await s.stop();
  };
  try {
    for (let i = 0; i < options.instances; i++) {
      const port = await freePort();
      const env = { ...options.env, POSITION_HTTP_PORT: String(port) };
      if (options.target === 'passthrough') {
        services.push(
          await spawnUntilReadyLine(
            { name: `passthrough-${i + 1}`, command: process.execPath, args: [entryPoints.positionPassthrough], env },
            60_000,
          ),
        );
        continue;
      }
      services.push(
        await spawnUntilHealthy(
          { name: `position-handler-${i + 1}`, command: process.execPath, args: [entryPoints.position], env },
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
  const brokerPid = await pidFrom(join(stateDir, 'kafka', 'kafka.pid'));
  const dbPid = await pidFrom(join(stateDir, 'mariadb', 'mysqld.pid'));
  if (brokerPid) pids.set('kafka', brokerPid);
  if (dbPid) pids.set('mariadb', dbPid);
  pids.set('bench', process.pid);
  return { services, metricsUrls, pids, stop };
}

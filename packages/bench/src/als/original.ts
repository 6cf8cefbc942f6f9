import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createDatabase, loadInfraSettings, registerOracle, type TestDatabase } from '@mojafast/testkit';
import { entryPoints } from '../load/paths.js';
import { freePort } from '../load/ports.js';
import { spawnUntilReadyLine } from '../load/processes.js';
import type { AlsUnderTest, SimsReady } from './stack.js';

const run = promisify(execFile);

/**
 * The two configurations `bench:als --original` runs both ALSs at, each as one configuration file read by both
 * (the original through rc's `ALS_config`, over its own file; ours as its drop-in `CONFIG_FILE`):
 * - `default`: account-lookup-service's repository `config/default.json` (no general cache, participants
 *   cached 3 s, its proxy cache on: a single Redis here, the project's, as the nearest to its Redis Cluster);
 * - `chart`: the helm chart's rendered `default.json` with the caches the published performance runs used
 *   (participants 610 s, endpoints 600 s, the general cache on; proxy cache off, as the chart's values).
 */
export const originalConfigs = ['default', 'chart'] as const;
export type OriginalConfig = (typeof originalConfigs)[number];

/** account-lookup-service v17.16.1's own config/default.json, as the ALS package keeps it. */
const repositoryDefault = fileURLToPath(
  new URL('../../../als/test/fixtures/account-lookup-service-default.json', import.meta.url),
);
/**
 * `infra/helm/render als-api --set config.general_cache.enabled=true --set
 * config.central_shared_participant_cache.expiresIn=610000 --set config.central_shared_end_point_cache.expiresIn=600000`,
 * its ConfigMap's default.json (configs/README.md).
 */
const chartCachesOn = fileURLToPath(new URL('../../configs/als-chart-caches-on.json', import.meta.url));

export const originalScript = fileURLToPath(new URL('../../../als-parity/scripts/als-original.sh', import.meta.url));

export function describeConfig(config: OriginalConfig): string {
  return config === 'default'
    ? "the original's repository config/default.json (proxy cache on a single Redis)"
    : "the chart's rendered default.json, caches on (participants 610 s, endpoints 600 s, general cache on)";
}

/** The rc overrides both ALSs get at one configuration: ports, the simulators, the database, the proxy cache. */
function rcOverrides(
  config: OriginalConfig,
  ports: { api: number; admin: number },
  sims: SimsReady,
  db: TestDatabase,
): Record<string, string> {
  const { redis } = loadInfraSettings();
  return {
    ALS_API_PORT: String(ports.api),
    ALS_ADMIN_PORT: String(ports.admin),
    ALS_SWITCH_ENDPOINT: sims.admin,
    ALS_DATABASE__HOST: db.connection.host,
    ALS_DATABASE__PORT: String(db.connection.port),
    ALS_DATABASE__USER: db.connection.user,
    ALS_DATABASE__PASSWORD: db.connection.password,
    ALS_DATABASE__DATABASE: db.name,
    // The chart's file turns migrations off (a job runs them); here each run starts on an empty database.
    ALS_RUN_MIGRATIONS: 'true',
    ...(config === 'default'
      ? {
          ALS_PROXY_CACHE__type: 'redis',
          ALS_PROXY_CACHE__proxyConfig__host: redis.host,
          ALS_PROXY_CACHE__proxyConfig__port: String(redis.port),
        }
      : { ALS_PROXY_CACHE__enabled: 'false' }),
  };
}

/** The MSISDN oracle is the oracle simulator, registered through the admin API (both ALSs keep it in MySQL). */
async function registerSimOracle(admin: string, oracle: string): Promise<void> {
  const status = await registerOracle(admin, oracle);
  if (status !== 201) throw new Error(`POST ${admin}/oracles answered ${status}`);
}

/**
 * account-lookup-service v17.16.1 as its charts run it (`server --admin` and `server --api`, two processes,
 * via the parity package's als-original.sh), on a database of its own; the API process is what is measured.
 */
export function originalAls(config: OriginalConfig): AlsUnderTest {
  return async (sims, apiPort) => {
    const adminPort = await freePort();
    const db = await createDatabase({ prefix: 'bench_als_orig' });
    const env = {
      ...process.env,
      ...rcOverrides(config, { api: apiPort, admin: adminPort }, sims, db),
      ...(config === 'chart' ? { ALS_config: chartCachesOn } : {}),
      ALS_ORIGINAL_API_PORT: String(apiPort),
      ALS_ORIGINAL_ADMIN_PORT: String(adminPort),
      ALS_ORIGINAL_SWITCH_ENDPOINT: sims.admin,
      ALS_ORIGINAL_DB: db.name,
      ALS_ORIGINAL_LOG_LEVEL: 'warn',
      MYSQL_HOST: db.connection.host,
      MYSQL_PORT: String(db.connection.port),
      MYSQL_USER: db.connection.user,
      MYSQL_PASSWORD: db.connection.password,
    };
    const stop = async () => {
      await run('bash', [originalScript, 'stop'], { env });
      await db.drop();
    };
    try {
      await run('bash', [originalScript, 'start'], { env, maxBuffer: 1 << 20 });
      const runDir = join(
        process.env.MOJAFAST_CACHE_DIR ?? join(homedir(), '.cache', 'mojafast'),
        'als-original-17.16.1',
        'run',
        String(apiPort),
      );
      const pid = (name: string) => readFile(join(runDir, `${name}.pid`), 'utf8').then((t) => Number(t.trim()));
      await registerSimOracle(`http://127.0.0.1:${adminPort}`, sims.oracle);
      return {
        pids: new Map([
          ['als', await pid('api')],
          ['als_admin', await pid('admin')],
        ]),
        stop,
      };
    } catch (error) {
      await stop().catch(() => {});
      throw error;
    }
  };
}

/** Ours in drop-in mode: the same configuration file and rc overrides, one process serving both APIs. */
export function oursDropIn(config: OriginalConfig): AlsUnderTest {
  return async (sims, apiPort) => {
    const adminPort = await freePort();
    const db = await createDatabase({ prefix: 'bench_als_ours' });
    try {
      const als = await spawnUntilReadyLine<{ admin: string }>({
        name: 'als',
        command: process.execPath,
        args: [entryPoints.als],
        env: {
          CONFIG_FILE: config === 'default' ? repositoryDefault : chartCachesOn,
          ...rcOverrides(config, { api: apiPort, admin: adminPort }, sims, db),
          ALS_LOG_LEVEL: 'warn',
        },
      });
      const stop = async () => {
        await als.stop();
        await db.drop();
      };
      await registerSimOracle(als.ready.admin, sims.oracle).catch(async (error: unknown) => {
        await stop();
        throw error;
      });
      return { pids: new Map([['als', als.child.pid ?? 0]]), stop };
    } catch (error) {
      await db.drop().catch(() => {});
      throw error;
    }
  };
}

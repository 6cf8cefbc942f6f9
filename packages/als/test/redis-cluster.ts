import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Cluster } from 'ioredis';
import type { ProxyCacheRedisOptions } from '../src/upstream/proxy-cache-redis.js';

const run = promisify(execFile);

/**
 * A Redis Cluster of its own for one test file: three masters from Debian's redis-server (the one infra/svc
 * installs) on free loopback ports, data in a temporary directory, joined with `redis-cli --cluster create`.
 * A deployment's proxy cache may be a cluster, where the keys of one lookup sit in different slots, so the
 * cache is tested on one too.
 */
export interface TestRedisCluster {
  readonly options: ProxyCacheRedisOptions;
  /** A client of the cluster, for checking keys. */
  readonly client: Cluster;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function waitForExit(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => child.once('exit', () => resolve()));
}

export async function startRedisCluster(masters = 3): Promise<TestRedisCluster> {
  try {
    await run('redis-server', ['--version']);
  } catch {
    throw new Error('redis-server is not on the PATH: `infra/svc start redis` installs it (Debian redis-server)');
  }
  const dir = await mkdtemp(join(tmpdir(), 'mojafast-redis-cluster-'));
  const children: ChildProcess[] = [];
  const ports: number[] = [];
  const stop = async () => {
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(children.map(waitForExit));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < masters; i++) {
      const [port, busPort] = [await freePort(), await freePort()];
      ports.push(port);
      const child = spawn(
        'redis-server',
        [
          '--bind',
          '127.0.0.1',
          '--port',
          String(port),
          '--cluster-enabled',
          'yes',
          '--cluster-port',
          String(busPort),
          '--cluster-config-file',
          join(dir, `nodes-${port}.conf`),
          '--dir',
          dir,
          '--save',
          '',
          '--appendonly',
          'no',
          '--daemonize',
          'no',
          '--logfile',
          join(dir, `redis-${port}.log`),
        ],
        { stdio: 'ignore' },
      );
      children.push(child);
    }
    const nodes = ports.map((port) => `127.0.0.1:${port}`);
    // redis-cli waits for nothing: ping each node until it answers before joining them.
    for (const port of ports) {
      await waitUntil(`redis-server on port ${port}`, async () => {
        const { stdout } = await run('redis-cli', ['-p', String(port), 'ping']);
        return stdout.trim() === 'PONG';
      });
    }
    await run('redis-cli', ['--cluster', 'create', ...nodes, '--cluster-replicas', '0', '--cluster-yes']);
    for (const port of ports) {
      await waitUntil(`cluster state ok on port ${port}`, async () => {
        const { stdout } = await run('redis-cli', ['-p', String(port), 'cluster', 'info']);
        return stdout.includes('cluster_state:ok');
      });
    }
    const options: ProxyCacheRedisOptions = {
      type: 'redis-cluster',
      nodes: ports.map((port) => ({ host: '127.0.0.1', port })),
      commandTimeoutMs: 2_000,
    };
    const client = new Cluster(
      options.nodes.map((n) => ({ ...n })),
      { lazyConnect: true },
    );
    await client.connect();
    return {
      options,
      client,
      async stop() {
        client.disconnect();
        await stop();
      },
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`Redis Cluster: no ${what} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

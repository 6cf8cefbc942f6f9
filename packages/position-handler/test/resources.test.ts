import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { loadInfraSettings, type TestTopic } from '@mojafast/testkit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { PositionBus } from '../src/bus/types.js';
import { startPositionService } from '../src/main.js';
import { createLogger } from '../src/observe/logger.js';
import { createTestLedger, newTopics, type TestLedger, testConfig } from './helpers.js';

/**
 * The handler's resources (database pool, profiler, HTTP server, Kafka clients) are closed in one place, in
 * the reverse order of opening: on stop, on SIGTERM, and on a start that fails halfway. The order is read
 * from the handler's own debug lines ('closed', with the resource's name).
 */
const OPENING_ORDER = ['database pool', 'profiler', 'http server', 'kafka'];
const CLOSING_ORDER = [...OPENING_ORDER].reverse();
const entry = fileURLToPath(new URL('../dist/position.js', import.meta.url));

let ledger: TestLedger;
let input: TestTopic;
let output: TestTopic;

beforeAll(async () => {
  ledger = await createTestLedger('position_resources', { currencies: ['USD'], dfsps: [] });
  [input, output] = await newTopics('position_resources');
});
afterAll(async () => {
  await ledger?.drop();
  await input?.drop();
  await output?.drop();
});

interface LogLine {
  readonly msg: string;
  readonly resource?: string;
}

function recordingLogger() {
  const lines: LogLine[] = [];
  const logger = createLogger('debug', (line) => lines.push(JSON.parse(line) as LogLine));
  return { logger, closed: () => lines.filter((l) => l.msg === 'closed').map((l) => l.resource) };
}

async function listen(port: number): Promise<Server> {
  const server = createServer();
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

async function close(server: Server): Promise<void> {
  await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
}

/** A loopback port nobody listens on (the OS picks it, then it is let go). */
async function freePort(): Promise<number> {
  const server = await listen(0);
  const address = server.address();
  await close(server);
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}

describe('resources', () => {
  it('stop closes everything once, in the reverse order of opening', async () => {
    const { logger, closed } = recordingLogger();
    const service = await startPositionService(
      testConfig(ledger.db, input, output, { consumerGroup: `${input.name}-stop` }),
      { logger },
    );
    expect(closed()).toEqual([]);
    // Stopped twice (a second signal while stopping): everything is closed once.
    await Promise.all([service.stop(), service.stop()]);
    expect(closed()).toEqual(CLOSING_ORDER);
  });

  it('a start that fails after Kafka connected (the group join fails) closes what it opened, in reverse order, and frees the HTTP port', async () => {
    const { logger, closed } = recordingLogger();
    const port = await freePort();
    let bus: PositionBus | undefined;
    await expect(
      startPositionService(testConfig(ledger.db, input, output, { httpPort: port, consumerGroup: `${input.name}-f` }), {
        logger,
        decorateBus(real) {
          bus = real;
          // The fault: the bus's start connects (producer, group join), then reports a failure.
          const start = real.start.bind(real);
          real.start = async (handle) => {
            await start(handle);
            throw new Error('injected: start failed after the group join');
          };
          return real;
        },
      }),
    ).rejects.toThrow('injected: start failed after the group join');
    expect(closed()).toEqual(CLOSING_ORDER);
    expect(bus?.isReady()).toBe(false);
    await close(await listen(port));
  });

  it('a start that fails before Kafka (the HTTP port is taken) closes the profiler and the pool, and never connects Kafka', async () => {
    const { logger, closed } = recordingLogger();
    const taken = await listen(0);
    const address = taken.address();
    const port = typeof address === 'object' && address !== null ? address.port : -1;
    let started = false;
    try {
      await expect(
        startPositionService(testConfig(ledger.db, input, output, { httpPort: port }), {
          logger,
          decorateBus(real) {
            const start = real.start.bind(real);
            real.start = async (handle) => {
              started = true;
              await start(handle);
            };
            return real;
          },
        }),
      ).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await close(taken);
    }
    expect(started).toBe(false);
    expect(closed()).toEqual(['profiler', 'database pool']);
  });

  it('SIGTERM: the process closes everything in reverse order and exits 0', async () => {
    const settings = loadInfraSettings();
    const child = spawn(process.execPath, [entry], {
      env: {
        ...process.env,
        KAFKA_BROKERS: settings.kafka.brokers.join(','),
        POSITION_TOPICS: input.name,
        NOTIFICATION_TOPIC: output.name,
        POSITION_CONSUMER_GROUP: `${input.name}-sigterm`,
        DB_HOST: ledger.db.connection.host,
        DB_PORT: String(ledger.db.connection.port),
        DB_USER: ledger.db.connection.user,
        DB_PASSWORD: ledger.db.connection.password,
        DB_NAME: ledger.db.name,
        POSITION_HTTP_PORT: '0',
        LOG_LEVEL: 'debug',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), 40_000);
    try {
      await vi.waitFor(() => expect(stderr).toContain('position handler started'), { timeout: 30_000, interval: 50 });
      child.kill('SIGTERM');
      const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
      expect({ code, signal }).toEqual({ code: 0, signal: null });
    } finally {
      clearTimeout(killer);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await once(child, 'exit');
      }
    }
    const closed = stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogLine)
      .filter((l) => l.msg === 'closed')
      .map((l) => l.resource);
    expect(closed).toEqual(CLOSING_ORDER);
  }, 60_000);
});

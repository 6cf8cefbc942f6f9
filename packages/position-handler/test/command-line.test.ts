import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTopic, loadInfraSettings, type TestTopic } from '@mojafast/testkit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CommandLineError, parseCommandLine } from '../src/command-line.js';
import { centralLedgerPackageDir } from './central-ledger.js';
import { createTestLedger, type TestLedger } from './helpers.js';

// dist/position.js is built by the vitest global setup, as an operator runs it.
const entry = fileURLToPath(new URL('../dist/position.js', import.meta.url));

describe("central-ledger's handler command line", () => {
  it.each([
    [[], []],
    [['handler', '--positionbatch'], ['positionbatch']],
    [['h', '--position'], ['position']],
    [
      ['handler', '--positionbatch', '--position'],
      ['positionbatch', 'position'],
    ],
  ])('serves %j', (args, handlers) => {
    expect(parseCommandLine(args)).toEqual(handlers);
  });

  it.each([
    [['handler', '--fulfil'], /^--fulfil \(central-ledger's Fulfil Handler\) is not served/],
    [['handler', '--positionbatch', '--bulkget'], /^--bulkget \(central-ledger's Bulk Get Handler\)/],
    [['handler', '--positon'], /^unknown option "--positon"/],
    [['handler'], /^handler names no handler/],
    [['server', '--api'], /^unknown command "server"/],
  ])('refuses %j naming what it cannot serve', (args, message) => {
    expect(() => parseCommandLine(args)).toThrow(CommandLineError);
    expect(() => parseCommandLine(args)).toThrow(message);
  });

  it('exits 2 with one line for another handler of central-ledger (bad input: handler --fulfil)', async () => {
    const child = spawn(process.execPath, [entry, 'handler', '--fulfil'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(2);
    expect(stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^invalid command line: --fulfil .*Fulfil Handler/),
    ]);
  });
});

describe("the original's command line and default.json start the handler", () => {
  let ledger: TestLedger;
  let input: TestTopic;
  let output: TestTopic;

  beforeAll(async () => {
    ledger = await createTestLedger('position_cli', { currencies: ['USD'], dfsps: [] });
    input = await createTopic({ prefix: 'position_cli_in' });
    output = await createTopic({ prefix: 'position_cli_out' });
  });
  afterAll(async () => {
    await input?.drop();
    await output?.drop();
    await ledger?.drop();
  });

  it('runs `handler --positionbatch` on central-ledger 19.5.5 default.json with CLEDG_ overrides, serving /health in its shape', async () => {
    const settings = loadInfraSettings();
    const db = ledger.db.connection;
    const child = spawn(process.execPath, [entry, 'handler', '--positionbatch'], {
      env: {
        PATH: process.env.PATH,
        CONFIG_FILE: join(centralLedgerPackageDir(), 'config', 'default.json'),
        // What a deployment sets over the chart's file: central-ledger's own variables, unchanged.
        CLEDG_PORT: '0',
        CLEDG_DATABASE__HOST: db.host,
        CLEDG_DATABASE__PORT: String(db.port),
        CLEDG_DATABASE__USER: db.user,
        CLEDG_DATABASE__PASSWORD: db.password,
        CLEDG_DATABASE__SCHEMA: db.database,
        'CLEDG_KAFKA__CONSUMER__TRANSFER__POSITION_BATCH__config__rdkafkaConf__metadata.broker.list':
          settings.kafka.brokers.join(','),
        'CLEDG_KAFKA__CONSUMER__TRANSFER__POSITION_BATCH__config__rdkafkaConf__group.id': `${input.name}-group`,
        CLEDG_KAFKA__EVENT_TYPE_ACTION_TOPIC_MAP__POSITION__PREPARE: input.name,
        // Our own variable wins over the file: the notifications go to this test's topic.
        NOTIFICATION_TOPIC: output.name,
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    try {
      const started = await vi.waitFor(
        () => {
          const line = stderr.split('\n').find((l) => l.includes('position handler started'));
          if (!line) throw new Error(`not started yet: ${stderr}`);
          return JSON.parse(line) as { http: string; topics: string[]; group: string };
        },
        { timeout: 30_000, interval: 100 },
      );
      expect(started.topics).toEqual([input.name]);
      expect(started.group).toBe(`${input.name}-group`);
      const warning = stderr.split('\n').find((l) => l.includes('central-ledger keys not honoured'));
      expect(warning).toBeDefined();
      expect(JSON.parse(warning as string).keys).toContain('DATABASE.POOL_MIN_SIZE');
      const port = started.http.split(':').at(-1);
      const health = await vi.waitFor(
        async () => {
          const response = await fetch(`http://127.0.0.1:${port}/health`);
          if (response.status !== 200) throw new Error(`health ${response.status}`);
          return response.json();
        },
        { timeout: 20_000, interval: 100 },
      );
      expect(health).toMatchObject({
        status: 'OK',
        services: [
          { name: 'datastore', status: 'OK' },
          { name: 'broker', status: 'OK' },
        ],
      });
      expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(200);
      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number | null];
      expect(code).toBe(0);
    } finally {
      clearTimeout(killer);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});

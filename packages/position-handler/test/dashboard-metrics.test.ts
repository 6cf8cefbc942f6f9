import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readDashboardFixture, prometheusSamples as samples, type TestTopic } from '@mojafast/testkit';
import type { Producer } from 'kafkajs';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { readConfig } from '../src/config/index.js';
import { startPositionService } from '../src/main.js';
import { generatePositionMessages, generateTransfers } from '../src/testing/messages.js';
import { insertTransfers } from '../src/testing/transfers.js';
import { produce, quietLogger, type TestLedger, type TopicReader, testConfig, useLedgerWithTopics } from './helpers.js';

// The metric names the community dashboards query for central-ledger's position handler
// (fixtures/dashboard-metrics.json, a fact list taken from mojaloop/helm's dashboards), each expected on the
// real /metrics of a running handler after it applied and refused prepares from the real broker.
const fixture = readDashboardFixture(new URL('./fixtures/dashboard-metrics.json', import.meta.url));

describe('dashboard metrics on /metrics', () => {
  const env = useLedgerWithTopics('position_dashboard', {
    currencies: ['USD'],
    dfsps: [
      { name: 'dashpayer', netDebitCap: '1000', liquidity: '1000' },
      { name: 'dashpayee', netDebitCap: '1000', liquidity: '1000' },
    ],
  });
  // The names the cases use, bound once useLedgerWithTopics's set-up ran.
  let ledger: TestLedger;
  let input: TestTopic;
  let output: TestTopic;
  let producer: Producer;
  let reader: TopicReader;
  beforeAll(() => {
    ({ ledger, input, output, producer, reader } = env);
  });

  /** Prepares from dashpayer to dashpayee, one per amount, stored as received and put on the input topic. */
  async function producePrepares(amounts: readonly string[]): Promise<void> {
    const transfers = generateTransfers({
      transfers: amounts.length,
      dfsps: ['dashpayer', 'dashpayee'],
      currencies: ['USD'],
    }).map((t, i) => ({ ...t, payer: 'dashpayer', payee: 'dashpayee', amount: amounts[i] as string }));
    await insertTransfers(
      ledger.knex,
      transfers.map((t) => ({ ...t, state: 'RECEIVED_PREPARE' as const })),
      ledger.ledger.accounts,
    );
    const payer = ledger.ledger.accounts.get('dashpayer:USD')?.position ?? -1;
    await produce(
      producer,
      input.name,
      generatePositionMessages({ transfers, action: 'prepare', accountOf: () => payer }),
    );
  }

  it('lists dashboard names only once and never one it also calls uncovered', () => {
    const covered = new Set(fixture.covered.map((e) => `${e.name} ${e.dashboard}`));
    expect(covered.size).toBe(fixture.covered.length);
    const names = new Set(fixture.covered.map((e) => e.name));
    for (const entry of fixture.notCovered) expect(names.has(entry.name)).toBe(false);
  });

  it('exports every name the dashboards query, and counts each prepare once by action and success', async () => {
    // Five prepares within the payer's net debit cap (applied) and one over it (bad input: refused, 4001).
    await producePrepares(['10', '10', '10', '10', '10', '5000']);
    const service = await startPositionService(testConfig(ledger.db, input, output), { logger: quietLogger });
    try {
      await reader.waitFor(6);
      const url = `http://127.0.0.1:${service.http.address.port}/metrics`;
      const page = async () => (await fetch(url)).text();
      await vi.waitFor(async () => {
        const found = samples(await page());
        const missing = fixture.covered
          .filter((e) => !found.get(e.name)?.some((labels) => e.labels.every((l) => labels.includes(`${l}="`))))
          .map((e) => e.name);
        expect(missing).toEqual([]);
      });
      const text = await page();
      expect(text).toMatch(
        /^moja_cl_transfer_position_count\{success="true",action="prepare",serviceName="central-service"\} 5$/m,
      );
      expect(text).toMatch(
        /^moja_cl_transfer_position_count\{success="false",action="prepare",serviceName="central-service"\} 1$/m,
      );
      expect(text).toMatch(
        /^moja_cl_transfer_position_batch_count\{success="true",serviceName="central-service"\} [1-9]/m,
      );
      expect(text).toMatch(/^position_messages_total\{action="prepare",result="applied"\} 5$/m);
    } finally {
      await service.stop();
    }
  });

  /**
   * A deployment's central-ledger file with its own INSTRUMENTATION.METRICS, read as at start, and a handler
   * started on the settings it gives (its own consumer group, so it reads the topic's prepares, two new
   * ones at least); its /metrics once `ready` shows there.
   */
  async function metricsWith(instrumentation: unknown, group: string, ready: RegExp): Promise<string> {
    const dir = mkdtempSync(join(tmpdir(), 'position-instrumentation-'));
    const file = join(dir, 'default.json');
    writeFileSync(file, JSON.stringify({ INSTRUMENTATION: { METRICS: instrumentation } }));
    const { config, notHonoured } = readConfig({ CONFIG_FILE: file });
    rmSync(dir, { recursive: true });
    expect(notHonoured).toEqual([]);
    await producePrepares(['1', '1']);
    const { originalMetrics, metricsPrefix, metricsDefaultLabels } = config;
    const service = await startPositionService(
      testConfig(ledger.db, input, output, {
        consumerGroup: `${input.name}-${group}`,
        originalMetrics,
        metricsPrefix,
        metricsDefaultLabels,
      }),
      { logger: quietLogger },
    );
    try {
      const url = `http://127.0.0.1:${service.http.address.port}/metrics`;
      return await vi.waitFor(
        async () => {
          const text = await (await fetch(url)).text();
          expect(text).toMatch(ready);
          return text;
        },
        { timeout: 15_000, interval: 100 },
      );
    } finally {
      await service.stop();
    }
  }

  it("puts a file's INSTRUMENTATION.METRICS prefix and every default label on the original names", async () => {
    const text = await metricsWith(
      {
        DISABLED: false,
        labels: { fspId: '*' },
        config: {
          timeout: 5000,
          prefix: 'eu_cl_',
          defaultLabels: { serviceName: 'central-handler-position', zone: 'a' },
        },
      },
      'eu',
      /^eu_cl_transfer_position_count\{success="true",action="prepare",serviceName="central-handler-position",zone="a"\} [2-9]/m,
    );
    expect(text).toMatch(
      /^eu_cl_transfer_position_batch_count\{success="true",serviceName="central-handler-position",zone="a"\} [1-9]/m,
    );
    expect(text).toMatch(/^eu_cl_process_cpu_user_seconds_total\{serviceName="central-handler-position",zone="a"\} /m);
    expect(text).not.toMatch(/^moja_cl_/m);
  });

  it('exports none of the original names when the file says INSTRUMENTATION.METRICS.DISABLED true', async () => {
    const text = await metricsWith(
      { DISABLED: true, config: { prefix: 'moja_cl_' } },
      'off',
      /^position_messages_total\{action="prepare",result="applied"\} [2-9]/m,
    );
    expect(text).not.toMatch(/^moja_cl_/m);
    expect(text).toMatch(/^process_cpu_user_seconds_total /m);
  });
});

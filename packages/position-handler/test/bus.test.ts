import { createTopic, loadInfraSettings, type TestTopic } from '@mojafast/testkit';
import type { Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { PartitionBatch, PositionBus } from '../src/bus/types.js';
import { loadConfig, type PositionConfig } from '../src/config/index.js';
import { busOptionsFromConfig, createBus } from '../src/main.js';
import { committedOffset, openProducer, quietLogger } from './helpers.js';

/**
 * The PositionBus contract itself, on each client, against the real broker: re-reading from an offset
 * (seek), the high watermark, heartbeats through long work, and (on @platformatic/kafka, whose revocation is
 * this project's code) a revoked partition's batch going inactive with its offsets refused.
 */
const clients = ['platformatic', 'kafkajs'] as const;

let producer: Producer;
const topics: TestTopic[] = [];

beforeAll(async () => {
  producer = await openProducer();
});

afterAll(async () => {
  await producer?.disconnect();
  for (const topic of topics) await topic.drop();
});

async function topicWith(prefix: string, count: number, partitions = 1): Promise<TestTopic> {
  const topic = await createTopic({ prefix, partitions });
  topics.push(topic);
  const messages = Array.from({ length: count }, (_, i) => ({ key: String(i % partitions), value: `m${i}` }));
  for (let p = 0; p < partitions; p++) {
    await producer.send({
      topic: topic.name,
      acks: -1,
      messages: messages.filter((_, i) => i % partitions === p).map((m) => ({ ...m, partition: p })),
    });
  }
  return topic;
}

function busFor(client: PositionConfig['kafkaClient'], topic: TestTopic, over: Partial<PositionConfig> = {}) {
  const config = loadConfig(
    {},
    {
      kafkaClient: client,
      kafkaBrokers: loadInfraSettings().kafka.brokers,
      consumerGroup: `${topic.name}-group`,
      positionTopics: [topic.name],
      notificationTopic: `${topic.name}-unused`,
      ...over,
    },
  );
  return createBus(client, busOptionsFromConfig(config, quietLogger, `${topic.name}-${client}`));
}

describe.each(clients)('PositionBus on %s', (client) => {
  it('seek: after a seek back to offset 10 the partition is fetched again from 10, and the batch fetched before reports isActive() false', async () => {
    const topic = await topicWith(`bus_seek_${client}`, 30);
    const bus = await busFor(client, topic);
    const batches: { first: string; last: string; highWatermark: string }[] = [];
    let before: PartitionBatch | undefined;
    let activeAfterSeek: boolean | undefined;
    try {
      await bus.start(async (batch) => {
        const first = batch.messages[0]?.offset ?? '';
        const last = batch.messages.at(-1)?.offset ?? '';
        batches.push({ first, last, highWatermark: batch.highWatermark });
        for (const m of batch.messages) batch.resolve(m.offset);
        if (!before) {
          before = batch;
          // What the runner does after a failed produce: the fetch position goes back, nothing is committed.
          bus.seek(batch.topic, batch.partition, '10');
          activeAfterSeek = batch.isActive();
        }
      });
      await vi.waitFor(() => expect(batches.length).toBeGreaterThanOrEqual(2), { timeout: 20_000 });
      expect(batches[0]).toMatchObject({ first: '0', last: '29', highWatermark: '30' });
      expect(batches[1]).toMatchObject({ first: '10', last: '29', highWatermark: '30' });
      expect(activeAfterSeek).toBe(false);
      expect(await committedOffset(`${topic.name}-group`, topic.name)).toBe('-1');
    } finally {
      await bus.stop();
    }
  });

  it('heartbeats through work longer than the session timeout: the batch stays active and its offset commits', async () => {
    const topic = await topicWith(`bus_heartbeat_${client}`, 5);
    const bus = await busFor(client, topic, { sessionTimeoutMs: 6000 });
    let outcome: { activeAfter: boolean; committed: boolean } | undefined;
    try {
      await bus.start(async (batch) => {
        if (outcome) return;
        // 8 s of work (a DB outage, say) against a 6 s session, heartbeating as the runner's retry loop does.
        for (let i = 0; i < 8; i++) {
          await new Promise((r) => setTimeout(r, 1000));
          await batch.heartbeat();
        }
        const last = batch.messages.at(-1)?.offset ?? '0';
        batch.resolve(last);
        let committed = true;
        await bus.commit(batch.topic, batch.partition, String(Number(last) + 1)).catch(() => {
          committed = false;
        });
        outcome = { activeAfter: batch.isActive(), committed };
      });
      await vi.waitFor(() => expect(outcome).toBeDefined(), { timeout: 30_000, interval: 200 });
      expect(outcome).toEqual({ activeAfter: true, committed: true });
      expect(await committedOffset(`${topic.name}-group`, topic.name)).toBe('5');
    } finally {
      await bus.stop();
    }
  }, 40_000);
});

describe('PositionBus on platformatic: revocation', () => {
  it('a partition taken by a second member of the group: the first member batch in hand reports isActive() false and its offset commit is refused', async () => {
    const topic = await topicWith('bus_revoke', 40, 2);
    const first = await busFor('platformatic', topic, { sessionTimeoutMs: 6000 });
    let second: PositionBus | undefined;
    const held: PartitionBatch[] = [];
    const secondSaw = new Set<number>();
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    try {
      await first.start(async (batch) => {
        held.push(batch);
        await released;
      });
      await vi.waitFor(() => expect(held.length).toBe(2), { timeout: 20_000 });
      second = await busFor('platformatic', topic, { sessionTimeoutMs: 6000 });
      await second.start(async (batch) => {
        secondSaw.add(batch.partition);
      });
      await vi.waitFor(() => expect(secondSaw.size).toBe(1), { timeout: 30_000, interval: 200 });
      const moved = [...secondSaw][0];
      const revoked = held.find((b) => b.partition === moved) as PartitionBatch;
      const kept = held.find((b) => b.partition !== moved) as PartitionBatch;
      expect(revoked.isActive()).toBe(false);
      expect(kept.isActive()).toBe(true);
      await expect(first.commit(topic.name, revoked.partition, '20')).rejects.toThrow(/no longer assigned/);
      await first.commit(topic.name, kept.partition, '20');
    } finally {
      release();
      await second?.stop();
      await first.stop();
    }
  }, 60_000);
});

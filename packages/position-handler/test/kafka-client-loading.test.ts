import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { loadInfraSettings } from '@mojafast/testkit';
import { describe, expect, it } from 'vitest';

/**
 * kafkajs is loaded only when KAFKA_CLIENT=kafkajs asks for it: the default path (the handler's module, the
 * topic check on a real broker, the @platformatic/kafka bus) leaves it out. Run in a fresh process on dist/
 * (built by the vitest global setup), counting kafkajs's files in the CommonJS module cache, where Node puts a
 * CommonJS package an ES module imports.
 */
const dist = new URL('../dist/', import.meta.url).href;

const probe = `
const { createRequire } = await import('node:module');
const cache = createRequire(import.meta.url).cache;
const kafkajsFiles = () => Object.keys(cache).filter((path) => path.includes('/kafkajs/')).length;
const seen = {};
const main = await import(${JSON.stringify(`${dist}main.js`)});
seen.afterImport = kafkajsFiles();
const { missingTopics } = await import(${JSON.stringify(`${dist}bus/topic-check.js`)});
const brokers = JSON.parse(process.env.PROBE_BROKERS);
seen.missing = await missingTopics(brokers, ['mojafast-probe-no-such-topic']);
seen.afterTopicCheck = kafkajsFiles();
const options = { brokers, clientId: 'probe', groupId: 'probe', topics: ['t'], notificationTopic: 'n',
  fromBeginning: true, partitionsConsumedConcurrently: 1, sessionTimeoutMs: 6000, fetchMinBytes: 1,
  fetchMaxWaitMs: 100, maxBytesPerPartition: 1048576, produceBatchBytes: 800000, produceLingerMs: 0, acks: -1,
  compression: 'none', security: {}, logger: { error() {}, warn() {}, info() {}, debug() {} } };
await main.createBus('platformatic', options);
seen.afterPlatformaticBus = kafkajsFiles();
await main.createBus('kafkajs', options);
seen.afterKafkajsBus = kafkajsFiles();
// The buses were never started; nothing of theirs should keep the probe alive, but it must not wait on them.
process.stdout.write(JSON.stringify(seen), () => process.exit(0));
`;

describe('Kafka client loading', () => {
  it('the default path (module, topic check, platformatic bus) never loads kafkajs; KAFKA_CLIENT=kafkajs does', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', probe], {
      env: { ...process.env, PROBE_BROKERS: JSON.stringify(loadInfraSettings().kafka.brokers) },
      timeout: 20_000,
    });
    const seen = JSON.parse(stdout) as Record<string, unknown>;
    expect(seen).toMatchObject({
      afterImport: 0,
      missing: ['mojafast-probe-no-such-topic'],
      afterTopicCheck: 0,
      afterPlatformaticBus: 0,
    });
    expect(seen.afterKafkajsBus).toBeGreaterThan(0);
  });
});

import { setTimeout as sleep } from 'node:timers/promises';
import { busOptionsFromConfig, createBus, loadConfig } from '@mojafast/position-handler';
import { Passthrough } from './passthrough.js';
import { quietLogger } from './stderr-logger.js';

/**
 * `node dist/position/passthrough-process.js`: the Kafka-only floor of bench:position, in a process of its own
 * like the handler. It reads the handler's own environment (loadConfig: KAFKA_BROKERS, POSITION_TOPICS,
 * NOTIFICATION_TOPIC, POSITION_CONSUMER_GROUP, POSITION_BATCH_SIZE, KAFKA_MAX_BYTES_PER_PARTITION, ...; the DB_*
 * variables are ignored; KAFKA_CLIENT picks the client as for the handler), prints `{"ready":true}` once it is in its group, and stops on SIGTERM/SIGINT after
 * the batch in hand.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = quietLogger();
  const busOptions = busOptionsFromConfig(config, logger, `${config.kafkaClientId}-passthrough`);
  const bus = createBus(config.kafkaClient, busOptions);
  const passthrough = new Passthrough(bus, { batchSize: config.batchSize, hubName: config.hubName, logger });
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    passthrough.stop().then(
      () => process.stderr.write(`${JSON.stringify({ level: 'info', msg: 'stopped', ...passthrough.counts })}\n`),
      (error: unknown) => {
        process.stderr.write(`${JSON.stringify({ level: 'error', msg: 'stop failed', error: String(error) })}\n`);
        process.exitCode = 1;
      },
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await passthrough.start();
  while (!bus.isReady() && !stopping) await sleep(50);
  process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${JSON.stringify({ level: 'error', msg: 'start failed', error: String(error) })}\n`);
  process.exitCode = 1;
});

import { setTimeout as sleep } from 'node:timers/promises';
import { busOptionsFromConfig, createBus, createLogger, loadConfig } from '@mojafast/position-handler';
import { runService } from '@mojafast/service-kit';
import { Passthrough } from './passthrough.js';

/**
 * `node dist/position/passthrough-process.js`: the Kafka-only floor of bench:position, in a process of its own
 * like the handler. It reads the handler's own environment (loadConfig: KAFKA_BROKERS, POSITION_TOPICS,
 * NOTIFICATION_TOPIC, POSITION_CONSUMER_GROUP, POSITION_BATCH_SIZE, KAFKA_MAX_BYTES_PER_PARTITION, ...; the DB_*
 * variables are ignored; KAFKA_CLIENT picks the client as for the handler), prints `{"ready":true}` once it is
 * in its group, and stops on SIGTERM/SIGINT after the batch in hand (runService: exit 0, or 1 with a
 * `start failed` / `stop failed` line).
 */
runService({
  async start(log) {
    const config = loadConfig();
    // Warnings and errors only (pino, on stderr; stdout carries the ready line): the floor measures the
    // Kafka layer, so the runner's info lines are not written during the measured phase.
    const logger = createLogger('warn');
    const busOptions = busOptionsFromConfig(config, logger, `${config.kafkaClientId}-passthrough`);
    const bus = await createBus(config.kafkaClient, busOptions);
    const passthrough = new Passthrough(bus, { batchSize: config.batchSize, hubName: config.hubName, logger });
    await passthrough.start();
    while (!bus.isReady()) await sleep(50);
    process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
    return { passthrough, log };
  },
  async stop({ passthrough, log }) {
    await passthrough.stop();
    log.info(passthrough.counts, 'stopped');
  },
});

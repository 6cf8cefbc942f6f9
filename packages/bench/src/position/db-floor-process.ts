import { setTimeout as sleep } from 'node:timers/promises';
import {
  busOptionsFromConfig,
  createBus,
  createLogger,
  createStorePool,
  dbSsl,
  endStorePool,
  loadConfig,
} from '@mojafast/position-handler';
import { runService } from '@mojafast/service-kit';
import { DbFloor, FloorLedger } from './db-floor.js';

/**
 * `node dist/position/db-floor-process.js`: the database floor of bench:position (db-floor.ts) in a process of its
 * own, like the handler and the passthrough: the handler's environment (loadConfig: KAFKA_*, POSITION_*, DB_*),
 * `{"ready":true}` once it is in its group, a stop on SIGTERM/SIGINT after the batch in hand. `--reads`: the
 * floor that also does the fewest reads the schema forces (FloorLedger).
 */
runService({
  async start(log) {
    const config = loadConfig();
    const logger = createLogger('warn');
    const pool = createStorePool({
      host: config.dbHost,
      port: config.dbPort,
      user: config.dbUser,
      password: config.dbPassword,
      database: config.dbName,
      poolMax: config.dbPoolMax,
      ssl: dbSsl(config),
    });
    const bus = await createBus(
      config.kafkaClient,
      busOptionsFromConfig(config, logger, `${config.kafkaClientId}-db-floor`),
    );
    const ledger = new FloorLedger(pool, process.argv.includes('--reads'));
    await ledger.load();
    const floor = new DbFloor(ledger, bus, { batchSize: config.batchSize, hubName: config.hubName, logger });
    await floor.start();
    while (!bus.isReady()) await sleep(50);
    process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
    return { floor, pool, log };
  },
  async stop({ floor, pool, log }) {
    await floor.stop();
    await endStorePool(pool);
    log.info({ applied: floor.ledger.applied }, 'stopped');
  },
});

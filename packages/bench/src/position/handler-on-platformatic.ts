import { busOptionsFromConfig, loadConfig, startPositionService } from '@mojafast/position-handler';
import { createPlatformaticBus } from './platformatic-bus.js';
import { quietLogger } from './stderr-logger.js';

/**
 * `node dist/position/handler-on-platformatic.js`: the real handler (runner, store, database, /health and
 * /metrics) with its PositionBus on @platformatic/kafka instead of kafkajs, passed in through
 * startPositionService's `bus` override: what the handler would do on the other client
 * (`bench:position --handler-client platformatic`). Same environment as `dist/position.js`.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const bus = createPlatformaticBus(
    busOptionsFromConfig(config, quietLogger(), `${config.kafkaClientId}-platformatic`),
  );
  const service = await startPositionService(config, { bus });
  const stop = () => {
    service.stop().catch((error: unknown) => {
      process.stderr.write(`${JSON.stringify({ level: 'error', msg: 'stop failed', error: String(error) })}\n`);
      process.exitCode = 1;
    });
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`${JSON.stringify({ level: 'error', msg: 'start failed', error: String(error) })}\n`);
  process.exitCode = 1;
});

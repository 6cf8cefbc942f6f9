import { CommandLineError, parseCommandLine } from './command-line.js';
import { ConfigError, type PositionConfig, readConfig } from './config/index.js';
import { startPositionService } from './main.js';

/**
 * `node dist/position` (also under `clinic flame -- node dist/position`): starts the handler, stops it on
 * SIGINT/SIGTERM after the batch in hand, and lets Node exit by itself, so a profiler attached to the
 * process can write its data first (reference/profiling.md). SIGUSR2 writes an on-demand .cpuprofile.
 */
async function main(): Promise<void> {
  let config: PositionConfig;
  try {
    const handlers = parseCommandLine(process.argv.slice(2));
    const loaded = readConfig(process.env, { handlers });
    config = loaded.config;
    if (loaded.notHonoured.length > 0) {
      // Named once, never silently ignored (issue 16): the keys of central-ledger's file or CLEDG_ variables
      // its position handler reads that have no equivalent here.
      process.stderr.write(
        `${JSON.stringify({ level: 'warn', msg: 'central-ledger keys not honoured', file: loaded.file, keys: loaded.notHonoured })}\n`,
      );
    }
  } catch (error) {
    if (error instanceof CommandLineError) {
      process.stderr.write(`invalid command line: ${error.message}\n`);
      process.exitCode = 2;
      return;
    }
    if (error instanceof ConfigError) {
      process.stderr.write(`invalid configuration: ${error.message}\n`);
      process.exitCode = 2;
      return;
    }
    throw error;
  }
  const service = await startPositionService(config);
  process.on('SIGUSR2', () => {
    service.profiler.profile(config.profileSeconds).then(
      (file) => process.stderr.write(`${JSON.stringify({ level: 'info', msg: 'cpu profile written', file })}\n`),
      (error: unknown) => process.stderr.write(`${JSON.stringify({ level: 'error', msg: String(error) })}\n`),
    );
  });
  const shutdown = (signal: string) => {
    process.stderr.write(`${JSON.stringify({ level: 'info', msg: 'stopping', signal })}\n`);
    service.stop().catch((error: unknown) => {
      process.stderr.write(`${JSON.stringify({ level: 'error', msg: 'stop failed', error: String(error) })}\n`);
      process.exitCode = 1;
    });
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(`${JSON.stringify({ level: 'error', msg: 'start failed', error: String(error) })}\n`);
  process.exitCode = 1;
});

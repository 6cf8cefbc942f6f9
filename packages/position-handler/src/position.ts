import { runService } from '@mojafast/service-kit';
import { CommandLineError, parseCommandLine } from './command-line.js';
import { ConfigError, readConfig } from './config/index.js';
import { type PositionService, startPositionService } from './main.js';
import { SecureConnectError } from './security.js';

/**
 * `node dist/position` (also under `clinic flame -- node dist/position`), run by the service kit: starts the
 * handler, stops it on SIGINT/SIGTERM after the batch in hand and lets Node exit by itself, so a profiler
 * attached to the process can write its data first (docs/profiling.md). SIGUSR2 writes an on-demand
 * .cpuprofile of POSITION_PROFILE_SECONDS.
 */
runService<{ service: PositionService; profileSeconds: number }>({
  async start(log, signal) {
    const handlers = parseCommandLine(process.argv.slice(2));
    const loaded = readConfig(process.env, { handlers });
    if (loaded.notHonoured.length > 0) {
      // Named once, never silently ignored (a setting that does nothing must say so): the keys of central-ledger's file or CLEDG_ variables
      // its position handler reads that have no equivalent here, and its logger's and event-sdk's variables likewise.
      log.warn({ file: loaded.file, keys: loaded.notHonoured }, 'central-ledger keys not honoured');
    }
    const service = await startPositionService(loaded.config, { startSignal: signal });
    return { service, profileSeconds: loaded.config.profileSeconds };
  },
  stop: ({ service }) => service.stop(),
  profile: ({ service, profileSeconds }) => service.profiler.profile(profileSeconds),
  startFailed(error) {
    // The operator's mistake: one plain line and exit 2, no stack (central-ledger's own messages).
    if (error instanceof CommandLineError) {
      process.stderr.write(`invalid command line: ${error.message}\n`);
      return 2;
    }
    if (error instanceof ConfigError) {
      process.stderr.write(`invalid configuration: ${error.message}\n`);
      return 2;
    }
    // A TLS or SASL refusal: the service, its host and the reason, one line (no retry would mend it).
    if (error instanceof SecureConnectError) {
      process.stderr.write(`${error.message}\n`);
      return 1;
    }
    return undefined;
  },
});

import type { PositionHandlerKind } from './config/index.js';

/**
 * central-ledger's handler command line (src/handlers/index.js: `handler` or `h`, then one flag per
 * handler), so a deployment's `args` run this process unchanged. Only the two position handlers are this
 * process; the others are refused by name, so a mis-pointed deployment stops at once instead of idling.
 */
export class CommandLineError extends Error {
  override name = 'CommandLineError';
}

const served: Record<string, PositionHandlerKind> = { '--position': 'position', '--positionbatch': 'positionbatch' };

/** The other handlers of central-ledger's `handler` command, with the name its help gives each. */
const notServed: Record<string, string> = {
  '--prepare': 'Prepare Handler',
  '--get': 'Transfer Get Handler',
  '--fulfil': 'Fulfil Handler',
  '--timeout': 'Timeout Handler',
  '--admin': 'Admin Handler',
  '--bulkprepare': 'Bulk Prepare Handler',
  '--bulkfulfil': 'Bulk Fulfil Handler',
  '--bulkprocessing': 'Bulk Processing Handler',
  '--bulkget': 'Bulk Get Handler',
};

/** The handlers `args` (process.argv after the script) ask for; none: our default, the batch handler. */
export function parseCommandLine(args: readonly string[]): PositionHandlerKind[] {
  if (args.length === 0) return [];
  const [command, ...flags] = args;
  if (command !== 'handler' && command !== 'h') {
    throw new CommandLineError(
      `unknown command "${command}": this is central-ledger's position handler; run it as \`handler --positionbatch\` or \`handler --position\` (or with no arguments)`,
    );
  }
  const handlers = new Set<PositionHandlerKind>();
  for (const flag of flags) {
    const kind = served[flag];
    if (kind) {
      handlers.add(kind);
      continue;
    }
    const other = notServed[flag];
    if (other) {
      throw new CommandLineError(
        `${flag} (central-ledger's ${other}) is not served by this process: it serves --positionbatch and --position only; run central-ledger for ${flag}`,
      );
    }
    throw new CommandLineError(`unknown option "${flag}": the handler command takes --positionbatch or --position`);
  }
  if (handlers.size === 0) {
    throw new CommandLineError('handler names no handler: give --positionbatch or --position');
  }
  return [...handlers];
}

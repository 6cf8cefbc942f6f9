/**
 * account-lookup-service's two command lines, so the deployments of Mojaloop's charts run this process with
 * their `command` unchanged: `src/index.js server [--api|--admin]` (commander, alias `s`) and
 * `src/handlers/index.js handlers --timeout` (alias `h`). Both scripts are one entry here (dist/als.js), so
 * either command is taken whichever script named it. No arguments: our default, everything in one process.
 */
export class CommandLineError extends Error {
  override name = 'CommandLineError';
}

/** What one process serves. */
export interface AlsRole {
  /** The FSPIOP API on ALS_PORT (the original's API_PORT). */
  readonly api: boolean;
  /** The admin API (/oracles) on ALS_ADMIN_PORT (ADMIN_PORT). */
  readonly admin: boolean;
  /**
   * The timeout handler of inter-scheme lookups. `true`: this process is the original's handler process
   * (`handlers --timeout`), with /health and /metrics on ALS_MONITORING_PORT; `'when-on'`: run beside the
   * servers when ALS_PROXY_CACHE and ALS_TIMEOUT_HANDLER are on (our all-in-one default); `false`: never
   * (the original's `server` processes leave it to the handler process).
   */
  readonly timeoutHandler: boolean | 'when-on';
  /** The command line as given, for the ready line and logs (`server --api`); empty: none. */
  readonly command: string;
  /** What the command line asks that this role does not do, as the original does not: logged at start. */
  readonly ignored?: string;
}

const serverUsage = '`server --api`, `server --admin` or `server` (both)';
const handlersUsage = '`handlers --timeout`';

/**
 * The role `args` (process.argv after the script) ask for, as the original reads them. Its `server`
 * action tests `--api` first: with both flags it starts the API only (src/index.js), and so does this one.
 */
export function parseCommandLine(args: readonly string[]): AlsRole {
  if (args.length === 0) return { api: true, admin: true, timeoutHandler: 'when-on', command: '' };
  const [command, ...flags] = args;
  const given = args.join(' ');
  if (command === 'server' || command === 's') {
    const known = new Set(['--api', '--admin']);
    for (const flag of flags)
      if (!known.has(flag))
        throw new CommandLineError(`unknown option "${flag}" of the server command: it takes --api or --admin`);
    const api = flags.includes('--api');
    const admin = flags.includes('--admin');
    if (api && admin)
      return {
        api: true,
        admin: false,
        timeoutHandler: false,
        command: given,
        ignored:
          '--admin: with --api too the original starts the API only (its server action tests --api first); run `server` for both',
      };
    if (api) return { api: true, admin: false, timeoutHandler: false, command: given };
    if (admin) return { api: false, admin: true, timeoutHandler: false, command: given };
    return { api: true, admin: true, timeoutHandler: false, command: given };
  }
  if (command === 'handlers' || command === 'h') {
    for (const flag of flags)
      if (flag !== '--timeout')
        throw new CommandLineError(`unknown option "${flag}" of the handlers command: it takes --timeout`);
    // The original logs "No handlers specified" and ends with 0, which a Deployment restarts for ever;
    // a plain refusal says what is missing instead.
    if (flags.length === 0) throw new CommandLineError('handlers names no handler: give --timeout');
    return { api: false, admin: false, timeoutHandler: true, command: given };
  }
  throw new CommandLineError(
    `unknown command "${command}": this is account-lookup-service; run it as ${serverUsage}, ${handlersUsage}, or with no arguments (everything in one process)`,
  );
}

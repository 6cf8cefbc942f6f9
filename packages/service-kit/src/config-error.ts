/**
 * A setting that stops the start. The message begins with the key it came from: our env variable, or the
 * original's key (`DATABASE.HOST`, `CLEDG_DATABASE__HOST`), so an operator knows what to fix.
 *
 * `separator` joins key and detail. The ALS's messages read `ALS_PORT: must be…`, the position handler's
 * `DB_PORT must be…`; operators and tests match both, so a service that keeps the space says so in a
 * subclass (`static override separator = ' '`) and hands that class to its config.
 */
export class ConfigError extends Error {
  static separator = ': ';

  constructor(
    readonly key: string,
    readonly detail: string,
  ) {
    super(`${key}${(new.target as typeof ConfigError).separator}${detail}`);
    this.name = 'ConfigError';
  }
}

/** The class a config throws: ConfigError or a subclass with its own separator. */
export type ConfigErrorClass = new (key: string, detail: string) => ConfigError;

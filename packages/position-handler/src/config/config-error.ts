/** A setting that stops the start; the message begins with the key (env variable or original's key). */
export class ConfigError extends Error {
  constructor(
    readonly key: string,
    detail: string,
  ) {
    super(`${key} ${detail}`);
    this.name = 'ConfigError';
  }
}

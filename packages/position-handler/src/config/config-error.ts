import { ConfigError as KitConfigError } from '@mojafast/service-kit';

/**
 * The kit's ConfigError, its message `KEY detail` (no colon) as the position handler has always printed it:
 * operators' and tests' patterns match `^DB_PORT ` and `^CONFIG_FILE `.
 */
export class ConfigError extends KitConfigError {
  static override separator = ' ';

  /** `cause`: what was behind it (a file that cannot be read). */
  constructor(key: string, detail: string, options?: ErrorOptions) {
    super(key, detail);
    if (options !== undefined && 'cause' in options) this.cause = options.cause;
  }
}

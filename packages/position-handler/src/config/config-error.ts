import { ConfigError as KitConfigError } from '@mojafast/service-kit';

/**
 * The kit's ConfigError, its message `KEY detail` (no colon) as the position handler has always printed it:
 * operators' and tests' patterns match `^DB_PORT ` and `^CONFIG_FILE `.
 */
export class ConfigError extends KitConfigError {
  static override separator = ' ';
}

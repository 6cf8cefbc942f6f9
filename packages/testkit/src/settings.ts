import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';

/**
 * Where the local Kafka broker, MySQL server and Redis listen. The defaults are infra/services.env, the file
 * the infra scripts read too; any key in the environment wins. One module, so no test or tool carries
 * its own host or port literal.
 */
export interface InfraSettings {
  readonly kafka: { readonly brokers: readonly string[] };
  readonly mysql: {
    readonly host: string;
    readonly port: number;
    readonly user: string;
    readonly password: string;
  };
  readonly redis: { readonly host: string; readonly port: number };
}

const servicesEnvFile = new URL('../../../infra/services.env', import.meta.url);

/**
 * infra/services.env as KEY=VALUE pairs, read by Node's own .env parser (util.parseEnv). That parser passes
 * over a line it cannot read; a typo there must stop the run instead, so such a line is named.
 */
export function parseEnvFile(text: string): Record<string, string> {
  const unreadable = text
    .split('\n')
    .map((line) => line.trim())
    .find((line) => line !== '' && !line.startsWith('#') && !/^(export\s+)?[\w.-]+\s*=/.test(line));
  if (unreadable !== undefined) throw new Error(`infra/services.env: line "${unreadable}" is not KEY=VALUE`);
  return parseEnv(text) as Record<string, string>;
}

function port(values: Record<string, string | undefined>, key: string): number {
  const raw = values[key];
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 65535) {
    throw new Error(`${key} must be a TCP port (1-65535), got "${raw}"`);
  }
  return value;
}

function text(values: Record<string, string | undefined>, key: string): string {
  const value = values[key];
  if (value === undefined || value === '')
    throw new Error(`${key} must be set (infra/services.env or the environment)`);
  return value;
}

export function loadInfraSettings(env: NodeJS.ProcessEnv = process.env): InfraSettings {
  const values: Record<string, string | undefined> = {
    ...parseEnvFile(readFileSync(servicesEnvFile, 'utf8')),
    ...env,
  };
  const brokers = values.KAFKA_BROKERS
    ? values.KAFKA_BROKERS.split(',').map((b) => b.trim())
    : [`${text(values, 'KAFKA_HOST')}:${port(values, 'KAFKA_PORT')}`];
  return Object.freeze({
    kafka: Object.freeze({ brokers: Object.freeze(brokers) }),
    mysql: Object.freeze({
      host: text(values, 'MYSQL_HOST'),
      port: port(values, 'MYSQL_PORT'),
      user: text(values, 'MYSQL_USER'),
      password: values.MYSQL_PASSWORD ?? '',
    }),
    redis: Object.freeze({ host: text(values, 'REDIS_HOST'), port: port(values, 'REDIS_PORT') }),
  });
}

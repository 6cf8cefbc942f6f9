import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
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
  /** The secure stack (`infra/svc start --tls`): TLS-only servers beside the plain ones. */
  readonly tls: TlsSettings;
}

/**
 * Where the secure stack listens and its certificates (PEM files made by infra/tls/tls.sh). The MariaDB
 * users are the plain server's (`mysql.user`, `mysql.password`); the server certificate names localhost
 * and 127.0.0.1.
 */
export interface TlsSettings {
  /** The folder holding the files below (TLS_DIR; default tls/ in the state directory, .infra/tls). */
  readonly dir: string;
  readonly caFile: string;
  /** The servers' certificate and key. */
  readonly certFile: string;
  readonly keyFile: string;
  /** A client certificate and key signed by the CA, for the listener that requires one. */
  readonly clientCertFile: string;
  readonly clientKeyFile: string;
  readonly kafka: {
    /** SSL, no client certificate asked for (encrypt-only, as Mojaloop's secure deployments). */
    readonly sslBrokers: readonly string[];
    /** SASL_SSL: PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 for `sasl`. */
    readonly saslBrokers: readonly string[];
    /** SSL that requires a client certificate signed by the CA. */
    readonly mtlsBrokers: readonly string[];
    readonly sasl: { readonly username: string; readonly password: string };
  };
  /** require_secure_transport=ON: a plaintext connection is refused. */
  readonly mysql: { readonly host: string; readonly port: number };
  /** No plaintext port at all. */
  readonly redis: { readonly host: string; readonly port: number };
}

const repositoryRoot = new URL('../../../', import.meta.url);
const servicesEnvFile = new URL('infra/services.env', repositoryRoot);

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
    tls: tlsSettings(values),
  });
}

function tlsSettings(values: Record<string, string | undefined>): TlsSettings {
  // As infra/lib/common.sh and infra/tls/tls.sh resolve them: the state directory, then its tls/.
  const stateDir = values.MOJAFAST_STATE_DIR || join(fileURLToPath(repositoryRoot), '.infra');
  const dir = resolve(values.TLS_DIR || join(stateDir, 'tls'));
  const kafkaHost = text(values, 'KAFKA_HOST');
  const broker = (key: string) => Object.freeze([`${kafkaHost}:${port(values, key)}`]);
  return Object.freeze({
    dir,
    caFile: join(dir, 'ca.pem'),
    certFile: join(dir, 'server.pem'),
    keyFile: join(dir, 'server-key.pem'),
    clientCertFile: join(dir, 'client.pem'),
    clientKeyFile: join(dir, 'client-key.pem'),
    kafka: Object.freeze({
      sslBrokers: broker('KAFKA_TLS_PORT'),
      saslBrokers: broker('KAFKA_SASL_PORT'),
      mtlsBrokers: broker('KAFKA_MTLS_PORT'),
      sasl: Object.freeze({ username: text(values, 'KAFKA_SASL_USER'), password: text(values, 'KAFKA_SASL_PASSWORD') }),
    }),
    mysql: Object.freeze({ host: text(values, 'MYSQL_HOST'), port: port(values, 'MYSQL_TLS_PORT') }),
    redis: Object.freeze({ host: text(values, 'REDIS_HOST'), port: port(values, 'REDIS_TLS_PORT') }),
  });
}

/** The secure stack's CA, and the client certificate and key, as PEM text (what TLS clients take). */
export function readTlsCredentials(settings: InfraSettings = loadInfraSettings()): {
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
} {
  const read = (file: string) => {
    try {
      return readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new Error(`${file} is missing: the secure stack's certificates are made by 'infra/svc start --tls'`);
      }
      throw error;
    }
  };
  const { caFile, clientCertFile, clientKeyFile } = settings.tls;
  return Object.freeze({ ca: read(caFile), cert: read(clientCertFile), key: read(clientKeyFile) });
}

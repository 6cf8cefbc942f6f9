import { readFileSync, statSync } from 'node:fs';
import { isIP } from 'node:net';
import { type ConnectionOptions, getCACertificates } from 'node:tls';
import type { KafkaSecurity } from './bus/types.js';
import { ConfigError, configSchema, type PositionConfig } from './config/index.js';
import type { DbSsl } from './store/db.js';

/** Reads a file a setting names (tests hand their own). */
export type ReadFile = (path: string) => string;

const readText: ReadFile = (path) => {
  // librdkafka takes a directory of hashed certificates too; Node takes PEM text only, so say so plainly.
  if (statSync(path).isDirectory()) throw new Error('is a directory, not a PEM file');
  return readFileSync(path, 'utf8');
};

/** A file a setting names, read now: a missing or unreadable one stops the start naming the setting. */
function fileOf(setting: string, path: string, read: ReadFile): string {
  try {
    return read(path);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError(setting, `names ${path}, which cannot be read: ${reason}`, { cause: error });
  }
}

/** The PEM text of a setting that names a file, or undefined when it is unset. */
function pemFile(config: PositionConfig, field: keyof PositionConfig, read: ReadFile): string | undefined {
  const path = config[field];
  return typeof path === 'string' ? fileOf(configSchema[field].env, path, read) : undefined;
}

/**
 * The Kafka clients' TLS and SASL options from the settings (librdkafka's semantics, docs/original-config.md):
 * TLS with `ssl` and `sasl_ssl`; verification off takes any certificate (Node's rejectUnauthorized false skips
 * the host name check as well, as librdkafka does); the host name check alone off keeps the chain's.
 */
export function kafkaSecurity(config: PositionConfig, read: ReadFile = readText): KafkaSecurity {
  const protocol = config.kafkaSecurityProtocol;
  const sasl =
    (protocol === 'sasl_ssl' || protocol === 'sasl_plaintext') && config.kafkaSaslMechanism !== undefined
      ? {
          mechanism: config.kafkaSaslMechanism,
          username: config.kafkaSaslUsername ?? '',
          password: config.kafkaSaslPassword ?? '',
        }
      : undefined;
  if (protocol !== 'ssl' && protocol !== 'sasl_ssl') return { tls: undefined, sasl, serverName: false };
  const file = (field: keyof PositionConfig) => pemFile(config, field, read);
  const tls: ConnectionOptions = { rejectUnauthorized: config.kafkaSslVerify };
  if (config.kafkaSslCaFile === 'probe') tls.ca = getCACertificates('system');
  else {
    const ca = config.kafkaSslCaPem ?? file('kafkaSslCaFile');
    if (ca !== undefined) tls.ca = ca;
  }
  const cert = config.kafkaSslCertPem ?? file('kafkaSslCertFile');
  const key = config.kafkaSslKeyPem ?? file('kafkaSslKeyFile');
  if (cert !== undefined) tls.cert = cert;
  if (key !== undefined) tls.key = key;
  if (config.kafkaSslKeyPassword !== undefined) tls.passphrase = config.kafkaSslKeyPassword;
  if (config.kafkaSslVerify && !config.kafkaSslHostnameCheck) tls.checkServerIdentity = () => undefined;
  // SNI with the broker's host name, as librdkafka and kafkajs send it; an address is no server name (RFC 6066).
  const serverName = config.kafkaBrokers.some((broker) => isIP(hostOf(broker)) === 0);
  return { tls, sasl, serverName };
}

/** The host of `host:port` (an IPv6 address in brackets too). */
function hostOf(broker: string): string {
  const bracketed = /^\[(.*)\](?::\d+)?$/.exec(broker);
  if (bracketed) return bracketed[1] as string;
  const colon = broker.lastIndexOf(':');
  return colon > 0 && broker.indexOf(':') === colon ? broker.slice(0, colon) : broker;
}

/**
 * mysql2's `ssl` from the settings: undefined for `off`; a profile's name as mysql2 takes it; else its object
 * (mysql2 verifies unless rejectUnauthorized is false, and checks the host name only with verifyIdentity).
 */
export function dbSsl(config: PositionConfig, read: ReadFile = readText): DbSsl | undefined {
  if (config.dbSsl === 'off') return undefined;
  if (config.dbSslProfile !== undefined) return config.dbSslProfile;
  const file = (field: keyof PositionConfig) => pemFile(config, field, read);
  const ssl: { -readonly [K in keyof Exclude<DbSsl, string>]: Exclude<DbSsl, string>[K] } = {
    rejectUnauthorized: config.dbSsl !== 'on',
    verifyIdentity: config.dbSsl === 'verify-identity',
  };
  const ca = config.dbSslCaPem ?? file('dbSslCaFile');
  const cert = config.dbSslCertPem ?? file('dbSslCertFile');
  const key = config.dbSslKeyPem ?? file('dbSslKeyFile');
  if (ca !== undefined) ssl.ca = ca;
  if (cert !== undefined) ssl.cert = cert;
  if (key !== undefined) ssl.key = key;
  if (config.dbSslKeyPassword !== undefined) ssl.passphrase = config.dbSslKeyPassword;
  return ssl;
}

/**
 * Node's certificate verification codes (OpenSSL's X509_V_ERR names) and its host name mismatch: a
 * connection refused for one of them fails again on every retry, so the start stops instead of waiting.
 */
const CERTIFICATE_CODES: ReadonlySet<string> = new Set([
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_CRL',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECRYPT_CRL_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'CERT_SIGNATURE_FAILURE',
  'CRL_SIGNATURE_FAILURE',
  'CERT_NOT_YET_VALID',
  'CERT_HAS_EXPIRED',
  'CRL_NOT_YET_VALID',
  'CRL_HAS_EXPIRED',
  'ERROR_IN_CERT_NOT_BEFORE_FIELD',
  'ERROR_IN_CERT_NOT_AFTER_FIELD',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_CHAIN_TOO_LONG',
  'CERT_REVOKED',
  'INVALID_CA',
  'PATH_LENGTH_EXCEEDED',
  'INVALID_PURPOSE',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'HOSTNAME_MISMATCH',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  // mysql2: its wrapping of a failed handshake (the message is Node's), and a server that offers no TLS while
  // ours asks for it; MySQL: the server wants TLS, ours is off (MariaDB answers that with access denied).
  'HANDSHAKE_SSL_ERROR',
  'HANDSHAKE_NO_SSL_SUPPORT',
  'ER_SECURE_TRANSPORT_REQUIRED',
]);

/** A TLS or SASL failure no retry can mend: a certificate refused, a handshake, a key, a login or the other side's TLS. */
function isSecureFailure(error: Error & { code?: unknown; errno?: unknown }): boolean {
  const code = typeof error.code === 'string' ? error.code : '';
  if (CERTIFICATE_CODES.has(code)) return true;
  if (code.startsWith('ERR_SSL_') || code.startsWith('ERR_OSSL_') || code.startsWith('ERR_TLS_')) return true;
  if (/insecure transport are prohibited/i.test(error.message)) return true;
  // @platformatic/kafka: a plaintext client on a TLS listener, a TLS client on a plaintext one, a SASL login refused.
  if (code === 'PLT_KFK_AUTHENTICATION') return true;
  if (code === 'PLT_KFK_USER' && /TLS/.test(error.message)) return true;
  // kafkajs: SASL refused.
  if (error.name === 'KafkaJSSASLAuthenticationError') return true;
  return false;
}

/** The first error in `error`'s causes (and an AggregateError's errors) that `test` accepts. */
function findIn(error: unknown, test: (e: Error) => boolean, depth = 0): Error | undefined {
  if (!(error instanceof Error) || depth > 8) return undefined;
  if (test(error)) return error;
  const nested = [error.cause, ...(error instanceof AggregateError ? error.errors : [])];
  for (const inner of nested) {
    const found = findIn(inner, test, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/**
 * A connection refused over TLS or SASL: the start stops with one line naming the service, its host and the
 * reason (position.ts prints it), instead of a retry loop or a client's nested error.
 */
export class SecureConnectError extends Error {
  readonly code = 'POSITION_SECURE_CONNECT';
  override readonly name = 'SecureConnectError';
}

/** `error` as a SecureConnectError when a TLS or SASL failure is inside it; undefined otherwise. */
export function secureConnectFailure(error: unknown, service: string, where: string): SecureConnectError | undefined {
  const found = findIn(error, (e) => isSecureFailure(e as Error & { code?: unknown }));
  if (!found) return undefined;
  const code = (found as { code?: unknown }).code;
  const reason = found.message.replaceAll(/\s+/g, ' ').trim();
  const shown = typeof code === 'string' && !reason.includes(code) ? `${reason} (${code})` : reason;
  return new SecureConnectError(`${service} ${where}: secure connection failed: ${shown}`, { cause: error });
}

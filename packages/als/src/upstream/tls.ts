import { readFileSync } from 'node:fs';
import { type ConnectionOptions, getCACertificates } from 'node:tls';
import { ConfigError } from '../config/index.js';

/** What a TLS setting asks (ALS_DB_SSL, ALS_PROXY_CACHE_TLS): none, encrypted only, or verified. */
export type TlsMode = 'off' | 'on' | 'verify';

/** The PEM settings of one connection, as the variables that hold them, so an unreadable one is named. */
export interface PemSettings {
  readonly ca: { readonly value: string; readonly variable: string };
  readonly cert: { readonly value: string; readonly variable: string };
  readonly key: { readonly value: string; readonly variable: string };
}

/**
 * A PEM setting's value: PEM text as is (the original's keys hold the text, a chart fills them from a
 * secret), else the file it names, read once at start. Empty: none. An unreadable file stops the start
 * naming its variable.
 */
export function readPem(value: string, variable: string): string | undefined {
  if (value === '') return undefined;
  if (value.trimStart().startsWith('-----BEGIN')) return value;
  try {
    return readFileSync(value, 'utf8');
  } catch (error) {
    throw new ConfigError(variable, `cannot read ${value} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/**
 * node:tls options of a connection: undefined when off; `on` accepts any certificate; `verify` checks the
 * chain (against `ca`, else Node's store with NODE_EXTRA_CA_CERTS) and that it names the host, Node's default.
 */
export function tlsOptions(mode: TlsMode, pem: PemSettings): ConnectionOptions | undefined {
  if (mode === 'off') return undefined;
  const ca = readPem(pem.ca.value, pem.ca.variable);
  const cert = readPem(pem.cert.value, pem.cert.variable);
  const key = readPem(pem.key.value, pem.key.variable);
  return {
    rejectUnauthorized: mode === 'verify',
    ...(ca !== undefined ? { ca } : {}),
    ...(cert !== undefined ? { cert } : {}),
    ...(key !== undefined ? { key } : {}),
  };
}

/**
 * The CAs of upstream HTTPS: Node's default store (bundled, plus NODE_EXTRA_CA_CERTS, which tls.connect
 * uses by itself when no `ca` is given) and the extra file. Undefined without the file: undici's sockets
 * then use the default store as they are.
 */
export function upstreamCa(file: string, variable: string): string[] | undefined {
  const extra = readPem(file, variable);
  if (extra === undefined) return undefined;
  // A `ca` option replaces the default store: it is given whole, the extra CAs added.
  return [...getCACertificates('default'), extra];
}

/**
 * Node's codes of a peer certificate that fails verification: an untrusted or self-signed chain, an expired
 * or not yet valid one, one that names another host.
 */
const certificateCodes =
  /^(?:CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|ERR_TLS_CERT_ALTNAME_INVALID|HOSTNAME_MISMATCH)/;

export function isCertificateFailure(error: unknown): boolean {
  return certificateCodes.test(codeOf(error) ?? '');
}

export function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** A connection of the start (MySQL, Redis) that failed: the one line the start stops with, its cause kept. */
export class ConnectionStartError extends Error {
  readonly code: string;

  constructor(message: string, cause: unknown) {
    super(message, { cause });
    this.name = 'ConnectionStartError';
    this.code = codeOf(cause) ?? 'CONNECT_FAILED';
  }
}

/**
 * Why a connection failed, in one line: the reason and its code; a certificate that fails verification says
 * so first, as the operator's fix is its CA or host name, not the server.
 */
export function failureReason(error: unknown): string {
  const code = codeOf(error);
  const message = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
  const reason = code !== undefined && !message.includes(code) ? `${message} (${code})` : message;
  return isCertificateFailure(error) ? `its certificate fails verification: ${reason}` : reason;
}

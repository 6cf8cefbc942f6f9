import type { KeyObject } from 'node:crypto';
import { base64url, flattenedVerify } from 'jose';
import { stableStringify } from './stable-json.js';

/**
 * Checks an incoming request's FSPIOP-Signature (FSPIOP API v1.1 "Signature", section 6.x): the JWS over
 * the body with the FSPIOP routing headers in its protected header. The same checks, in the same order and
 * words, as the original's validator (@mojaloop/sdk-standard-components src/lib/jws/jwsValidator.js): the
 * signed payload is the parsed body in stable (sorted-key) JSON; RS256 and ES256 only; FSPIOP-URI,
 * FSPIOP-HTTP-Method and FSPIOP-Source must equal the request's; Date and FSPIOP-Destination must match
 * when either side has them. Throws an Error whose message the caller puts in the 3105 answer.
 */
const ALGORITHMS = ['RS256', 'ES256'];

type Headers = Readonly<Record<string, string | string[] | undefined>>;
const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

export async function validateJws(
  headers: Headers,
  body: unknown,
  keys: ReadonlyMap<string, KeyObject>,
): Promise<void> {
  if (body === undefined || body === null || body === '') throw new Error('Cannot validate JWS without a body');
  const source = one(headers['fspiop-source']);
  if (!source) throw new Error('FSPIOP-Source HTTP header not in request headers. Unable to verify JWS');
  const key = keys.get(source);
  if (!key) {
    throw new Error(
      `JWS public key for '${source}' not available. Unable to verify JWS. Only have keys for: ${JSON.stringify([...keys.keys()])}`,
    );
  }
  const uri = one(headers['fspiop-uri']);
  const method = one(headers['fspiop-http-method']);
  const signatureHeader = one(headers['fspiop-signature']);
  if (!uri || !method || !signatureHeader) {
    throw new Error('fspiop-uri, fspiop-http-method and fspiop-signature HTTP headers are all required for JWS');
  }
  let parts: { protectedHeader?: unknown; signature?: unknown };
  try {
    parts = JSON.parse(signatureHeader) as typeof parts;
  } catch {
    throw new Error('FSPIOP-Signature is not JSON');
  }
  if (typeof parts?.protectedHeader !== 'string' || typeof parts.signature !== 'string') {
    throw new Error('FSPIOP-Signature must hold the strings protectedHeader and signature');
  }
  const payload = base64url.encode(stableStringify(body));
  let header: Record<string, unknown>;
  try {
    const result = await flattenedVerify(
      { protected: parts.protectedHeader, payload, signature: parts.signature },
      key,
      { algorithms: ALGORITHMS },
    );
    header = (result.protectedHeader ?? {}) as Record<string, unknown>;
  } catch (error) {
    throw new Error(
      (error as Error).message === 'signature verification failed' ? 'invalid signature' : (error as Error).message,
    );
  }
  checkProtectedHeader(headers, header);
}

function checkProtectedHeader(headers: Headers, header: Record<string, unknown>): void {
  const uri = one(headers['fspiop-uri']);
  const method = one(headers['fspiop-http-method']);
  const source = one(headers['fspiop-source']);
  const date = one(headers.date);
  const destination = one(headers['fspiop-destination']);
  if (!header['FSPIOP-URI']) throw new Error('Decoded protected header does not contain required FSPIOP-URI element');
  if (header['FSPIOP-URI'] !== uri) {
    throw new Error(
      `FSPIOP-URI HTTP request header value: ${uri} does not match protected header value: ${String(header['FSPIOP-URI'])}`,
    );
  }
  if (!header['FSPIOP-HTTP-Method']) {
    throw new Error('Decoded protected header does not contain required FSPIOP-HTTP-Method element');
  }
  if (header['FSPIOP-HTTP-Method'] !== method) {
    throw new Error(
      `FSPIOP-HTTP-Method HTTP request header value: ${method} does not match protected header value: ${String(header['FSPIOP-HTTP-Method'])}`,
    );
  }
  if (!header['FSPIOP-Source']) {
    throw new Error('Decoded protected header does not contain required FSPIOP-Source element');
  }
  if (header['FSPIOP-Source'] !== source) {
    throw new Error(
      `FSPIOP-Source HTTP request header value: ${source} does not match protected header value: ${String(header['FSPIOP-Source'])}`,
    );
  }
  if (header.Date && !date) throw new Error('Date header is present in protected header but not in HTTP request');
  if (header.Date && header.Date !== date) {
    throw new Error(`HTTP date header: ${date} does not match protected header Date value: ${String(header.Date)}`);
  }
  if (destination && !header['FSPIOP-Destination']) {
    throw new Error('HTTP fspiop-destination header is present but is not present in protected header');
  }
  if (header['FSPIOP-Destination'] && !destination) {
    throw new Error('FSPIOP-Destination header is present in protected header but not in HTTP request');
  }
  if (destination && destination !== header['FSPIOP-Destination']) {
    throw new Error(
      `HTTP FSPIOP-Destination header: ${destination} does not match protected header FSPIOP-Destination value: ${String(header['FSPIOP-Destination'])}`,
    );
  }
}

import type { KeyObject } from 'node:crypto';
import { FlattenedSign } from 'jose';
import { stableStringify } from './stable-json.js';

/**
 * Signs a message the Hub originates, as the original does (src/models/participantEndpoint/facade.js
 * defineJwsSigner with @mojaloop/sdk-standard-components src/lib/jws/jwsSigner.js): RS256 for an RSA key,
 * ES256 for an EC key; the protected header holds alg, FSPIOP-URI, FSPIOP-HTTP-Method, FSPIOP-Source,
 * and FSPIOP-Destination and Date when the request has them; the payload is the body in stable JSON.
 * FSPIOP-Signature is `{"protectedHeader":…,"signature":…}` with the keys sorted.
 *
 * The original signs the stable form but sends the body in its own key order, which only a validator that
 * re-serialises the parsed body can check. Here the body sent is the very bytes signed, so a validator
 * that checks the raw bytes and one that re-serialises both accept it.
 */
export interface SignedMessage {
  readonly body: string;
  readonly signature: string;
}

export interface JwsSigner {
  sign(headers: Readonly<Record<string, string>>, method: string, body: string): Promise<SignedMessage>;
}

export function createJwsSigner(key: KeyObject): JwsSigner {
  const alg = key.asymmetricKeyType === 'ec' ? 'ES256' : 'RS256';
  const encoder = new TextEncoder();
  return {
    async sign(headers, method, body) {
      const stable = stableStringify(JSON.parse(body));
      const protectedHeader: Record<string, string> = {
        alg,
        'FSPIOP-URI': headers['fspiop-uri'] ?? '',
        'FSPIOP-HTTP-Method': method.toUpperCase(),
        'FSPIOP-Source': headers['fspiop-source'] ?? '',
      };
      const destination = headers['fspiop-destination'];
      if (destination) protectedHeader['FSPIOP-Destination'] = destination;
      const date = headers.date;
      if (date) protectedHeader.Date = date;
      const jws = await new FlattenedSign(encoder.encode(stable))
        .setProtectedHeader(protectedHeader as { alg: string })
        .sign(key);
      return {
        body: stable,
        signature: stableStringify({ protectedHeader: jws.protected, signature: jws.signature }),
      };
    },
  };
}

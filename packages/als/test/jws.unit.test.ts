import { generateKeyPairSync, sign as rsaSign, verify as rsaVerify } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSigningKey, loadVerificationKeys } from '../src/jws/keys.js';
import { createJwsSigner } from '../src/jws/sign.js';
import { stableStringify } from '../src/jws/stable-json.js';
import { validateJws } from '../src/jws/validate.js';

const b64 = (text: string) => Buffer.from(text).toString('base64url');
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const dir = mkdtempSync(join(tmpdir(), 'als-jws-'));
writeFileSync(join(dir, 'payerfsp.pem'), rsa.publicKey.export({ type: 'spki', format: 'pem' }));
writeFileSync(join(dir, 'ecfsp.pem'), ec.publicKey.export({ type: 'spki', format: 'pem' }));
writeFileSync(join(dir, 'hub.key'), rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }));
writeFileSync(join(dir, 'ec.key'), ec.privateKey.export({ type: 'sec1', format: 'pem' }));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const body = { party: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: '123', fspId: 'payerfsp' } } };
const headers = (extra: Record<string, string> = {}) => ({
  'fspiop-source': 'payerfsp',
  'fspiop-destination': 'payeefsp',
  'fspiop-uri': '/parties/MSISDN/123',
  'fspiop-http-method': 'PUT',
  date: 'Mon, 23 Nov 2026 12:00:00 GMT',
  ...extra,
});

/** A signature made the way sdk-standard-components' signer makes it, with node:crypto only (no jose). */
function signLikeTheOriginal(h: Record<string, string>, payload: unknown): string {
  const protectedHeader = b64(
    JSON.stringify({
      alg: 'RS256',
      'FSPIOP-URI': h['fspiop-uri'],
      'FSPIOP-HTTP-Method': h['fspiop-http-method'],
      'FSPIOP-Source': h['fspiop-source'],
      'FSPIOP-Destination': h['fspiop-destination'],
      Date: h.date,
    }),
  );
  const signature = rsaSign(
    'sha256',
    Buffer.from(`${protectedHeader}.${b64(stableStringify(payload))}`),
    rsa.privateKey,
  );
  return JSON.stringify({ signature: signature.toString('base64url'), protectedHeader });
}

describe('JWS validation of an incoming FSPIOP-Signature', () => {
  const keys = loadVerificationKeys(dir);

  it('loads one key per {fspId}.pem and accepts a signature made as the original signer makes it', async () => {
    expect([...keys.keys()]).toEqual(['ecfsp', 'payerfsp']);
    const h = headers();
    // Key order in the received body does not matter: the payload is the stable form of the parsed body.
    const reordered = { party: { partyIdInfo: { fspId: 'payerfsp', partyIdentifier: '123', partyIdType: 'MSISDN' } } };
    await expect(
      validateJws({ ...h, 'fspiop-signature': signLikeTheOriginal(h, body) }, reordered, keys),
    ).resolves.toBeUndefined();
  });

  it('rejects a tampered body, a tampered routing header, an unknown signer and a missing signature', async () => {
    const h = headers();
    const signature = signLikeTheOriginal(h, body);
    // Bad input: the payee's identifier changed after signing.
    const tampered = { party: { partyIdInfo: { ...body.party.partyIdInfo, partyIdentifier: '999' } } };
    await expect(validateJws({ ...h, 'fspiop-signature': signature }, tampered, keys)).rejects.toThrow(
      'invalid signature',
    );
    // Bad input: the request re-routed to another URI under the same signature.
    await expect(
      validateJws({ ...h, 'fspiop-uri': '/parties/MSISDN/999', 'fspiop-signature': signature }, body, keys),
    ).rejects.toThrow(/FSPIOP-URI HTTP request header value: \/parties\/MSISDN\/999 does not match/);
    // Bad input: a destination the signer did not sign for.
    await expect(
      validateJws({ ...h, 'fspiop-destination': 'otherfsp', 'fspiop-signature': signature }, body, keys),
    ).rejects.toThrow(/FSPIOP-Destination header: otherfsp does not match/);
    // Bad input: a source with no key on file.
    await expect(
      validateJws({ ...h, 'fspiop-source': 'strangerfsp', 'fspiop-signature': signature }, body, keys),
    ).rejects.toThrow("JWS public key for 'strangerfsp' not available");
    // Bad input: no signature at all, and a signature header that is not JSON.
    await expect(validateJws(h, body, keys)).rejects.toThrow(/are all required for JWS/);
    await expect(validateJws({ ...h, 'fspiop-signature': 'abc' }, body, keys)).rejects.toThrow(
      'FSPIOP-Signature is not JSON',
    );
  });

  it('refuses an unsigned (alg none) token', async () => {
    const h = headers();
    const protectedHeader = b64(JSON.stringify({ alg: 'none', 'FSPIOP-URI': h['fspiop-uri'] }));
    const signatureHeader = JSON.stringify({ protectedHeader, signature: '' });
    await expect(validateJws({ ...h, 'fspiop-signature': signatureHeader }, body, keys)).rejects.toThrow();
  });
});

describe('JWS signing of a Hub-originated message', () => {
  it('RS256 from a PKCS#1 key: the body sent is the bytes signed, and an independent RSA check verifies it', async () => {
    const signer = createJwsSigner(loadSigningKey(join(dir, 'hub.key')));
    const h = { ...headers(), 'fspiop-source': 'Hub' };
    const signed = await signer.sign(h, 'put', JSON.stringify(body));
    expect(signed.body).toBe(stableStringify(body));
    const { protectedHeader, signature } = JSON.parse(signed.signature) as {
      protectedHeader: string;
      signature: string;
    };
    expect(Object.keys(JSON.parse(signed.signature))).toEqual(['protectedHeader', 'signature']);
    expect(JSON.parse(Buffer.from(protectedHeader, 'base64url').toString())).toEqual({
      alg: 'RS256',
      'FSPIOP-URI': '/parties/MSISDN/123',
      'FSPIOP-HTTP-Method': 'PUT',
      'FSPIOP-Source': 'Hub',
      'FSPIOP-Destination': 'payeefsp',
      Date: 'Mon, 23 Nov 2026 12:00:00 GMT',
    });
    const input = Buffer.from(`${protectedHeader}.${b64(signed.body)}`);
    expect(rsaVerify('sha256', input, rsa.publicKey, Buffer.from(signature, 'base64url'))).toBe(true);
  });

  it('ES256 from an EC key, verified by our validator', async () => {
    const signer = createJwsSigner(loadSigningKey(join(dir, 'ec.key')));
    const h = { ...headers(), 'fspiop-source': 'ecfsp' };
    const signed = await signer.sign(h, 'PUT', JSON.stringify(body));
    expect(JSON.parse(Buffer.from(JSON.parse(signed.signature).protectedHeader, 'base64url').toString()).alg).toBe(
      'ES256',
    );
    await expect(
      validateJws({ ...h, 'fspiop-signature': signed.signature }, JSON.parse(signed.body), loadVerificationKeys(dir)),
    ).resolves.toBeUndefined();
  });

  it('a key file that is not a key stops the start, naming the file', () => {
    expect(() => loadSigningKey(join(dir, 'payerfsp.pem'))).toThrow(/payerfsp\.pem is not a PEM private key/);
    expect(() => loadSigningKey(join(dir, 'missing.key'))).toThrow(/missing\.key cannot be read/);
  });
});

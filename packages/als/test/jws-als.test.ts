import { generateKeyPairSync, verify as rsaVerify } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { partyBody } from '@mojafast/sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJwsSigner } from '../src/jws/sign.js';
import { validateJws } from '../src/jws/validate.js';
import { call, callbackHeaders, lookupHeaders, newTraceId, type Stack, settled, startStack } from './helpers.js';

// The ALS with JWS on: incoming signatures checked against one key per FSP, the Hub's own messages signed.
const dir = mkdtempSync(join(tmpdir(), 'als-jws-e2e-'));
const fsp = generateKeyPairSync('rsa', { modulusLength: 2048 });
const hub = generateKeyPairSync('rsa', { modulusLength: 2048 });
mkdirSync(join(dir, 'keys'));
writeFileSync(join(dir, 'keys', 'payeefsp1.pem'), fsp.publicKey.export({ type: 'spki', format: 'pem' }));
writeFileSync(join(dir, 'hub.key'), hub.privateKey.export({ type: 'pkcs8', format: 'pem' }));

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({
    config: {
      jwsValidate: true,
      jwsValidatePutParties: true,
      jwsVerificationKeysDirectory: join(dir, 'keys'),
      jwsSign: true,
      jwsSigningKeyPath: join(dir, 'hub.key'),
    },
  });
});
afterAll(async () => {
  await stack?.close();
  rmSync(dir, { recursive: true, force: true });
});

const payeeSigner = createJwsSigner(fsp.privateKey);

describe('JWS on the FSPIOP API', () => {
  it('a PUT /parties signed by its source passes and is forwarded; the same signature on a tampered body is 400 3105', async () => {
    const traceId = newTraceId();
    const id = '46700000123';
    const headers = { ...callbackHeaders(traceId), 'fspiop-uri': `/parties/MSISDN/${id}`, 'fspiop-http-method': 'PUT' };
    const signed = await payeeSigner.sign(headers, 'PUT', partyBody('MSISDN', id, undefined, 'payeefsp1', '1.1'));
    const ok = await call(
      `${stack.als.url}/parties/MSISDN/${id}`,
      'PUT',
      { ...headers, 'fspiop-signature': signed.signature },
      signed.body,
    );
    expect(ok.status).toBe(200);
    const forwarded = await stack.sims.payer?.waitForCallback(traceId, 5_000);
    expect(forwarded?.headers['fspiop-signature']).toBe(signed.signature);

    // Bad input: the party's name changed after signing.
    const tamperedTrace = newTraceId();
    const tampered = signed.body.replace('Mats', 'Eve');
    const bad = await call(
      `${stack.als.url}/parties/MSISDN/${id}`,
      'PUT',
      { ...headers, traceparent: `00-${tamperedTrace}-0123456789abcdef-01`, 'fspiop-signature': signed.signature },
      tampered,
    );
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).errorInformation).toEqual({
      errorCode: '3105',
      errorDescription: 'Invalid signature - invalid signature',
    });
    // Bad input: no signature at all.
    const unsigned = await call(`${stack.als.url}/parties/MSISDN/${id}`, 'PUT', headers, signed.body);
    expect(unsigned.status).toBe(400);
    expect(JSON.parse(unsigned.body).errorInformation.errorCode).toBe('3105');
    await settled(stack.als);
    expect(stack.sims.payer?.callbacksFor(tamperedTrace)).toHaveLength(0);
  });

  it("a Hub error callback carries the Hub's signature over the exact body sent", async () => {
    const traceId = newTraceId();
    const id = '4047000001';
    const res = await call(`${stack.als.url}/parties/MSISDN/${id}`, 'GET', lookupHeaders(traceId));
    expect(res.status).toBe(202);
    const callback = await stack.sims.payer?.waitForCallback(traceId, 5_000);
    expect(callback?.kind).toBe('error');
    const headers = callback?.headers ?? {};
    expect(headers['fspiop-source']).toBe('Hub');
    const signature = JSON.parse(String(headers['fspiop-signature'])) as { protectedHeader: string; signature: string };
    // The receiving FSP's check, as the original validator makes it, with the Hub's public key.
    await expect(
      validateJws(headers, JSON.parse(String(callback?.body)), new Map([['Hub', hub.publicKey]])),
    ).resolves.toBeUndefined();
    // And over the raw bytes received, with node:crypto alone.
    const input = Buffer.from(
      `${signature.protectedHeader}.${Buffer.from(callback?.body ?? '').toString('base64url')}`,
    );
    expect(rsaVerify('sha256', input, hub.publicKey, Buffer.from(signature.signature, 'base64url'))).toBe(true);
  });
});

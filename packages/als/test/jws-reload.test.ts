import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { partyBody } from '@mojafast/sim';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createJwsSigner } from '../src/jws/sign.js';
import { call, callbackHeaders, newTraceId, type Stack, startStack } from './helpers.js';

// JWS verification keys changed while the ALS runs (JWS_VERIFICATION_KEYS_DIRECTORY): a key added is used,
// a key replaced is used instead of the old one, a key removed is refused with the original validator's words.
const dir = mkdtempSync(join(tmpdir(), 'als-jws-reload-'));
const pair = () => generateKeyPairSync('rsa', { modulusLength: 2048 });
const writeKey = (fsp: string, publicKey: KeyObject) =>
  writeFileSync(join(dir, `${fsp}.pem`), publicKey.export({ type: 'spki', format: 'pem' }));
const first = pair();
writeKey('payeefsp1', first.publicKey);

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({
    config: { jwsValidate: true, jwsValidatePutParties: true, jwsVerificationKeysDirectory: dir },
  });
});
afterAll(async () => {
  await stack?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A payee's PUT /parties signed with `privateKey` as `source`: the ALS's answer. */
async function signedPut(source: string, privateKey: KeyObject) {
  const id = '46700000321';
  const headers = {
    ...callbackHeaders(newTraceId(), { 'fspiop-source': source }),
    'fspiop-uri': `/parties/MSISDN/${id}`,
    'fspiop-http-method': 'PUT',
  };
  const signed = await createJwsSigner(privateKey).sign(
    headers,
    'PUT',
    partyBody('MSISDN', id, undefined, source, '1.1'),
  );
  const res = await call(
    `${stack.als.url}/parties/MSISDN/${id}`,
    'PUT',
    { ...headers, 'fspiop-signature': signed.signature },
    signed.body,
  );
  return { status: res.status, error: res.status === 200 ? undefined : JSON.parse(res.body).errorInformation };
}

const notAvailable = (fsp: string, have: string[]) => ({
  errorCode: '3105',
  errorDescription: `Invalid signature - JWS public key for '${fsp}' not available. Unable to verify JWS. Only have keys for: ${JSON.stringify(have)}`,
});

describe('JWS verification keys reloaded without a restart', () => {
  const added = pair();
  const replacement = pair();

  it('a key added to the directory verifies the next request of that FSP', async () => {
    expect(await signedPut('payeefsp2', added.privateKey)).toEqual({
      status: 400,
      error: notAvailable('payeefsp2', ['payeefsp1']),
    });
    writeKey('payeefsp2', added.publicKey);
    await vi.waitFor(async () => expect((await signedPut('payeefsp2', added.privateKey)).status).toBe(200), {
      timeout: 5_000,
      interval: 50,
    });
    expect((await signedPut('payeefsp1', first.privateKey)).status).toBe(200);
  });

  it('a key replaced: the new one verifies, the old one no longer does', async () => {
    writeKey('payeefsp1', replacement.publicKey);
    await vi.waitFor(async () => expect((await signedPut('payeefsp1', replacement.privateKey)).status).toBe(200), {
      timeout: 5_000,
      interval: 50,
    });
    expect(await signedPut('payeefsp1', first.privateKey)).toEqual({
      status: 400,
      error: { errorCode: '3105', errorDescription: 'Invalid signature - invalid signature' },
    });
  });

  it("a key removed: that FSP's requests are refused with the original's error", async () => {
    unlinkSync(join(dir, 'payeefsp2.pem'));
    await vi.waitFor(
      async () =>
        expect(await signedPut('payeefsp2', added.privateKey)).toEqual({
          status: 400,
          error: notAvailable('payeefsp2', ['payeefsp1']),
        }),
      { timeout: 5_000, interval: 50 },
    );
  });

  it('a file that is no key: that FSP is refused, the others stay', async () => {
    writeFileSync(join(dir, 'payeefsp3.pem'), 'not a key');
    const errorLog = vi.spyOn(stack.als.log, 'error');
    writeKey('payeefsp2', added.publicKey);
    await vi.waitFor(async () => expect((await signedPut('payeefsp2', added.privateKey)).status).toBe(200), {
      timeout: 5_000,
      interval: 50,
    });
    // One reload reads the files in turn: payeefsp2's key can serve before payeefsp3's file has been read.
    await vi.waitFor(
      () =>
        expect(
          errorLog.mock.calls.some((c) => String((c[0] as { path?: string }).path).endsWith('payeefsp3.pem')),
        ).toBe(true),
      { timeout: 5_000, interval: 50 },
    );
    expect((await signedPut('payeefsp3', added.privateKey)).error?.errorDescription).toContain(
      "JWS public key for 'payeefsp3' not available",
    );
    errorLog.mockRestore();
  });
});

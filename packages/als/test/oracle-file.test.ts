import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/index.js';
import { startAls } from '../src/main.js';
import { call, errorCodeOf, lookupHeaders, newTraceId, type Stack, startStack } from './helpers.js';

let stack: Stack;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'als-oracles-'));
  stack = await startStack();
  const file = join(dir, 'oracles.json');
  writeFileSync(file, JSON.stringify([{ oracleIdType: 'MSISDN', endpoint: { value: stack.sims.oracle.url } }]));
  // A second ALS on the same simulators, its registry from the file: only MSISDN has an oracle.
  await stack.als.close();
  stack = { ...stack, als: await startAls(loadConfig({}, { ...configOf(stack), oraclesFile: file, oracleUrl: '' })) };
  stack.sims.payee.setAlsUrl(stack.als.url);
});
afterAll(async () => {
  await stack?.close();
  rmSync(dir, { recursive: true, force: true });
});

function configOf(s: Stack) {
  return {
    host: '127.0.0.1',
    port: 0,
    adminPort: 0,
    logLevel: 'silent' as const,
    switchEndpoint: s.sims.admin.url,
  };
}

async function lookUp(type: string, id: string) {
  const traceId = newTraceId();
  await call(`${stack.als.url}/parties/${type}/${id}`, 'GET', lookupHeaders(traceId));
  const callback = await stack.sims.payer?.waitForCallback(traceId, 5_000);
  if (!callback) throw new Error('no payer simulator');
  return callback;
}

describe('oracle registry from ALS_ORACLES_FILE', () => {
  it('routes a type the file lists to its oracle', async () => {
    expect((await lookUp('MSISDN', '46770000001')).kind).toBe('success');
  });

  it('calls back 3003 for a type the file does not list', async () => {
    const callback = await lookUp('EMAIL', 'ann@example.org');
    expect(callback.kind).toBe('error');
    expect(errorCodeOf(callback.body)).toBe('3003');
  });

  it('refuses to start on a file that is not an array of oracles, naming the file', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"oracleIdType":"MSISDN"}');
    await expect(startAls(loadConfig({}, { ...configOf(stack), oraclesFile: bad }))).rejects.toThrow(
      /ALS_ORACLES_FILE .*bad\.json: expected a JSON array/,
    );
  });
});

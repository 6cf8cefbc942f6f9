import { startPayeeSim } from '@mojafast/sim';
import { afterEach, describe, expect, it } from 'vitest';
import { call, errorCodeOf, lookupHeaders, newTraceId, type Stack, startStack } from './helpers.js';

const stacks: Stack[] = [];
const closers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(stacks.splice(0).map((s) => s.close()));
  await Promise.all(closers.splice(0).map((c) => c.close()));
});

async function lookUp(stack: Stack, id: string, extra: Record<string, string> = {}) {
  const traceId = newTraceId();
  const res = await call(`${stack.als.url}/parties/MSISDN/${id}`, 'GET', lookupHeaders(traceId, extra));
  expect(res.status).toBe(202);
  const callback = await stack.sims.payer?.waitForCallback(traceId, 8_000);
  if (!callback) throw new Error('no payer simulator');
  return callback;
}

describe('caches', () => {
  // The oracle-answer cache is off by default, as the original's (GENERAL_CACHE_CONFIG.CACHE_ENABLED false);
  // these tests turn it on to test it.
  const answerCache = { config: { oracleAnswerCacheTtlMs: 10_000 } };

  it('makes no admin or oracle call for a second lookup of the same party', async () => {
    const stack = await startStack(answerCache);
    stacks.push(stack);
    expect((await lookUp(stack, '46720000001')).kind).toBe('success');
    const admin = { ...stack.sims.admin.stats };
    const oracleGets = stack.sims.oracle.stats.get;
    expect((await lookUp(stack, '46720000001')).kind).toBe('success');
    expect(stack.sims.admin.stats).toEqual(admin);
    expect(stack.sims.oracle.stats.get).toBe(oracleGets);
    const metrics = await (await fetch(`${stack.als.adminUrl}/metrics`)).text();
    expect(metrics).toMatch(/als_cache_requests_total\{cache="oracle_answer",result="hit"\} [1-9]/);
    expect(metrics).toMatch(/als_cache_requests_total\{cache="participant",result="miss"\} [1-9]/);
    // The keep-alive pool to the payee simulator holds the socket of those lookups.
    const payeeOrigin = new URL(stack.sims.payee.url).origin;
    expect(metrics).toContain(`als_upstream_pool{origin="${payeeOrigin}",state="connected"} 1`);
  });

  it('makes one oracle call for 100 concurrent lookups of one cold party', async () => {
    // 100 lookups in flight at once: admission must let them all in (its default bound is lower). The oracle
    // answers after 2 s, far longer than the 100 requests take to arrive even on a loaded machine (with 200 ms,
    // the last ones came after the answer there and asked again: a test of the machine, not of coalescing).
    const stack = await startStack({
      sims: { oracleFaults: { latencyMs: 2000 } },
      config: { maxLookupsInFlight: 100 },
    });
    stacks.push(stack);
    const callbacks = await Promise.all(Array.from({ length: 100 }, () => lookUp(stack, '46720000002')));
    expect(callbacks.every((c) => c.kind === 'success')).toBe(true);
    expect(stack.sims.oracle.stats.get).toBe(1);
  });

  it('drops the cached answer when POST /participants moves the party', async () => {
    const stack = await startStack(answerCache);
    stacks.push(stack);
    const id = '46720000003';
    const first = await lookUp(stack, id);
    const firstFsp = first.headers['fspiop-source'];
    const newFsp = firstFsp === 'payeefsp1' ? 'payeefsp2' : 'payeefsp1';
    const traceId = newTraceId();
    // The party's new FSP registers it (through our ALS), which must drop the cached oracle answer.
    const res = await call(
      `${stack.als.url}/participants/MSISDN/${id}`,
      'POST',
      {
        ...lookupHeaders(traceId, { 'fspiop-source': newFsp }, 'participants'),
        'content-type': 'application/vnd.interoperability.participants+json;version=1.1',
      },
      JSON.stringify({ fspId: newFsp, currency: 'USD' }),
    );
    expect(res.status).toBe(202);
    await expect.poll(() => stack.sims.oracle.lookup('MSISDN', id)).toEqual([{ fspId: newFsp, currency: 'USD' }]);
    expect((await lookUp(stack, id)).headers['fspiop-source']).toBe(newFsp);
  });

  it('does not cache an oracle failure as "not found"', async () => {
    const faults = { errorRate: 1 };
    const stack = await startStack({ ...answerCache, sims: { oracleFaults: faults } });
    stacks.push(stack);
    const failed = await lookUp(stack, '46720000004');
    expect(failed.kind).toBe('error');
    // The simulator's 500 carries an error body (2001): passed on, as the original does.
    expect(errorCodeOf(failed.body)).toBe('2001');
    faults.errorRate = 0;
    expect((await lookUp(stack, '46720000004')).kind).toBe('success');
  });
});

describe('upstream faults', () => {
  it('calls back 1001 when the oracle is unreachable, as the original', async () => {
    const stack = await startStack({ config: { oracleUrl: 'http://127.0.0.1:1' } });
    stacks.push(stack);
    const callback = await lookUp(stack, '46720000005');
    expect(callback.kind).toBe('error');
    expect(JSON.parse(callback.body.toString()).errorInformation).toEqual({
      errorCode: '1001',
      errorDescription: 'Destination communication error - Failed to send HTTP request to host',
    });
  });

  it('accepts a lookup while central-ledger fails and calls back 2001, where the original answered 500', async () => {
    const faults = { errorRate: 0 };
    // Participants are asked every time; endpoints stay cached from the first lookup.
    const stack = await startStack({
      sims: { adminFaults: faults },
      config: { participantCacheTtlMs: 0, cacheMaxStaleMs: 0 },
    });
    stacks.push(stack);
    expect((await lookUp(stack, '46720000007')).kind).toBe('success');
    faults.errorRate = 1;
    const failed = await lookUp(stack, '46720000008');
    expect(failed.kind).toBe('error');
    expect(errorCodeOf(failed.body)).toBe('2001');
    expect(JSON.parse(failed.body.toString()).errorInformation.errorDescription).toContain('central-ledger');
  });

  it('retries once when the oracle resets a connection, and the lookup succeeds', async () => {
    let calls = 0;
    // Reset the first request only: the retry goes through.
    const stack = await startStack({ sims: { oracleFaults: { resetRate: 1, random: () => (calls++ === 0 ? 0 : 1) } } });
    stacks.push(stack);
    expect((await lookUp(stack, '46720000006')).kind).toBe('success');
    const metrics = await (await fetch(`${stack.als.adminUrl}/metrics`)).text();
    expect(metrics).toMatch(/als_upstream_retries_total [1-9]/);
  });

  it('does not slow lookups to other payees while one payee takes 5 s', async () => {
    const slow = await startPayeeSim({ faults: { latencyMs: 5_000 } });
    closers.push(slow);
    const stack = await startStack({ sims: { fsps: 5 }, config: { headersTimeoutMs: 8_000 } });
    stacks.push(stack);
    slow.setAlsUrl(stack.als.url);
    stack.sims.admin.setParticipant('slowfsp', { endpointBase: slow.url });
    const slowTrace = newTraceId();
    await call(
      `${stack.als.url}/parties/MSISDN/46720000100`,
      'GET',
      lookupHeaders(slowTrace, { 'fspiop-destination': 'slowfsp' }),
    );
    const started = performance.now();
    const others = await Promise.all(Array.from({ length: 20 }, (_, i) => lookUp(stack, String(46720000200 + i))));
    expect(others.every((c) => c.kind === 'success')).toBe(true);
    // Generous for a loaded CI machine, and still under the slow payee's 5 s.
    expect(performance.now() - started).toBeLessThan(4_000);
    const late = await stack.sims.payer?.waitForCallback(slowTrace, 8_000);
    expect(late?.kind).toBe('success');
  });
});

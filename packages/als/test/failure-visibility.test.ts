import { connect } from 'node:net';
import { afterEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import {
  call,
  callbackHeaders,
  errorCodeOf,
  getParties,
  lookupHeaders,
  newTraceId,
  type Stack,
  settled,
  startStack,
} from './helpers.js';

// Every failure the ALS answers is counted by error code on /metrics and logged with its trace id: the
// synchronous error answers and the error callbacks, its own and those it forwards.
let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
  vi.restoreAllMocks();
});

/** Fault switch for a simulator: `resetRate: 0.5` with this `random` resets every request while `down`. */
function outage() {
  const state = { down: false };
  return { state, faults: { resetRate: 0.5, random: () => (state.down ? 0 : 1) } };
}

async function metricsText(): Promise<string> {
  return (await fetch(`${stack?.als.adminUrl}/metrics`)).text();
}

/** The value of one series on /metrics, 0 when it is not there. */
async function series(name: string, labels: string): Promise<number> {
  const line = (await metricsText()).split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line === undefined ? 0 : Number(line.split(' ').pop());
}

/** The log lines the ALS wrote through its logger at `level`, as [fields, message]. */
function logged(spy: MockInstance): [Record<string, unknown>, string][] {
  return spy.mock.calls.map((c) => [c[0] as Record<string, unknown>, c[1] as string]);
}

describe('failures counted and logged', () => {
  it('central-ledger down with a cold endpoint cache: the synchronous 500 2001 is counted and logged with its trace id', async () => {
    const ledger = outage();
    ledger.state.down = true;
    stack = await startStack({ sims: { adminFaults: ledger.faults } });
    const errorLog = vi.spyOn(stack.als.log, 'error');
    const traceId = newTraceId();
    const res = await getParties(stack.als.url, 'MSISDN/46700000001', traceId);
    expect(res.status).toBe(500);
    expect(errorCodeOf(res.body)).toBe('2001');
    expect(await series('als_error_answers_total', 'errorCode="2001",status="500"')).toBe(1);
    const lines = logged(errorLog).filter(([fields]) => fields.traceId === traceId);
    expect(lines).toHaveLength(1);
    expect(lines[0]?.[0]).toMatchObject({ errorCode: '2001', status: 500, method: 'GET' });
    expect(String(lines[0]?.[0].cause)).toContain('payerfsp');
  });

  it("the ALS's own error callback and a forwarded one: counted by code and origin, logged with the trace id", async () => {
    const ledger = outage();
    stack = await startStack({ sims: { adminFaults: ledger.faults }, config: { participantCacheTtlMs: 0 } });
    const warnLog = vi.spyOn(stack.als.log, 'warn');
    const warm = newTraceId();
    expect((await getParties(stack.als.url, 'MSISDN/46700000002', warm)).status).toBe(202);
    expect((await stack.sims.payer?.waitForCallback(warm, 5_000))?.kind).toBe('success');

    // A payee's own error callback, forwarded to the payer.
    const forwarded = newTraceId();
    const body = '{"errorInformation":{"errorCode":"3204","errorDescription":"Party not found"}}';
    const put = await call(
      `${stack.als.url}/parties/MSISDN/46700000009/error`,
      'PUT',
      callbackHeaders(forwarded),
      body,
    );
    expect(put.status).toBe(200);
    expect((await stack.sims.payer?.waitForCallback(forwarded, 5_000))?.kind).toBe('error');

    // central-ledger down with the endpoints cached: 202, then the ALS's own 2001 error callback.
    ledger.state.down = true;
    const traceId = newTraceId();
    expect((await getParties(stack.als.url, 'MSISDN/46700000003', traceId)).status).toBe(202);
    expect(errorCodeOf((await stack.sims.payer?.waitForCallback(traceId, 5_000))?.body ?? '')).toBe('2001');
    await settled(stack.als);

    expect(await series('als_error_callbacks_total', 'errorCode="2001",origin="hub",result="sent"')).toBe(1);
    expect(await series('als_error_callbacks_total', 'errorCode="3204",origin="fsp",result="sent"')).toBe(1);
    const own = logged(warnLog).find(([fields]) => fields.traceId === traceId);
    expect(own?.[0]).toMatchObject({ errorCode: '2001', origin: 'hub', destination: 'payerfsp' });
    expect(String(own?.[0].cause)).toContain('central-ledger');
    expect(logged(warnLog).find(([fields]) => fields.traceId === forwarded)?.[0]).toMatchObject({
      errorCode: '3204',
      origin: 'fsp',
    });
  });

  it('bad input at each edge: a header check, an unknown route and unparsable HTTP are counted by code', async () => {
    stack = await startStack();
    const warnLog = vi.spyOn(stack.als.log, 'warn');
    const traceId = newTraceId();
    const { 'fspiop-source': _, ...noSource } = lookupHeaders(traceId);
    expect((await call(`${stack.als.url}/parties/MSISDN/46700000001`, 'GET', noSource)).status).toBe(400);
    expect((await call(`${stack.als.url}/nowhere`, 'GET', lookupHeaders(newTraceId()))).status).toBe(404);
    const { port } = new URL(stack.als.url);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () =>
        socket.write('GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'),
      );
      let answer = '';
      socket.on('data', (chunk) => {
        answer += chunk.toString();
      });
      socket.on('close', () => resolve(answer));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400/);
    expect(await series('als_error_answers_total', 'errorCode="3102",status="400"')).toBe(1);
    expect(await series('als_error_answers_total', 'errorCode="3002",status="404"')).toBe(1);
    expect(await series('als_error_answers_total', 'errorCode="3101",status="400"')).toBe(1);
    expect(logged(warnLog).find(([fields]) => fields.traceId === traceId)?.[0]).toMatchObject({
      errorCode: '3102',
      status: 400,
      url: '/parties/MSISDN/46700000001',
    });
  });
});

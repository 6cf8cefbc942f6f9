import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callbackHeaders, lookupHeaders, newTraceId, type Stack, startStack } from './helpers.js';
import { expectFspiopError, head, rawExchange } from './raw-client.js';

/**
 * A body sent slower than the request timeout, as raw bytes on a socket: answered 408 and closed, and a good
 * lookup still completes after it. It waits on the timer, so it is not in the unit lane; the other raw-socket
 * cases are (bad-input.unit.test.ts).
 */
const requestTimeoutMs = 1_000;
let stack: Stack;
let port: number;
beforeAll(async () => {
  stack = await startStack({ config: { requestTimeoutMs } });
  port = Number(new URL(stack.als.url).port);
});
afterAll(() => stack?.close());

function lookupHead(path: string, traceId: string, extra: Record<string, string> = {}, version = 'HTTP/1.1') {
  return head(`GET ${path} ${version}`, { host: 'als', ...lookupHeaders(traceId), ...extra });
}

/** A valid lookup over a fresh raw connection: 202, then the payee's PUT reaches the payer. */
async function goodLookupCompletes(): Promise<void> {
  const traceId = newTraceId();
  const { responses } = await rawExchange(port, [lookupHead('/parties/MSISDN/46799990001', traceId)]);
  expect(responses[0]?.status).toBe(202);
  const callback = await stack.sims.payer?.waitForCallback(traceId, 5_000);
  expect(callback?.kind).toBe('success');
}

describe('raw-socket bad input: a slow body', () => {
  it('answers 408 3000 to a body sent one byte at a time slower than the request timeout, and closes', async () => {
    const body = '{"party":{"partyIdInfo":{"partyIdType":"MSISDN","partyIdentifier":"1"}}}';
    const headers = head('PUT /parties/MSISDN/1 HTTP/1.1', {
      host: 'als',
      ...callbackHeaders(newTraceId()),
      'content-length': String(body.length),
    });
    const { responses, closed, elapsedMs } = await rawExchange(port, [headers, ...body.split('')], {
      gapMs: 200,
      timeoutMs: 8_000,
      // Wait for the close as well as the answer.
      expected: 2,
    });
    expectFspiopError(responses[0], 408, '3000');
    expect(closed).toBe(true);
    expect(elapsedMs).toBeLessThan(requestTimeoutMs + 2_500);
    await goodLookupCompletes();
  });
});

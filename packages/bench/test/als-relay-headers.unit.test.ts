import { describe, expect, it } from 'vitest';
import { toOracle, toPayee, toPayer } from '../src/als/relay-headers.js';
import { lookupRequest } from '../src/als/request.js';

// The relay floor must move the bytes the ALS moves: on each exchange the headers the ALS writes at its
// defaults (packages/als/src/discovery/headers.ts oracleHeaders, forwardHeaders with withSpan).

const request = lookupRequest('46740000001', { version: '1.1', source: 'payerfsp', now: 1_700_000_000_000 });
const incoming: Record<string, string> = { host: '127.0.0.1:4002', connection: 'keep-alive', ...request.headers };

describe('the relay floor headers', () => {
  it('asks the oracle with the requester headers and the hub as FSPIOP-Destination, framing dropped', () => {
    const out = toOracle(incoming);
    expect(out).toEqual({ ...request.headers, 'fspiop-destination': 'Hub' });
    expect(toOracle({ ...incoming, 'fspiop-destination': 'payeefsp' })['fspiop-destination']).toBe('payeefsp');
  });

  it('sends the payee the lookup with its FSP as destination and a span of its own', () => {
    const out = toPayee(incoming, 'payeefsp1');
    const parent = request.headers.traceparent as string;
    expect(out['fspiop-destination']).toBe('payeefsp1');
    expect(out.traceparent).toMatch(/^00-[\da-f]{32}-[\da-f]{16}-01$/);
    expect(out.traceparent?.slice(0, 36)).toBe(parent.slice(0, 36));
    expect(toPayee(incoming, 'payeefsp1').traceparent).not.toBe(out.traceparent);
    const spanId = (out.traceparent as string).slice(36, 52);
    expect(out.tracestate).toBe(`acmevendor=${btoa(`{"spanId":"${spanId}"}`)},${request.headers.tracestate}`);
    expect(Object.keys(out).sort()).toEqual([...Object.keys(request.headers), 'fspiop-destination'].sort());
  });

  it('gives the payee a tracestate of its own span alone when the request had none', () => {
    const { tracestate: _none, ...bare } = incoming;
    expect(toPayee(bare, 'payeefsp1').tracestate).toMatch(/^acmevendor=[\w+/=]+$/);
  });

  it('passes the callback on without Accept', () => {
    const out = toPayer({ ...incoming, 'fspiop-destination': 'payerfsp' });
    expect(out.accept).toBeUndefined();
    expect(out.host).toBeUndefined();
    expect(out['fspiop-destination']).toBe('payerfsp');
  });
});

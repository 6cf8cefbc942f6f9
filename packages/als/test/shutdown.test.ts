import { describe, expect, it } from 'vitest';
import { call, lookupHeaders, newTraceId, startStack } from './helpers.js';

describe('graceful shutdown', () => {
  it('finishes the forward of an accepted lookup before close() resolves', async () => {
    // The payee takes 800 ms to answer the forwarded GET: close() must wait for it, not cut it.
    const stack = await startStack({ sims: { payeeFaults: { latencyMs: 800 } } });
    try {
      const res = await call(
        `${stack.als.url}/parties/MSISDN/46760000001`,
        'GET',
        lookupHeaders(newTraceId(), { 'fspiop-destination': 'payeefsp1' }),
      );
      expect(res.status).toBe(202);
      await stack.als.close();
      expect(stack.sims.payee.stats.lookups).toBe(1);
      const metrics = await stack.als.registry.metrics();
      expect(metrics).not.toMatch(/event="forward_failed"\} [1-9]/);
    } finally {
      await stack.close();
    }
  });

  it('answers HEAD on a lookup route with 404, starting no lookup', async () => {
    const stack = await startStack();
    try {
      const res = await stack.als.app.inject({ method: 'HEAD', url: '/parties/MSISDN/1', headers: lookupHeaders('a') });
      expect(res.statusCode).toBe(404);
      expect(stack.sims.oracle.stats.get).toBe(0);
    } finally {
      await stack.close();
    }
  });
});

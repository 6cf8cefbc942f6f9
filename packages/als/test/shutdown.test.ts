import type { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { call, lookupHeaders, newTraceId, startStack } from './helpers.js';

interface Sample {
  readonly value: number;
  readonly labels: Record<string, string | number | undefined>;
  readonly metricName?: string;
}

/** A metric object of the registry: its values stay readable after the registry drops it. */
function metricOf(registry: Registry, name: string): { get(): Promise<{ values: Sample[] }> } {
  const metric = registry.getSingleMetric(name);
  if (!metric) throw new Error(`no metric ${name}`);
  return metric as unknown as { get(): Promise<{ values: Sample[] }> };
}

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
      // close() ends by clearing the registry: hold the two metrics now and read their values after it.
      const events = metricOf(stack.als.registry, 'als_events_total');
      const stages = metricOf(stack.als.registry, 'als_stage_duration_seconds');
      await stack.als.close();
      expect(stack.sims.payee.stats.lookups).toBe(1);
      // The forward finished (its stage was observed once) and did not fail: had close() cut it, the send would
      // have failed (forward_failed) or still be pending (no forward observation yet).
      const forwards = (await stages.get()).values.find(
        (v) => v.metricName === 'als_stage_duration_seconds_count' && v.labels.stage === 'forward',
      );
      expect(forwards?.value).toBe(1);
      const failed = (await events.get()).values.filter((v) => v.labels.event === 'forward_failed');
      expect(failed.reduce((sum, v) => sum + v.value, 0)).toBe(0);
    } finally {
      await stack.close();
    }
  });

  it('answers HEAD on a lookup route with 405 (its methods in Allow), starting no lookup', async () => {
    const stack = await startStack();
    try {
      const res = await stack.als.app.inject({ method: 'HEAD', url: '/parties/MSISDN/1', headers: lookupHeaders('a') });
      expect(res.statusCode).toBe(405);
      expect(res.headers.allow).toBe('get,put');
      expect(stack.sims.oracle.stats.get).toBe(0);
    } finally {
      await stack.close();
    }
  });
});

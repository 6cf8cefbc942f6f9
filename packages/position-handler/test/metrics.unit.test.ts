import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createMetrics, ResultTally } from '../src/observe/metrics.js';

// What each report of the runner records, in both sets (ours and central-ledger's names), read back from
// the registry's Prometheus text as /metrics serves it. The handler-level checks are in
// dashboard-metrics.test.ts and actions.test.ts; these pin the figures each report carries.

const tally = (...entries: [string, 'applied' | 'rejected' | 'replayed' | 'failed' | 'skipped', number][]) => {
  const counts = new ResultTally();
  for (const [action, result, count] of entries) counts.add(action, result, count);
  return counts;
};

describe('position metrics reports', () => {
  it("records a chunk's results in both sets, each message timed with its own chunk's transaction and build", async () => {
    const registry = new Registry();
    const metrics = createMetrics(registry);
    metrics.transactionCommitted({ lock: 0.02, plan: 0.01, write: 0.03 }, 4);
    // Another partition's transaction commits before this chunk's notifications are built: it must not
    // lend its time to this chunk's messages.
    metrics.transactionCommitted({ lock: 3, plan: 0, write: 0 }, 1);
    metrics.resultsBuilt(tally(['prepare', 'applied', 3], ['prepare', 'rejected', 1]), 0.06, 0.02);
    const text = await registry.metrics();
    expect(text).toMatch(/^position_messages_total\{action="prepare",result="applied"\} 3$/m);
    expect(text).toMatch(/^position_messages_total\{action="prepare",result="rejected"\} 1$/m);
    expect(text).toMatch(/^position_stage_seconds_count\{stage="write"\} 2$/m);
    expect(text).toMatch(/^position_stage_seconds_count\{stage="build"\} 1$/m);
    expect(text).toMatch(/^position_batch_size_sum 5$/m);
    // 0.06 + 0.02 s: in the 0.1 bucket, not in 0.05 (and not 3 s from the other transaction).
    const labels = 'success="true",action="prepare",serviceName="central-service"';
    expect(text).toMatch(new RegExp(`^moja_cl_transfer_position_bucket\\{${labels},le="0.05"\\} 0$`, 'm'));
    expect(text).toMatch(new RegExp(`^moja_cl_transfer_position_bucket\\{${labels},le="0.1"\\} 3$`, 'm'));
    expect(text).toMatch(
      /^moja_cl_transfer_position_count\{success="false",action="prepare",serviceName="central-service"\} 1$/m,
    );
    expect(text).toMatch(/^moja_cl_transfer_position_batch_count\{success="true",serviceName="central-service"\} 2$/m);
  });

  it('records unreadable messages (bad input: no envelope, no transfer id) with the decode time and no success', async () => {
    const registry = new Registry();
    const metrics = createMetrics(registry);
    metrics.chunkDecoded(0.004, tally(['unknown', 'skipped', 2], ['prepare', 'failed', 1]));
    metrics.chunkDecoded(0.001, undefined);
    const text = await registry.metrics();
    expect(text).toMatch(/^position_messages_total\{action="unknown",result="skipped"\} 2$/m);
    expect(text).toMatch(/^position_messages_total\{action="prepare",result="failed"\} 1$/m);
    expect(text).toMatch(/^position_stage_seconds_count\{stage="decode"\} 2$/m);
    expect(text).toMatch(
      /^moja_cl_transfer_position_bucket\{action="unknown",serviceName="central-service",le="0.01"\} 2$/m,
    );
    expect(text).toMatch(
      /^moja_cl_transfer_position_count\{success="false",action="prepare",serviceName="central-service"\} 1$/m,
    );
    // No transaction: no per-batch observation.
    expect(text).not.toMatch(/^moja_cl_transfer_position_batch_count/m);
  });

  it('puts the fspId label between success and action when the one-at-a-time label set is asked for', async () => {
    const registry = new Registry();
    const metrics = createMetrics(registry, { prefix: 'moja_cl_', defaultLabels: { serviceName: 'cs' }, fspId: '*' });
    metrics.resultsBuilt(tally(['bulk-prepare', 'applied', 1]), 0.01, 0.001);
    metrics.transactionCommitted({ lock: 0.01, plan: 0, write: 0 }, 1);
    const text = await registry.metrics();
    expect(text).toMatch(
      /^moja_cl_transfer_position_count\{success="true",fspId="\*",action="bulk-prepare",serviceName="cs"\} 1$/m,
    );
    // handlerBatch.js's per-batch histogram has no fspId, whatever the setting.
    expect(text).toMatch(/^moja_cl_transfer_position_batch_count\{success="true",serviceName="cs"\} 1$/m);
  });

  it('records none of the original names when they are off, and ours the same', async () => {
    const registry = new Registry();
    const metrics = createMetrics(registry, false);
    metrics.resultsBuilt(tally(['commit', 'replayed', 2]), 0.01, 0.001);
    metrics.notificationsAcknowledged(0.003);
    metrics.offsetCommitted(0.002);
    metrics.consumerLag('topic-a', 3, 7);
    metrics.transactionRetried('transient');
    metrics.notifyRetried('transient');
    const text = await registry.metrics();
    expect(text).not.toMatch(/^moja_cl_/m);
    expect(text).toMatch(/^position_messages_total\{action="commit",result="replayed"\} 2$/m);
    expect(text).toMatch(/^position_stage_seconds_count\{stage="produce"\} 1$/m);
    expect(text).toMatch(/^position_stage_seconds_count\{stage="commit"\} 1$/m);
    expect(text).toMatch(/^position_consumer_lag\{topic="topic-a",partition="3"\} 7$/m);
    expect(text).toMatch(/^position_db_retries_total\{class="transient"\} 1$/m);
    expect(text).toMatch(/^position_notify_retries_total\{class="transient"\} 1$/m);
  });
});

import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { parseSwitchArgs, roundOrder, switchMetrics } from '../src/commands/switch.js';
import { table } from '../src/report/figures.js';
import { LatencyRecorder } from '../src/report/latency.js';
import { runArrivals } from '../src/switch/arrivals.js';
import { benchSecret } from '../src/switch/fulfilment.js';
import { startPayeeFsp } from '../src/switch/payee.js';
import { PayerFsp } from '../src/switch/payer.js';
import { coresPer1000, microsPerTransfer, type SwitchBenchRun, summarise } from '../src/switch/results.js';
import { switchTables } from '../src/switch/tables.js';
import { runFlow } from '../src/switch/transfer-flow.js';
import { gateTopics, validityGate } from '../src/switch/validity.js';

// bench:switch's pieces in process: the arithmetic of its figures, its load model, and its FSPs and one
// iteration over loopback HTTP against a stand-in switch that forwards as the ALS and ml-api-adapter do.

const latency = (p: number) => ({ count: 10, avg: p, min: p / 2, med: p, max: p * 2, p90: p, p95: p, p99: p });
function runOf(stack: SwitchBenchRun['stack'], round: number, cpu: Record<string, number>): SwitchBenchRun {
  // Every process idles at a tenth of its cost per transfer here.
  const marginal = Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, v * 0.9]));
  return {
    stack,
    round,
    offeredPerSecond: 20,
    durationS: 30,
    started: 600,
    dropped: 0,
    completed: 600,
    failed: 0,
    failures: {},
    completedPerSecond: 19.8,
    discovery: latency(10),
    transfer: latency(200),
    e2e: latency(210),
    gate: validityGate({ prepare: 600, fulfil: 600, notification: 1200 }),
    cpuMicrosPerTransfer: cpu,
    idleCores: {},
    marginalMicrosPerTransfer: marginal,
    coresPer1000: coresPer1000(cpu),
    marginalCoresPer1000: coresPer1000(marginal),
  };
}

describe('figures', () => {
  it('CPU per transfer is cores × seconds / transfers, and cores per 1,000 transfers/s its thousandth', () => {
    // 0.5 cores for 10 s over 1,000 transfers: 5 ms each; 1,000 of them a second would take 5 cores.
    const micros = microsPerTransfer({ als: 0.5, als_admin: 0.01, position: 0.2 }, 10, 1000);
    expect(micros).toEqual({ als: 5000, als_admin: 100, position: 2000 });
    expect(coresPer1000(micros)).toEqual({ als: 5.1, position: 2 });
    expect(microsPerTransfer({ als: 1 }, 10, 0)).toEqual({ als: 0 });
    // Above idle: 0.1 of the 0.5 cores went to polling with no load; a process busier idle than loaded counts 0.
    expect(microsPerTransfer({ als: 0.5, position: 0.1 }, 10, 1000, { als: 0.1, position: 0.2 })).toEqual({
      als: 4000,
      position: 0,
    });
  });

  it('the validity gate holds at fulfil/prepare 1.0 and notification/prepare 2.0, and only there', () => {
    expect(validityGate({ prepare: 100, fulfil: 100, notification: 200 }).valid).toBe(true);
    expect(validityGate({ prepare: 100, fulfil: 99, notification: 200 })).toMatchObject({
      valid: false,
      fulfilPerPrepare: 0.99,
    });
    expect(validityGate({ prepare: 100, fulfil: 100, notification: 199 }).valid).toBe(false);
    expect(validityGate({ prepare: 0, fulfil: 0, notification: 0 }).valid).toBe(false);
    expect(gateTopics('p-')).toEqual({
      prepare: 'p-topic-transfer-prepare',
      fulfil: 'p-topic-transfer-fulfil',
      notification: 'p-topic-notification-event',
    });
  });

  it('summarises each stack over its runs and how many times fewer cores ours needs', () => {
    const runs = [
      runOf('originals', 1, { als: 8000, als_admin: 400, position: 6000 }),
      runOf('ours', 1, { als: 1000, position: 1000 }),
      runOf('ours', 2, { als: 1200, position: 1000 }),
      runOf('originals', 2, { als: 8000, als_admin: 0, position: 6000 }),
    ];
    const summary = summarise(runs);
    expect(summary.stacks.map((s) => [s.stack, s.runs, s.coresPer1000])).toEqual([
      ['originals', 2, { als: 8.2, position: 6 }],
      ['ours', 2, { als: 1.1, position: 1 }],
    ]);
    expect(summary.alsCoresRatio).toBeCloseTo(8.2 / 1.1, 6);
    expect(summary.positionCoresRatio).toBe(6);
    expect(summary.stacks[1]?.marginalCoresPer1000.als).toBeCloseTo(0.99, 6);
    expect(summary.positionMarginalCoresRatio).toBeCloseTo(6, 6);
    expect(summary.allValid).toBe(true);
    // One stack alone (--stacks): its figures, and no ratio to give.
    const alone = summarise(runs.filter((r) => r.stack === 'ours'));
    expect(alone.stacks.map((s) => s.stack)).toEqual(['ours']);
    expect(alone.alsCoresRatio).toBeUndefined();
    const aloneText = switchTables({ runs: runs.filter((r) => r.stack === 'ours'), summary: alone }, table);
    expect(aloneText).toContain('| ours (mojafast ALS and position handler) | 2 |');
    expect(aloneText).not.toContain('originals / ours');
    expect(summarise([{ ...runOf('ours', 1, {}), failed: 1 }]).allValid).toBe(false);
    expect(summarise([{ ...runOf('ours', 1, {}), dropped: 1 }]).allValid).toBe(false);

    const text = switchTables({ runs, summary }, table);
    expect(text).toContain('| 1 | originals | 20 | 19.8 | 600 (0, 0) | 10.0 / 10.0 / 10.0 / 10.0 |');
    expect(text).toContain('| 1.00 | 2.00 | yes |');
    expect(text).toContain('| 1 | ours | 1000 (900) | - | 1000 (900) |');
    expect(text).toContain(
      '| originals / ours (how many times fewer cores ours needs) |  |  |  | 7.5× | 7.5× | 6.0× | 6.0× |',
    );
  });

  it('gives k6 metrics per stack: trends, completed transfers, checks and valid runs', () => {
    const sinks = {
      originals: { discovery: new LatencyRecorder(), transfer: new LatencyRecorder(), e2e: new LatencyRecorder() },
      ours: { discovery: new LatencyRecorder(), transfer: new LatencyRecorder(), e2e: new LatencyRecorder() },
    };
    sinks.ours.e2e.record(12);
    const metrics = switchMetrics([{ ...runOf('ours', 1, {}), failed: 3, dropped: 1 }], sinks);
    expect([...metrics.keys()]).toEqual([
      'ours_discovery',
      'ours_transfer',
      'ours_e2e',
      'ours_transfers',
      'ours_checks',
      'ours_valid_runs',
    ]);
    expect(metrics.get('ours_checks')).toEqual({ type: 'rate', passes: 600, fails: 4 });
    expect(metrics.get('ours_transfers')).toMatchObject({ type: 'counter', count: 600 });
    expect(metrics.get('ours_e2e')).toMatchObject({ type: 'trend', values: { count: 1 } });
  });
});

describe('command line', () => {
  it('takes its defaults and flags, and refuses what it cannot run', () => {
    expect(parseSwitchArgs([])).toMatchObject({
      rate: 20,
      durationS: 30,
      warmupS: 5,
      idleS: 5,
      rounds: 2,
      alsConfig: 'chart',
      alsPort: 41400,
    });
    expect(
      parseSwitchArgs(['--rate', '50', '--duration', '10', '--warmup', '0', '--als-config', 'default']),
    ).toMatchObject({ rate: 50, durationS: 10, warmupS: 0, alsConfig: 'default' });
    expect(() => parseSwitchArgs(['--rate', '0'])).toThrow('--rate must be a positive integer');
    expect(() => parseSwitchArgs(['--als-config', 'helm'])).toThrow('--als-config must be one of');
    expect(() => parseSwitchArgs(['--warmup', '1.5'])).toThrow('--warmup must be a whole number');
    expect(parseSwitchArgs([]).stacks).toEqual(['originals', 'ours']);
    expect(parseSwitchArgs(['--stacks', 'ours']).stacks).toEqual(['ours']);
    expect(() => parseSwitchArgs(['--stacks', 'mine'])).toThrow('--stacks must be one of both, ours, originals');
  });

  it('alternates which stack goes first', () => {
    expect([roundOrder(1), roundOrder(2), roundOrder(3)]).toEqual([
      ['originals', 'ours'],
      ['ours', 'originals'],
      ['originals', 'ours'],
    ]);
    expect([roundOrder(1, ['ours']), roundOrder(2, ['originals'])]).toEqual([['ours'], ['originals']]);
  });
});

describe('load model', () => {
  it('starts iterations at the offered rate and drops those due while the cap is in flight', async () => {
    const startedAt: number[] = [];
    const outcome = await runArrivals({
      rate: 200,
      durationMs: 100,
      maxInFlight: 5,
      iteration: async (i) => {
        startedAt[i] = performance.now();
        await new Promise((r) => setTimeout(r, 40));
      },
    });
    // 20 arrivals 5 ms apart, each 40 ms long: about 8 in flight at once, so some are dropped at a cap of 5.
    expect(outcome.started + outcome.dropped).toBe(20);
    expect(outcome.dropped).toBeGreaterThan(0);
    expect(outcome.started).toBeGreaterThanOrEqual(5);
    const free = await runArrivals({ rate: 200, durationMs: 50, maxInFlight: 100, iteration: async () => {} });
    expect(free).toEqual({ started: 10, dropped: 0 });
  });
});

describe('the FSPs and one iteration over loopback', () => {
  const servers: Server[] = [];
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of closers.splice(0)) await c();
    for (const s of servers.splice(0)) {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
  });

  async function serve(handler: (req: IncomingMessage, body: string) => Promise<number>): Promise<string> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        handler(req, Buffer.concat(chunks).toString('utf8')).then(
          (status) => res.writeHead(status).end(),
          () => res.writeHead(500).end(),
        );
      });
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  const forward = (url: string, req: IncomingMessage, body: string) =>
    request(url, {
      method: req.method as 'GET' | 'PUT' | 'POST',
      headers: { 'content-type': String(req.headers['content-type'] ?? 'application/json') },
      body: req.method === 'GET' ? undefined : body,
    }).then((r) => r.body.dump());

  it('a lookup then a transfer: the payee answers the party and fulfils with the condition the payer made', async () => {
    const payer = await PayerFsp.start();
    closers.push(() => payer.close());
    const seen: string[] = [];
    let payeeUrl = '';
    const fulfilled: { fulfilment: string; transferState: string }[] = [];
    // The stand-in switch: GET /parties to the payee and its PUT back to the payer, as the ALS routes them;
    // POST /transfers to the payee and its PUT to the payer, as ml-api-adapter's notifications do.
    const sw = await serve(async (req, body) => {
      seen.push(`${req.method} ${req.url?.split('/').slice(0, 2).join('/')} ${req.headers['fspiop-source']}`);
      if (req.method === 'GET') {
        setImmediate(() => forward(`${payeeUrl}${req.url}`, req, body));
        return 202;
      }
      if (req.method === 'POST') {
        setImmediate(() => forward(`${payeeUrl}/transfers`, req, body));
        prepared.set((JSON.parse(body) as { transferId: string; condition: string }).transferId, body);
        return 202;
      }
      const id = req.url?.split('/')[2] ?? '';
      if (req.url?.startsWith('/transfers/')) {
        const put = JSON.parse(body) as { fulfilment: string; transferState: string };
        fulfilled.push(put);
        const condition = (JSON.parse(prepared.get(id) ?? '{}') as { condition?: string }).condition;
        const digest = createHash('sha256').update(Buffer.from(put.fulfilment, 'base64url')).digest('base64url');
        if (digest !== condition) {
          setImmediate(() =>
            forward(`${payer.url}/transfers/${id}/error`, req, '{"errorInformation":{"errorCode":"2001"}}'),
          );
          return 200;
        }
      }
      setImmediate(() => forward(`${payer.url}${req.url}`, req, body));
      return 200;
    });
    const prepared = new Map<string, string>();
    const payee = await startPayeeFsp({ name: 'payeefsp1', alsUrl: sw, frontUrl: sw, seed: 's1' });
    closers.push(() => payee.close());
    payeeUrl = payee.url;
    const ctx = {
      alsUrl: sw,
      frontUrl: sw,
      payer,
      payerName: 'payerfsp',
      payeeName: 'payeefsp1',
      seed: 's1',
      timeoutMs: 5000,
    };
    const outcome = await runFlow(ctx, '46100000001');
    expect(outcome).toMatchObject({ ok: true });
    if (outcome.ok) expect(outcome.e2eMs).toBeCloseTo(outcome.discoveryMs + outcome.transferMs, 6);
    expect(seen).toEqual([
      'GET /parties payerfsp',
      'PUT /parties payeefsp1',
      'POST /transfers payerfsp',
      'PUT /transfers payeefsp1',
    ]);
    expect(fulfilled).toEqual([expect.objectContaining({ transferState: 'COMMITTED' })]);
    expect(payee.stats).toMatchObject({ lookups: 1, transfers: 1, failures: {} });

    // Another seed than the payee's: its fulfilment does not match, and the payer gets the error callback.
    const wrong = await runFlow({ ...ctx, seed: 's2' }, '46100000002');
    expect(wrong).toEqual({ ok: false, stage: 'transfer', reason: 'transfer error callback 2001' });
    expect(payer.unexpected).toBe(0);
  });

  it('a step without its callback fails at its deadline, and an ALS refusal is reported with its status', async () => {
    const payer = await PayerFsp.start();
    closers.push(() => payer.close());
    const silent = await serve(async () => 202);
    const ctx = { alsUrl: silent, frontUrl: silent, payer, payerName: 'p', payeeName: 'q', seed: 's', timeoutMs: 100 };
    expect(await runFlow(ctx, '1')).toEqual({ ok: false, stage: 'discovery', reason: 'no party callback in time' });
    const refusing = await serve(async () => 400);
    expect(await runFlow({ ...ctx, alsUrl: refusing }, '2')).toEqual({
      ok: false,
      stage: 'discovery',
      reason: 'ALS answered GET /parties with 400',
    });
    expect(PayerFsp.keyOf('/parties/MSISDN/123/error')).toEqual({ key: 'party 123', error: true });
    expect(PayerFsp.keyOf('/transfers/abc')).toEqual({ key: 'transfer abc', error: false });
    expect(PayerFsp.keyOf('/quotes/abc')).toBeUndefined();
    // A callback nobody waits for is counted, not fatal.
    await request(`${payer.url}/transfers/nobody`, { method: 'PUT', body: '{}' }).then((r) => r.body.dump());
    expect(payer.unexpected).toBe(1);
  });

  it('the payee counts a refused PUT with its cause', async () => {
    const refusing = await serve(async () => 500);
    const payee = await startPayeeFsp({ name: 'payeefsp1', alsUrl: refusing, frontUrl: refusing, seed: 's' });
    closers.push(() => payee.close());
    await request(`${payee.url}/parties/MSISDN/1`, { headers: { 'fspiop-source': 'payerfsp' } }).then((r) =>
      r.body.dump(),
    );
    const id = '0a3c4d7e-1111-4222-8333-944445555666';
    const body = JSON.stringify({ transferId: id, payerFsp: 'payerfsp', payeeFsp: 'payeefsp1' });
    await request(`${payee.url}/transfers`, { method: 'POST', body }).then((r) => r.body.dump());
    await expect
      .poll(() => Object.keys(payee.stats.failures).sort())
      .toEqual([
        'PUT /parties: ALS answered PUT /parties with 500',
        expect.stringMatching(/^PUT \/transfers: ml-api-adapter answered PUT \/transfers\/0a3c.* with 500/),
      ]);
    expect(benchSecret('s', id)).toEqual(benchSecret('s', id));
    expect(benchSecret('s', id).fulfilment).not.toBe(benchSecret('t', id).fulfilment);
  });
});

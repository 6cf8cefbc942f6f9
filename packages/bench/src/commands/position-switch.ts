import { join } from 'node:path';
import {
  CentralLedgerAdmin,
  completedTimestamp,
  fulfilMessage,
  newSecret,
  onboardDfsp,
  prepareMessage,
  type Received,
  type RunningProcess,
  type Secret,
  SwitchDriver,
  startOurPositionHandler,
  type TransferBody,
  transferBody,
  writeSwitchConfig,
} from '@mojafast/switch';
import { loadInfraSettings, type PrivateCentralLedger, startCentralLedger } from '@mojafast/testkit';
import { writeJson } from '../report/json.js';
import { LatencyRecorder, type LatencySummary } from '../report/latency.js';
import { markdownTable } from '../report/table.js';
import { CpuMeter } from '../system/cpu.js';
import { progress } from './outcome.js';

/**
 * `bench:position --switch`: transfers end to end through central-ledger 19.5.5's own prepare and fulfil
 * handlers (a private switch, testkit's startCentralLedger), sent as ml-api-adapter sends them
 * (packages/switch), once with each position handler per round, alternating who goes first. A run onboards
 * its own payer and payee, produces N prepares (a burst, or paced at --rate), waits for every prepare
 * notification, then the N commits and their notifications. Reported: transfers committed per second (first
 * prepare sent to last commit notification), p99 from a prepare's acknowledgement by the broker to its
 * notification's CreateTime, and the CPU of the position process and of central-ledger's handlers process.
 */
interface SwitchRun {
  readonly handler: 'original' | 'ours';
  readonly round: number;
  readonly transfers: number;
  readonly committedPerSecond: number;
  readonly prepareToNotification: LatencySummary;
  readonly commitToNotification: LatencySummary;
  readonly cpuMicrosPerTransfer: Record<string, number>;
  readonly failed: number;
}

async function pidFile(file: string): Promise<number | undefined> {
  const { readFile } = await import('node:fs/promises');
  const pid = Number((await readFile(file, 'utf8').catch(() => '')).trim());
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

async function until(what: string, done: () => boolean, stallMs: number, progressOf: () => number): Promise<void> {
  let last = progressOf();
  let lastChange = Date.now();
  while (!done()) {
    await new Promise((r) => setTimeout(r, 20));
    const now = progressOf();
    if (now !== last) {
      last = now;
      lastChange = Date.now();
    } else if (Date.now() - lastChange > stallMs) {
      throw new Error(`${what}: no progress for ${stallMs} ms (${now} so far)`);
    }
  }
}

async function runOnce(
  cl: PrivateCentralLedger,
  admin: CentralLedgerAdmin,
  driver: SwitchDriver,
  handler: 'original' | 'ours',
  round: number,
  n: number,
  rate: number,
): Promise<SwitchRun> {
  const tag = `b${round}${handler === 'ours' ? 'o' : 'c'}${Date.now().toString(36).slice(-4)}`;
  const payer = `${tag}pr`;
  const payee = `${tag}pe`;
  const plenty = { USD: { netDebitCap: String(n * 10), fundsIn: String(n * 10) } };
  await onboardDfsp(admin, { name: payer, currencies: plenty, callbackBase: 'http://127.0.0.1:9/fsp' });
  await onboardDfsp(admin, { name: payee, currencies: plenty, callbackBase: 'http://127.0.0.1:9/fsp' });
  const runDir = cl.env.CENTRAL_LEDGER_RUN_DIR as string;
  let ours: RunningProcess | undefined;
  if (handler === 'ours') {
    const config = join(runDir, 'bench-central-ledger.json');
    writeSwitchConfig(cl, config);
    ours = await startOurPositionHandler(config);
  } else {
    await cl.startOriginalPosition();
  }
  try {
    const positionPid = handler === 'ours' ? ours?.child.pid : await pidFile(join(runDir, 'position.pid'));
    const handlersPid = await pidFile(join(runDir, 'handlers.pid'));
    const pids = new Map<string, number>();
    if (positionPid) pids.set('position', positionPid);
    if (handlersPid) pids.set('central-ledger-handlers', handlersPid);
    pids.set('bench', process.pid);
    const transfers: { body: TransferBody; secret: Secret }[] = [];
    for (let i = 0; i < n; i++) {
      const secret = newSecret();
      transfers.push({
        body: transferBody({ payer, payee, currency: 'USD', amount: '1', expiresInMs: 600_000 }, secret),
        secret,
      });
    }
    const index = new Map(transfers.map((t, i) => [t.body.transferId, i]));
    const preparedAt: number[] = new Array(n).fill(0);
    const committedAt: number[] = new Array(n).fill(0);
    const prepared = new Set<number>();
    const committed = new Set<number>();
    const prepareLatency = new LatencyRecorder();
    const commitLatency = new LatencyRecorder();
    let failed = 0;
    let seen = driver.received.length;
    const drain = () => {
      for (; seen < driver.received.length; seen++) {
        const r = driver.received[seen] as Received;
        const i = index.get(r.id);
        if (i === undefined) continue;
        const ok = r.value.metadata.event.state.status === 'success';
        if (r.action === 'prepare' && !prepared.has(i)) {
          prepared.add(i);
          if (!ok) failed++;
          prepareLatency.record(r.timestamp - (preparedAt[i] ?? 0));
        } else if (r.action === 'commit' && !committed.has(i)) {
          committed.add(i);
          if (!ok) failed++;
          commitLatency.record(r.timestamp - (committedAt[i] ?? 0));
        }
      }
    };
    const cpu = new CpuMeter(pids);
    await cpu.start();
    const started = Date.now();
    const sendAll = async (
      build: (t: (typeof transfers)[number]) => ReturnType<typeof prepareMessage>,
      at: number[],
    ) => {
      const chunk = rate === 0 ? 500 : Math.max(1, Math.round(rate / 50));
      for (let i = 0; i < n; i += chunk) {
        const slice = transfers.slice(i, i + chunk);
        const acked = await driver.sendMany(slice.map(build));
        for (let j = 0; j < slice.length; j++) at[i + j] = acked;
        drain();
        if (rate > 0) {
          const due = started + ((i + chunk) / rate) * 1000;
          if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
        }
      }
    };
    await sendAll((t) => prepareMessage(driver.prefix, t.body), preparedAt);
    await until(
      'prepare notifications',
      () => {
        drain();
        return prepared.size >= n;
      },
      60_000,
      () => prepared.size,
    );
    await sendAll(
      (t) =>
        fulfilMessage(driver.prefix, t.body.transferId, payee, payer, {
          fulfilment: t.secret.fulfilment,
          completedTimestamp: completedTimestamp(),
          transferState: 'COMMITTED',
        }),
      committedAt,
    );
    await until(
      'commit notifications',
      () => {
        drain();
        return committed.size >= n;
      },
      60_000,
      () => committed.size,
    );
    const lastCommit = Math.max(
      ...driver.received
        .slice(-n * 3)
        .filter((r) => r.action === 'commit' && index.has(r.id))
        .map((r) => r.timestamp),
    );
    const cores = await cpu.stop();
    const wall = (Date.now() - started) / 1000;
    return {
      handler,
      round,
      transfers: n,
      committedPerSecond: n / Math.max((lastCommit - started) / 1000, 1e-3),
      prepareToNotification: prepareLatency.summary(),
      commitToNotification: commitLatency.summary(),
      cpuMicrosPerTransfer: Object.fromEntries(
        Object.entries(cores).map(([k, c]) => [k, Math.round((c * wall * 1e6) / n)]),
      ),
      failed,
    };
  } finally {
    if (ours) await ours.stop();
    else await cl.stopOriginalPosition();
  }
}

function table(runs: readonly SwitchRun[]): string {
  const header = [
    'round',
    'position handler',
    'transfers/s committed',
    'prepare→notification p50 / p99 ms',
    'commit→notification p50 / p99 ms',
    'position CPU µs/transfer',
    'central-ledger handlers CPU µs/transfer',
    'failed',
  ];
  const rows = runs.map((r) => [
    String(r.round),
    r.handler === 'ours' ? 'ours' : "central-ledger's",
    r.committedPerSecond.toFixed(0),
    `${r.prepareToNotification.med.toFixed(0)} / ${r.prepareToNotification.p99.toFixed(0)}`,
    `${r.commitToNotification.med.toFixed(0)} / ${r.commitToNotification.p99.toFixed(0)}`,
    String(r.cpuMicrosPerTransfer.position ?? '-'),
    String(r.cpuMicrosPerTransfer['central-ledger-handlers'] ?? '-'),
    String(r.failed),
  ]);
  const mean = (who: SwitchRun['handler'], f: (r: SwitchRun) => number) => {
    const xs = runs.filter((r) => r.handler === who).map(f);
    return xs.reduce((a, b) => a + b, 0) / Math.max(xs.length, 1);
  };
  rows.push([
    'mean',
    'ours / original',
    `${(mean('ours', (r) => r.committedPerSecond) / mean('original', (r) => r.committedPerSecond)).toFixed(2)}×`,
    `p99 ${(mean('ours', (r) => r.prepareToNotification.p99) / mean('original', (r) => r.prepareToNotification.p99)).toFixed(2)}×`,
    `p99 ${(mean('ours', (r) => r.commitToNotification.p99) / mean('original', (r) => r.commitToNotification.p99)).toFixed(2)}×`,
    `${(mean('ours', (r) => r.cpuMicrosPerTransfer.position ?? 0) / mean('original', (r) => r.cpuMicrosPerTransfer.position ?? 0)).toFixed(2)}×`,
    '',
    '',
  ]);
  return markdownTable(header, rows, { pad: true });
}

export async function switchCommand(o: {
  transfers: number;
  rate: number;
  rounds: number;
  out: string | undefined;
  argv: readonly string[];
}): Promise<void> {
  // --transfers defaults to 100,000 for the topic replay; through central-ledger's own handlers a run of that
  // size takes tens of minutes, so the end-to-end mode takes 1,000 unless told otherwise.
  const n = o.argv.includes('--transfers') ? o.transfers : 1000;
  // central-ledger's handlers log every message at info (its default): at warn, as the position handlers run
  // here, the switch measures its work rather than its logging. infra/svc passes the variable on.
  process.env.CENTRAL_LEDGER_LOG_LEVEL ??= 'warn';
  progress(
    `bench:position --switch: starting a private central-ledger switch (log level ${process.env.CENTRAL_LEDGER_LOG_LEVEL})`,
  );
  const cl = await startCentralLedger();
  const runs: SwitchRun[] = [];
  let driver: SwitchDriver | undefined;
  try {
    const admin = new CentralLedgerAdmin(cl.adminUrl);
    await admin.setUpHub(['USD']);
    driver = await SwitchDriver.start({ brokers: loadInfraSettings().kafka.brokers, prefix: cl.prefix });
    for (let round = 1; round <= o.rounds; round++) {
      const order: SwitchRun['handler'][] = round % 2 === 1 ? ['original', 'ours'] : ['ours', 'original'];
      for (const handler of order) {
        progress(
          `round ${round}: ${n} transfers with ${handler === 'ours' ? 'our' : "central-ledger's"} position handler`,
        );
        runs.push(await runOnce(cl, admin, driver, handler, round, n, o.rate));
      }
    }
  } finally {
    await driver?.stop();
    await cl.stop();
  }
  process.stdout.write(`\n${table(runs)}\n`);
  const out = o.out ?? join('bench-results', `position-switch-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  await writeJson(out, {
    command: ['node packages/bench/dist/cli.js position', ...o.argv].join(' '),
    transfers: n,
    rate: o.rate,
    runs,
  });
  process.stdout.write(`results written to ${out}\n`);
  if (runs.some((r) => r.failed > 0)) {
    process.stderr.write('OUTCOME CHECK FAILED: some transfers were not committed\n');
    process.exitCode = 1;
  }
}

// A quick sanity load, not the benchmark (that is `pnpm bench:als`): simulators and a closed-loop
// driver in this process, `node dist/als` as a child. New MSISDN per lookup, as the Mojaloop harness.
// Usage, after `pnpm build`, from packages/als: node scripts/sanity-load.mjs [concurrency] [seconds]
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { startSimSet } from '@mojafast/sim';
import { Pool } from 'undici';

const concurrency = Number(process.argv[2] ?? 16);
const seconds = Number(process.argv[3] ?? 10);
const warmUpMs = 1_000;
const cpuSeconds = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};

const sims = await startSimSet({ fsps: 10 });
const als = spawn(process.execPath, ['dist/als.js'], {
  env: {
    ...process.env,
    ALS_HOST: '127.0.0.1',
    ALS_PORT: '0',
    ALS_ADMIN_PORT: '0',
    ALS_SWITCH_ENDPOINT: sims.admin.url,
    ALS_ORACLE_URL: sims.oracle.url,
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const ready = JSON.parse(
  await new Promise((resolve) => als.stdout.once('data', (d) => resolve(String(d).split('\n')[0]))),
);
sims.payee.setAlsUrl(ready.url);
const pool = new Pool(ready.url, { connections: concurrency });

const latencies = [];
let failed = 0;
const started = Date.now();
const end = started + warmUpMs + seconds * 1000;
let cpuAtWarm = 0;
setTimeout(() => {
  cpuAtWarm = cpuSeconds(als.pid);
}, warmUpMs);

async function lookUpLoop() {
  while (Date.now() < end) {
    const traceId = randomBytes(16).toString('hex');
    const id = String(46_700_000_000 + Math.floor(Math.random() * 1e9));
    const t0 = performance.now();
    const res = await pool.request({
      path: `/parties/MSISDN/${id}`,
      method: 'GET',
      headers: {
        accept: 'application/vnd.interoperability.parties+json;version=1.1',
        'fspiop-source': 'payerfsp',
        date: new Date().toUTCString(),
        traceparent: `00-${traceId}-0123456789abcdef-01`,
        tracestate: `tx_end2end_start_ts=${Date.now()}`,
      },
    });
    await res.body.dump();
    try {
      const callback = await sims.payer.waitForCallback(traceId, 5_000);
      if (callback.kind !== 'success') failed++;
      else if (Date.now() - started > warmUpMs) latencies.push(performance.now() - t0);
    } catch {
      failed++;
    }
  }
}

await Promise.all(Array.from({ length: concurrency }, lookUpLoop));
const alsCpu = cpuSeconds(als.pid) - cpuAtWarm;
latencies.sort((a, b) => a - b);
const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))]?.toFixed(2);
process.stdout.write(
  `${JSON.stringify({
    concurrency,
    lookupsPerSecond: Math.round(latencies.length / seconds),
    ok: latencies.length,
    failed,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    alsCpuMsPerLookup: ((alsCpu * 1000) / latencies.length).toFixed(3),
  })}\n`,
);
als.kill('SIGTERM');
await pool.close();
await sims.close();

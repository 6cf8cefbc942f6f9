import autocannon from 'autocannon';
import { LatencyRecorder } from '../report/latency.js';
import type { Metric } from '../report/metrics.js';

export interface PlainHttpOptions {
  readonly url: string;
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
  readonly connections: number;
  /** Total requests (like `ab -n`); when absent the run lasts `durationSeconds` (like k6 `--duration`). */
  readonly requests?: number;
  readonly durationSeconds: number;
  readonly timeoutSeconds: number;
  readonly onProgress?: (done: number) => void;
}

export interface PlainHttpResult {
  readonly metrics: Map<string, Metric>;
  readonly durationSeconds: number;
  readonly statusCounts: Record<string, number>;
}

/**
 * Plain HTTP load for any endpoint through autocannon (a kept load library), with latencies recorded
 * into our HDR recorder from autocannon's per-response event so every mode reports the same percentiles.
 */
export async function runPlainHttp(options: PlainHttpOptions): Promise<PlainHttpResult> {
  const latency = new LatencyRecorder();
  const statusCounts: Record<string, number> = {};
  let failed = 0;
  let done = 0;
  const started = performance.now();
  let instance!: autocannon.Instance;
  const finished = new Promise<autocannon.Result>((resolve, reject) => {
    instance = autocannon(
      {
        url: options.url,
        method: options.method as autocannon.Request['method'],
        headers: options.headers,
        ...(options.body === undefined ? {} : { body: options.body }),
        connections: options.connections,
        timeout: options.timeoutSeconds,
        ...(options.requests === undefined ? { duration: options.durationSeconds } : { amount: options.requests }),
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    latency.record(responseTime);
    statusCounts[statusCode] = (statusCounts[statusCode] ?? 0) + 1;
    if (statusCode >= 400) failed++;
    done++;
  });
  const ticker = setInterval(() => options.onProgress?.(done), 2000);
  const result = await finished.finally(() => clearInterval(ticker));
  const durationSeconds = (performance.now() - started) / 1000;
  const requests = latency.count + result.errors;
  failed += result.errors;
  const metrics = new Map<string, Metric>([
    ['http_req_duration', { type: 'trend', values: latency.summary() }],
    ['http_req_failed', { type: 'rate', passes: failed, fails: requests - failed }],
    ['http_reqs', { type: 'counter', count: requests, perSecond: requests / durationSeconds }],
    ['vus', { type: 'gauge', value: options.connections }],
  ]);
  return { metrics, durationSeconds, statusCounts };
}

import { parseArgs } from 'node:util';
import { runPlainHttp } from '../http/plain.js';
import { assertLoopback } from '../load/loopback.js';
import { finish, progress } from './outcome.js';

export const httpUsage = `mojafast-bench http --url URL [options]
  Plain HTTP load on any endpoint (autocannon), like ab -c C -n N or k6 --vus V --duration D.
  --url URL            target (loopback only unless --allow-remote)
  -c, --connections N  concurrent connections / virtual users (default 50)
  -n, --requests N     total requests; without it the run lasts --duration
  -d, --duration S     seconds (default 10)
  -m, --method M       HTTP method (default GET)
  -H, --header 'K: V'  request header, repeatable
  -b, --body TEXT      request body
  --timeout S          per-request timeout in seconds (default 10)
  --threshold EXPR     k6 syntax, repeatable, e.g. 'http_req_duration:p(95)<25' (default metric http_req_duration)
  --out FILE           write the JSON results`;

export async function httpCommand(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      url: { type: 'string' },
      connections: { type: 'string', short: 'c', default: '50' },
      requests: { type: 'string', short: 'n' },
      duration: { type: 'string', short: 'd', default: '10' },
      method: { type: 'string', short: 'm', default: 'GET' },
      header: { type: 'string', short: 'H', multiple: true, default: [] },
      body: { type: 'string', short: 'b' },
      timeout: { type: 'string', default: '10' },
      threshold: { type: 'string', multiple: true, default: [] },
      out: { type: 'string' },
      'allow-remote': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help || !values.url) {
    process.stdout.write(`${httpUsage}\n`);
    if (!values.help) process.exitCode = 2;
    return;
  }
  assertLoopback(values.url, values['allow-remote']);
  const headers: Record<string, string> = {};
  for (const h of values.header) {
    const colon = h.indexOf(':');
    if (colon <= 0) throw new Error(`--header "${h}" is not "Name: value"`);
    headers[h.slice(0, colon).trim().toLowerCase()] = h.slice(colon + 1).trim();
  }
  const connections = positiveInteger('--connections', values.connections);
  const requests = values.requests === undefined ? undefined : positiveInteger('--requests', values.requests);
  const durationSeconds = positiveInteger('--duration', values.duration);
  progress(
    `http: ${values.method} ${values.url}, ${connections} connections, ${requests === undefined ? `${durationSeconds} s` : `${requests} requests`}`,
  );
  const result = await runPlainHttp({
    url: values.url,
    method: values.method,
    headers,
    body: values.body,
    connections,
    requests,
    durationSeconds,
    timeoutSeconds: positiveInteger('--timeout', values.timeout),
    onProgress: (done) => progress(`  ${done} responses`),
  });
  await finish({
    title: `bench:http ${values.method} ${values.url} (${connections} connections)`,
    metrics: result.metrics,
    thresholds: values.threshold,
    defaultMetric: 'http_req_duration',
    out: values.out,
    json: { mode: 'http', url: values.url, duration_s: result.durationSeconds, status_counts: result.statusCounts },
  });
}

export function positiveInteger(flag: string, text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${flag} must be a positive integer, got "${text}"`);
  return value;
}

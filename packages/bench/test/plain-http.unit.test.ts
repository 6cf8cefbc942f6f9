import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPlainHttp } from '../src/http/plain.js';
import { assertLoopback } from '../src/load/loopback.js';

describe('plain HTTP mode against a real server on loopback', () => {
  let server: Server;
  let url: string;
  let served = 0;

  beforeAll(async () => {
    server = createServer((req, res) => {
      served++;
      res.statusCode = req.url === '/fail' ? 503 : 200;
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('sends exactly -n requests over -c connections and counts every one', async () => {
    served = 0;
    const result = await runPlainHttp({
      url: `${url}/ok`,
      method: 'GET',
      headers: {},
      connections: 4,
      requests: 300,
      durationSeconds: 10,
      timeoutSeconds: 5,
    });
    expect(served).toBe(300);
    expect(result.statusCounts).toEqual({ 200: 300 });
    expect(result.metrics.get('http_reqs')).toMatchObject({ count: 300 });
    expect(result.metrics.get('http_req_failed')).toMatchObject({ passes: 0, fails: 300 });
    expect(result.metrics.get('http_req_duration')).toMatchObject({ type: 'trend', values: { count: 300 } });
  });

  it('counts 5xx answers as failed requests', async () => {
    const result = await runPlainHttp({
      url: `${url}/fail`,
      method: 'GET',
      headers: {},
      connections: 2,
      requests: 50,
      durationSeconds: 10,
      timeoutSeconds: 5,
    });
    expect(result.metrics.get('http_req_failed')).toMatchObject({ passes: 50, fails: 0 });
  });

  it('refuses a target that is not loopback (bad input: 10.0.0.1) before sending anything', () => {
    expect(() => assertLoopback('http://10.0.0.1:3000/', false)).toThrow('not a loopback address');
    expect(() => assertLoopback('http://127.0.0.1:3000/', false)).not.toThrow();
    expect(() => assertLoopback('http://[::1]:3000/', false)).not.toThrow();
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Counter, Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCpuProfiler, healthReport, type ObserveServer, startObserveServer } from '../src/index.js';

describe('startObserveServer', () => {
  const directory = mkdtempSync(join(tmpdir(), 'service-kit-observe-'));
  const registry = new Registry();
  new Counter({ name: 'kit_test_total', help: 'a test counter', registers: [registry] }).inc(3);
  let database: 'OK' | 'DOWN' = 'OK';
  let server: ObserveServer;
  let base: string;

  beforeAll(async () => {
    server = await startObserveServer({
      host: '127.0.0.1',
      port: 0,
      registry,
      services: async () => [{ name: 'datastore', status: database }],
      profile: { path: '/admin/profile', profiler: createCpuProfiler({ directory, prefix: 'kit' }), defaultSeconds: 1 },
    });
    base = `http://127.0.0.1:${server.address.port}`;
  });
  afterAll(async () => {
    await server?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('answers /health 200 in the original shape, 503 while a service is DOWN', async () => {
    const ok = await fetch(`${base}/health`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({
      status: 'OK',
      uptime: expect.any(Number),
      startTime: expect.any(String),
      versionNumber: '0.0.0',
      services: [{ name: 'datastore', status: 'OK' }],
    });
    database = 'DOWN';
    const down = await fetch(`${base}/health`);
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({ status: 'DOWN', services: [{ name: 'datastore', status: 'DOWN' }] });
    database = 'OK';
  });

  it('serves the registry on /metrics and 404 elsewhere', async () => {
    const metrics = await fetch(`${base}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('kit_test_total 3');
    expect((await fetch(`${base}/nothing`)).status).toBe(404);
  });

  it('refuses a profile length out of range (bad input: seconds=0), writes one of 1 s', async () => {
    const refused = await fetch(`${base}/admin/profile?seconds=0`, { method: 'POST' });
    expect(refused.status).toBe(400);
    const written = await fetch(`${base}/admin/profile?seconds=1`, { method: 'POST' });
    expect(written.status).toBe(200);
    expect(((await written.json()) as { file: string }).file.startsWith(directory)).toBe(true);
  });
});

describe('healthReport', () => {
  it('leaves services out when the process has none to report', () => {
    const report = healthReport(new Date(0));
    expect(report.statusCode).toBe(200);
    expect(report.body).not.toHaveProperty('services');
    expect(report.body.startTime).toBe('1970-01-01T00:00:00.000Z');
  });
});

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Counter, Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createCpuProfiler,
  healthReport,
  type ObserveServer,
  packageVersion,
  startObserveServer,
} from '../src/index.js';

const ownVersion = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

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
      version: '7.8.9',
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
      versionNumber: '7.8.9',
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
    const report = healthReport(new Date(0), '1.2.3');
    expect(report.statusCode).toBe(200);
    expect(report.body).not.toHaveProperty('services');
    expect(report.body.startTime).toBe('1970-01-01T00:00:00.000Z');
    expect(report.body.versionNumber).toBe('1.2.3');
  });
});

describe('packageVersion', () => {
  const directory = mkdtempSync(join(tmpdir(), 'service-kit-version-'));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));
  const moduleIn = (...path: string[]) => {
    mkdirSync(join(directory, ...path), { recursive: true });
    return pathToFileURL(join(directory, ...path, 'main.js'));
  };

  it('is the version of the package a module belongs to, from src/ as from dist/', () => {
    expect(ownVersion).toMatch(/^[1-9]\d*\.\d+\.\d+$/);
    expect(packageVersion(import.meta.url)).toBe(ownVersion);
    expect(packageVersion(new URL('../src/index.ts', import.meta.url))).toBe(ownVersion);
    writeFileSync(join(directory, 'package.json'), JSON.stringify({ name: 'a', version: '2.0.1' }));
    expect(packageVersion(moduleIn('a', 'dist', 'deep'))).toBe('2.0.1');
  });

  it('stops the start naming the package.json that has no version', () => {
    const url = moduleIn('b', 'dist');
    writeFileSync(join(directory, 'b', 'package.json'), JSON.stringify({ name: 'b' }));
    expect(() => packageVersion(url)).toThrow(/b\/package\.json has no version$/);
  });
});

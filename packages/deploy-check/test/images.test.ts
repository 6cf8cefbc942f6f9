import { spawn } from 'node:child_process';
import { createReadStream, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { rootCertificates } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChartPlayReport } from '../src/chart-play.js';
import { exec } from '../src/engine.js';

// The images built and run by a real container engine (infra/images): the three images build, the host's
// extra CA reaches no final image, and `infra/images run` passes the cluster smoke with the containers, the
// same smoke through the compose tool, and the kube play of the position handler with a replica killed.
const repoRoot = resolve(fileURLToPath(new URL('../../../', import.meta.url)));
const runDir = mkdtempSync(join(tmpdir(), 'images-test-'));
afterAll(() => rmSync(runDir, { recursive: true, force: true }));

/** Runs infra/images; the cause of a failure is its last `[infra] ERROR` / `FAILED` line. */
function images(args: string[], timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((ok) => {
    const child = spawn(join(repoRoot, 'infra/images'), args, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    for (const stream of [child.stdout, child.stderr]) stream.on('data', (c: Buffer) => (output += c.toString()));
    const timer = setTimeout(() => child.kill('SIGTERM'), timeoutMs);
    child.once('close', (code) => {
      clearTimeout(timer);
      ok({ code, output });
    });
  });
}

const cause = (output: string) =>
  output
    .split('\n')
    .filter((l) => /ERROR|FAILED/.test(l))
    .at(-1) ?? output.split('\n').slice(-5).join(' | ');

/** The engine infra/images chose ("podman CONTAINERS_CONF=..."), for the checks below. */
async function engine(): Promise<{ name: 'docker' | 'podman'; env: NodeJS.ProcessEnv }> {
  const { code, output } = await images(['engine'], 60_000);
  expect(code, cause(output)).toBe(0);
  const [name, conf] = output.trim().split('\n').at(-1)?.split(' ') ?? [];
  const env = { ...process.env };
  if (conf?.startsWith('CONTAINERS_CONF=')) env.CONTAINERS_CONF = conf.slice('CONTAINERS_CONF='.length);
  return { name: name as 'docker' | 'podman', env };
}

/**
 * The certificates of the host's NODE_EXTRA_CA_CERTS that Node does not carry itself (a proxy's CA): one
 * base64 line of each, a string that exists nowhere else.
 */
function extraCaMarkers(): string[] {
  const file = process.env.NODE_EXTRA_CA_CERTS;
  if (!file || !existsSync(file)) return [];
  const bundled = new Set(rootCertificates.map((pem) => pem.replace(/\s+/g, '')));
  const pems = readFileSync(file, 'utf8').match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  return pems
    .filter((pem) => !bundled.has(pem.replace(/\s+/g, '')))
    .map((pem) => pem.split('\n').filter((l) => /^[A-Za-z0-9+/]{64}$/.test(l))[3] ?? '')
    .filter(Boolean);
}

/** The markers that occur in the image's whole filesystem (`<engine> export` of a created container). */
async function imageContains(
  engineName: string,
  env: NodeJS.ProcessEnv,
  image: string,
  markers: readonly string[],
): Promise<string[]> {
  const name = `mojafast-ca-check-${process.pid}`;
  // To a file: podman cannot write an export to a socket (Node's pipes), "open /dev/stdout: no such device".
  const tar = join(runDir, `${name}.tar`);
  const created = await exec(engineName, ['create', '--name', name, image], { env });
  expect(created.code, created.stderr).toBe(0);
  try {
    const exported = await exec(engineName, ['export', '-o', tar, name], { env, timeoutMs: 120_000 });
    expect(exported.code, exported.stderr).toBe(0);
    const needles = markers.map((m) => Buffer.from(m));
    const keep = Math.max(...needles.map((n) => n.length)) - 1;
    const found = new Set<string>();
    let tail = Buffer.alloc(0);
    let bytes = 0;
    for await (const chunk of createReadStream(tar)) {
      const window = Buffer.concat([tail, chunk as Buffer]);
      bytes += (chunk as Buffer).length;
      for (const [i, needle] of needles.entries()) if (window.includes(needle)) found.add(markers[i] as string);
      tail = window.subarray(Math.max(0, window.length - keep));
    }
    // A whole root filesystem, not an empty stream that finds nothing.
    expect(bytes).toBeGreaterThan(50_000_000);
    return [...found];
  } finally {
    rmSync(tar, { force: true });
    await exec(engineName, ['rm', '-f', name], { env });
  }
}

describe('infra/images: the images built and run by a container engine', () => {
  it('builds the three images (local base when no registry answers)', { timeout: 1_800_000 }, async () => {
    const { code, output } = await images(['build'], 1_700_000);
    expect(code, cause(output)).toBe(0);
    expect(output).toMatch(/built mojafast\/als .*\n[\s\S]*built mojafast\/position-handler[\s\S]*built mojafast\/sim/);
  });

  it('gives the host extra CA to the build stage only: no final image holds it, in its files, env or history', {
    timeout: 300_000,
  }, async () => {
    const { name, env } = await engine();
    const markers = extraCaMarkers();
    for (const id of ['als', 'position-handler', 'sim']) {
      const image = `mojafast/${id}:latest`;
      const inspect = await exec(name, ['image', 'inspect', '--format', '{{json .Config.Env}}', image], { env });
      expect(inspect.code, inspect.stderr).toBe(0);
      expect(inspect.stdout).not.toContain('NODE_EXTRA_CA_CERTS');
      const history = await exec(name, ['history', '--no-trunc', '--format', '{{.CreatedBy}}', image], { env });
      expect(history.stdout).not.toContain('BEGIN CERTIFICATE');
      for (const marker of markers) expect(history.stdout).not.toContain(marker);
      if (markers.length > 0) expect(await imageContains(name, env, image, markers)).toEqual([]);
    }
  });

  it('passes the cluster smoke as containers and through the compose tool, and the kube play with a replica killed', {
    timeout: 900_000,
  }, async () => {
    const out = join(runDir, 'run.json');
    const { code, output } = await images(['run', 'containers', 'compose', 'kube', '--out', out], 850_000);
    expect(code, cause(output)).toBe(0);
    const report = JSON.parse(readFileSync(out, 'utf8')) as {
      engine: string;
      containers: { lookup: { status: number }; inspection: Record<string, { uid: number }> };
      compose: { lookup?: { status: number }; skipped?: string };
      kube?: {
        replicas: { partitions: number[] }[];
        result: { reservedTwice: number };
        killed: { appliedBefore: number };
      };
    };
    expect(report.containers.lookup.status).toBe(202);
    for (const check of Object.values(report.containers.inspection)) expect(check.uid).not.toBe(0);
    // Compose runs wherever a compose tool is there (podman-compose comes with podman here).
    expect(report.compose.skipped, 'compose was not run').toBeUndefined();
    expect(report.compose.lookup?.status).toBe(202);
    if (report.engine === 'podman') {
      expect(report.kube?.replicas.map((r) => r.partitions.length > 0)).toEqual([true, true]);
      expect(report.kube?.result.reservedTwice).toBe(0);
    }
  });

  it("plays Mojaloop's own helm charts with only our image and the addresses set: lookups, transfers, probes, user, no writes, drain", {
    timeout: 900_000,
  }, async () => {
    const { name } = await engine();
    if (name !== 'podman') return;
    const out = join(runDir, 'charts.json');
    const { code, output } = await images(['run', 'charts', '--out', out], 850_000);
    expect(code, cause(output)).toBe(0);
    const { charts } = JSON.parse(readFileSync(out, 'utf8')) as { charts: ChartPlayReport };
    expect(charts.lookup).toEqual({ oracleStatus: 201, status: 202, callback: 'success' });
    expect(charts.transfers.reserved).toBe(charts.transfers.count);
    expect(charts.transfers.committed).toBe(charts.transfers.count);
    const byChart = new Map(charts.charts.map((c) => [c.chart, c]));
    expect([...byChart.keys()].sort()).toEqual(['als-admin', 'als-api', 'position', 'position-batch']);
    // The charts' own commands, users and mounts, as rendered.
    expect(byChart.get('als-api')?.command).toEqual(['node', 'src/index.js', 'server', '--api']);
    expect(byChart.get('als-admin')?.command).toEqual(['node', 'src/index.js', 'server', '--admin']);
    expect(byChart.get('position-batch')?.command).toEqual([
      'node',
      'src/handlers/index.js',
      'handler',
      '--positionbatch',
    ]);
    expect(byChart.get('position')?.command).toEqual(['node', 'src/handlers/index.js', 'handler', '--position']);
    expect(byChart.get('als-api')?.readOnlyRootFilesystem).toBe(true);
    expect(byChart.get('als-api')?.mounts).toContain('/opt/app/config');
    expect(byChart.get('als-admin')?.mounts).toContain('/opt/account-lookup-service/config');
    // The API and the admin API as two processes, as the charts deploy them.
    expect(byChart.get('als-api')?.otherPortRefused).toBe(true);
    expect(byChart.get('als-admin')?.otherPortRefused).toBe(true);
    for (const chart of charts.charts) {
      expect(chart.uid, chart.chart).toBe(chart.runAsUser ?? chart.uid);
      expect(chart.written, chart.chart).toEqual([]);
      expect(
        Object.values(chart.probes).map((p) => p.status),
        chart.chart,
      ).toEqual([200, 200]);
      expect(chart.stop.code, chart.chart).toBe(0);
    }
  });
});

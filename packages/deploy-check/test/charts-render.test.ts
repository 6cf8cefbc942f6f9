import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type ChartId, renderChart } from '../src/chart-play.js';

// Mojaloop's own charts rendered by helm (infra/helm/render) with their default values: the configuration
// files the services' tests load as "what the charts render" are exactly these, so a change of the charts or
// of the render is seen here and not by a user.
const repoRoot = resolve(fileURLToPath(new URL('../../../', import.meta.url)));

const fixtures: { chart: ChartId; file: string; knexfile?: string; container: string }[] = [
  {
    chart: 'als-api',
    file: 'packages/als/test/fixtures/charts/als-chart-service.default.json',
    knexfile: 'packages/als/test/fixtures/charts/als-chart-service.knexfile.js',
    container: 'packages/als/test/fixtures/charts/als-chart-service.env.json',
  },
  {
    chart: 'als-admin',
    file: 'packages/als/test/fixtures/charts/als-chart-admin.default.json',
    container: 'packages/als/test/fixtures/charts/als-chart-admin.env.json',
  },
  {
    chart: 'position-batch',
    file: 'packages/position-handler/test/fixtures/charts/position-batch-chart.default.json',
    knexfile: 'packages/position-handler/test/fixtures/charts/position-batch-chart.knexfile.js',
    container: 'packages/position-handler/test/fixtures/charts/position-batch-chart.env.json',
  },
];

describe("Mojaloop's helm charts rendered with their default values", () => {
  it.each(fixtures)(
    '$chart renders the configuration and the container its fixtures hold',
    { timeout: 600_000 },
    async (fixture) => {
      const manifests = (await renderChart(repoRoot, fixture.chart, {})) as unknown as {
        kind: string;
        metadata: { name: string };
        data?: Record<string, string>;
        spec?: {
          template: { spec: { containers: { command?: string[]; env?: { name: string; value?: string }[] }[] } };
        };
      }[];
      const config = manifests.find((m) => m.kind === 'ConfigMap' && m.metadata.name.endsWith('-config'));
      expect(config?.data?.['default.json'], 'the ConfigMap of default.json').toBeDefined();
      expect(JSON.parse(config?.data?.['default.json'] ?? '')).toEqual(
        JSON.parse(readFileSync(join(repoRoot, fixture.file), 'utf8')),
      );
      if (fixture.knexfile)
        expect(config?.data?.['knexfile.js']).toBe(readFileSync(join(repoRoot, fixture.knexfile), 'utf8'));
      // The service's container: its command and every variable the Deployment sets (each a plain value).
      const [main] = manifests.find((m) => m.kind === 'Deployment')?.spec?.template.spec.containers ?? [];
      expect({
        command: main?.command,
        env: Object.fromEntries((main?.env ?? []).map((e) => [e.name, e.value ?? ''])),
      }).toEqual(JSON.parse(readFileSync(join(repoRoot, fixture.container), 'utf8')));
    },
  );
});

import { defaultServerConditions } from 'vite';
import { configDefaults, defineConfig } from 'vitest/config';

// Workspace packages resolve to their TypeScript sources (the "source" export condition), so tests
// never run against a stale dist/.
const conditions = ['source', ...defaultServerConditions];

// The lanes (docs/testing.md). A unit test needs no Kafka, MariaDB or Redis and no dist/: it is named
// *.unit.test.ts, and its lane starts no service and builds nothing.
const unit = ['packages/*/test/**/*.unit.test.ts'];
// Unit files that replace a module (vi.mock) need it loaded afresh: their own project. `pnpm test:unit` runs the
// others with --no-isolate (each worker keeps the modules it loaded, and imports are most of the lane's time),
// then these; the whole suite runs every file isolated.
const unitMocking = ['packages/als/test/one-callback.unit.test.ts'];
// The integrity suite: processes killed, faults injected and services taken away under load, then the
// outcome checked against a pure replay or the one-callback rule. The slowest files, run on their own by
// `pnpm test:integrity`.
const integrity = [
  'packages/position-handler/test/crash.test.ts',
  'packages/position-handler/test/faults.test.ts',
  'packages/position-handler/test/stalled-partition.test.ts',
  'packages/position-handler/test/invariants.test.ts',
  'packages/als/test/outages.test.ts',
  'packages/als/test/proxy-race.test.ts',
];
// Kafka, MariaDB and Redis started (or checked), `tsc -b` run, once per run whatever the number of lanes.
const servicesSetup = ['packages/testkit/src/global-setup.ts', 'packages/testkit/src/build-setup.ts'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    pool: 'forks',
    // Two cores host the broker, the database and the tests; more workers only queue.
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
    projects: [
      { extends: true, test: { name: 'unit', include: unit, exclude: [...configDefaults.exclude, ...unitMocking] } },
      { extends: true, test: { name: 'unit-mocking', include: unitMocking } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['packages/*/test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...unit, ...integrity],
          globalSetup: servicesSetup,
        },
      },
      { extends: true, test: { name: 'integrity', include: integrity, globalSetup: servicesSetup } },
    ],
    coverage: {
      provider: 'v8',
      include: ['packages/*/src/**/*.ts'],
      reporter: ['text-summary', 'json-summary', 'html'],
      reportsDirectory: 'coverage',
      // A red test still leaves its figures to read.
      reportOnFailure: true,
      // Lines covered by the whole suite (`pnpm test:coverage`), whole percents at or below the last
      // measured figure, so that timing-dependent paths cannot turn a green run red: a floor for the
      // repository, one for the ledger's rules and one for the lookup flow (docs/testing.md).
      thresholds: {
        lines: 81,
        'packages/position-handler/src/ledger/**': { lines: 98 },
        'packages/als/src/discovery/**': { lines: 95 },
      },
    },
  },
});

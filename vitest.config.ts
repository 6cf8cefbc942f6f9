import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

// Workspace packages resolve to their TypeScript sources (the "source" export condition), so tests
// never run against a stale dist/.
const conditions = ['source', ...defaultServerConditions];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: ['packages/*/test/**/*.test.ts'],
    globalSetup: ['packages/testkit/src/global-setup.ts', 'packages/testkit/src/build-setup.ts'],
    pool: 'forks',
    // Two cores host the broker, the database and the tests; more workers only queue.
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});

import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { testsWithoutDatabase } from './test/support/database-tests.js';

/**
 * `npm test` runs every test on an embedded PostgreSQL started in a temporary folder and,
 * when TEST_DATABASE_URL is set, the tests that use a database once more on that server
 * (each run in databases it creates and drops).
 */
const external = process.env.TEST_DATABASE_URL;
const root = fileURLToPath(new URL('.', import.meta.url));
const common = {
  include: ['test/**/*.test.ts'],
  testTimeout: 30_000,
  hookTimeout: 120_000,
  pool: 'forks' as const,
};

export default defineConfig({
  test: {
    reporters: ['default', './test/support/summary-reporter.ts'],
    projects: [
      { test: { ...common, name: 'embedded', globalSetup: ['test/support/global-embedded.ts'] } },
      // The second database runs only the tests that use a database (test/support/database-tests.ts);
      // the browser suite (test/web) drives the dashboard, not the database.
      ...(external
        ? [{ test: { ...common, name: 'external', exclude: ['test/web/**', ...testsWithoutDatabase(root)], globalSetup: ['test/support/global-external.ts'] } }]
        : []),
    ],
  },
});

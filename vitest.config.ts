import { defineConfig } from 'vitest/config';

/**
 * `npm test` runs every test on an embedded PostgreSQL started in a temporary folder and,
 * when TEST_DATABASE_URL is set, once more on that server (each run in databases it creates
 * and drops).
 */
const external = process.env.TEST_DATABASE_URL;
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
      // The browser suite (test/web) drives the dashboard, not the database: one project is enough.
      ...(external ? [{ test: { ...common, name: 'external', exclude: ['test/web/**'], globalSetup: ['test/support/global-external.ts'] } }] : []),
    ],
  },
});

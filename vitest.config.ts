// Test runner settings: real processes are slow to start on shared 2-core machines, so give
// end-to-end tests room; golden files are regenerated only with `vitest -u`, never in CI.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});

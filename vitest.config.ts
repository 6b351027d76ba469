// Test runner settings: real processes are slow to start on shared 2-core machines, so give
// end-to-end tests room; golden trees are regenerated only with UPDATE_GOLDEN=1, never in CI.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Compiles dist/ once: the integration tests run the real CLI (node dist/cli/main.js).
    globalSetup: ['test/global-setup.ts'],
    // Removes the temporary folders the test helpers made, after each test file.
    setupFiles: ['test/helpers/remove-temp-folders.setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});

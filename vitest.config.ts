// Test runner settings: real processes are slow to start on shared 2-core machines, so give
// end-to-end tests room; golden trees are regenerated only with UPDATE_GOLDEN=1, never in CI.
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Compiles src/ once into .test-dist-<pid>/: the integration tests run the real CLI.
    globalSetup: ['test/global-setup.ts'],
    // Removes the temporary folders the test helpers made, after each test file.
    setupFiles: ['test/helpers/remove-temp-folders.setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default is one worker per core but one: a single worker on 2 cores. The tests
    // mostly wait on child processes (the CLI, servers, clients), so at least three files at a
    // time keep two cores busy.
    maxWorkers: Math.max(3, availableParallelism()),
  },
});

// Test runner settings: three tiers as vitest projects (test/helpers/test-tiers.ts says which file
// runs where). `core` runs in-process with nothing compiled (`npm run test:fast`); `cli` and
// `runtimes` run the compiled CLI, and `runtimes` also wrangler, Deno, workerd, chromium and the
// external clients. Real processes are slow to start on shared 2-core machines, so give
// end-to-end tests room; golden trees are regenerated only with UPDATE_GOLDEN=1, never in CI.
import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import { CLI_TIER_TMPDIR } from './scripts/test-temp-folder.mjs';
import { listTierGlobs, type Tier } from './test/helpers/test-tiers.js';
import LongestFirstSequencer from './test/longest-first-sequencer.js';

/**
 * One tier's project; `globalSetup` runs only when a file of the tier is selected. It returns
 * before its work ends: the tier's files wait for it in test/helpers/wait-for-setup.setup.ts.
 */
function defineTier(
  tier: Tier,
  globalSetup: string[],
  isolate = true,
  env: Record<string, string> = {},
): TestProjectInlineConfiguration {
  const { include, exclude } = listTierGlobs(tier);
  const setupFiles = globalSetup.length > 0 ? ['test/helpers/wait-for-setup.setup.ts'] : [];
  return {
    extends: true,
    test: {
      name: tier,
      include,
      exclude: [...configDefaults.exclude, ...exclude],
      globalSetup,
      setupFiles,
      isolate,
      env,
    },
  };
}

/** TMPDIR for the cli tier's workers: the folder scripts/run-tests.mjs made for it, if any. */
function cliTierEnvironment(): Record<string, string> {
  const folder = process.env[CLI_TIER_TMPDIR];
  return folder ? { TMPDIR: folder } : {};
}

export default defineConfig({
  test: {
    projects: [
      // In-process files that mock nothing and keep no state between files: one worker runs
      // several without re-importing src/ for each, which is most of the tier's time.
      defineTier('core', [], false),
      // Compiles src/ once into .test-dist-<pid>/ and builds fixtures/example once (both tiers share them).
      // Its files start the CLI as a process and, like core's, mock nothing and restore what they
      // change, so they share workers too: an isolated worker per file re-imports vitest and the
      // helpers for each of them.
      // Under `npm test`, its workers' TMPDIR is a RAM-backed folder where there is one
      // (scripts/test-temp-folder.mjs); the global setup's shared folders stay in os.tmpdir().
      defineTier('cli', ['test/global-setup.ts'], false, cliTierEnvironment()),
      // Its files start runtimes and clients and, like cli's, mock nothing and stop what they
      // start, so they share workers too: a worker per file re-imported vitest, the SDK and
      // miniflare for each, about a second of CPU a file.
      defineTier('runtimes', ['test/global-setup.ts'], false),
    ],
    // After each test file: removes the temporary folders the test helpers made, lets go of the
    // shared host runtimes it asked for, and logs its CPU time when asked to.
    setupFiles: [
      'test/helpers/remove-temp-folders.setup.ts',
      'test/helpers/shared-hosts.setup.ts',
      'test/helpers/cpu-log.setup.ts',
    ],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default is one worker per core but one: a single worker on 2 cores. The tests
    // mostly wait on child processes (the CLI, servers, clients), so at least three files at a
    // time keep two cores busy.
    maxWorkers: Math.max(3, availableParallelism()),
    // The runtimes tier's long files first, not after every cli file (test/longest-first-sequencer.ts).
    sequence: { sequencer: LongestFirstSequencer },
    // Keeps each module vite transformed (src/ and test/ TypeScript to runnable JavaScript) in
    // node_modules/.experimental-vitest-cache/, keyed by the file's bytes, its path, vitest's version
    // and this config: the next run reads it back instead of transforming again, which was half of
    // vitest's own process's CPU in a run. An edited file gets a new key, so nothing stale runs;
    // `npx vitest --clearCache` empties it.
    experimental: { fsModuleCache: true },
  },
});

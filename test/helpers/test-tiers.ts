// Which vitest project (tier) a test file runs in: by its folder, or by name where a file does
// not start what its folder's other files start. vitest.config.ts turns this into each project's
// include and exclude; test/unit/test-tiers.test.ts checks every file against what it starts.
// A new file falls into its folder's tier; list it in FILE_TIERS only when it differs.

/** `core`: in-process only, nothing compiled; `cli`: the compiled CLI as a real process;
 * `runtimes`: wrangler, Deno, workerd/miniflare, chromium, the conformance suite, the Inspector,
 * npm installs from a local registry. */
export type Tier = 'core' | 'cli' | 'runtimes';

export const TIERS: readonly Tier[] = ['core', 'cli', 'runtimes'];

/** Folder under test/ → the tier of its files. */
export const FOLDER_TIERS: Readonly<Record<string, Tier>> = {
  unit: 'core',
  bridge: 'cli',
  build: 'cli',
  cli: 'cli',
  dev: 'cli',
  http: 'cli',
  modern: 'cli',
  'protocol-table': 'cli',
  security: 'cli',
  browser: 'runtimes',
  conformance: 'runtimes',
  edge: 'runtimes',
  hosts: 'runtimes',
  inspector: 'runtimes',
};

/** Test files (from the repository root) whose tier is not their folder's. */
export const FILE_TIERS: Readonly<Record<string, Tier>> = {
  'test/dev/tree-file-reuse.test.ts': 'core',
  'test/edge/isolate-tree-cache.test.ts': 'core',
  'test/edge/json-schema-validator.test.ts': 'core',
  'test/edge/origin-line-splitter.test.ts': 'core',
  'test/http/stateless-handler.test.ts': 'core',
  'test/protocol-table/in-process.test.ts': 'core',
  'test/build/search-build.test.ts': 'runtimes',
  'test/cli/deploy-commands.test.ts': 'runtimes',
  'test/unit/discover-skills.test.ts': 'cli',
  'test/cli/index-tree.test.ts': 'runtimes',
  'test/cli/readme-walkthrough.test.ts': 'runtimes',
  'test/http/bad-input.test.ts': 'runtimes',
  'test/protocol-table/foreign-tree.test.ts': 'runtimes',
  'test/protocol-table/mcp-apps.test.ts': 'runtimes',
  'test/protocol-table/runtimes.test.ts': 'runtimes',
  'test/protocol-table/skills.test.ts': 'runtimes',
  'test/security/damaged-remote-packs.test.ts': 'runtimes',
  'test/security/damaged-remote-search.test.ts': 'runtimes',
};

/**
 * The slowest files, slowest first, by the time each held a worker (imports and top-level waits
 * included) in a whole run: `npm test -- --reporter=default --reporter=./test/timeline-reporter.ts`
 * prints each tier's slowest files. Vitest starts them first in their tier
 * (test/longest-first-sequencer.ts). A stale order only costs time, never a result.
 */
export const LONGEST_FILES: readonly string[] = [
  'test/cli/readme-walkthrough.test.ts',
  'test/cli/deploy-commands.test.ts',
  'test/build/search-build.test.ts',
  'test/browser/playground.test.ts',
  'test/browser/landing-page.test.ts',
  'test/http/bad-input.test.ts',
  'test/edge/live-origin.test.ts',
  'test/conformance/conformance-2026-07-28.test.ts',
  'test/hosts/real-hosts.test.ts',
  'test/edge/origin-stream.test.ts',
  'test/hosts/live-origin-wrangler.test.ts',
  'test/browser/mcp-apps-playground.test.ts',
  'test/edge/asset-tree-source.test.ts',
  'test/browser/hostile-tree.test.ts',
  // The cli tier runs last: on a fresh clone (no timings) vitest starts its files largest first,
  // which put a long file with a small source (check-strange-trees.test.ts) last of the run, and
  // the small protocol-table.test.ts, whose table runs through every process host, near the end.
  'test/build/search-edit-state.test.ts',
  'test/build/killed-build.test.ts',
  'test/http/fuzz.test.ts',
  'test/security/check-strange-trees.test.ts',
  'test/build/shards.test.ts',
  'test/build/content-edit.test.ts',
  'test/build/document-runs.test.ts',
  'test/cli/check.test.ts',
  'test/security/http-request-bounds.test.ts',
  'test/build/search-reuse.test.ts',
  'test/dev/dev.test.ts',
  'test/bridge/protocol.test.ts',
  'test/cli/command-line.test.ts',
  'test/security/live-concurrency.test.ts',
  'test/build/build-behaviour.test.ts',
  'test/bridge/host-fallbacks.test.ts',
  'test/build/packed-build.test.ts',
  'test/cli/packed-install.test.ts',
  'test/security/setsid-escape.test.ts',
  'test/build/bad-input.test.ts',
  'test/build/content-shards.test.ts',
  'test/bridge/compile-cache.test.ts',
  'test/bridge/packed-tree.test.ts',
  'test/build/cache-and-determinism.test.ts',
  'test/security/slow-remote-tree.test.ts',
  'test/build/mcp-surface.test.ts',
  'test/http/answer-bounds.test.ts',
  'test/security/origin-strangers.test.ts',
  'test/build/edge-deploy-files.test.ts',
  'test/build/up-to-date.test.ts',
  'test/build/resource-discovery-memory.test.ts',
  'test/bridge/live-environment.test.ts',
  'test/cli/init-shards.test.ts',
  'test/cli/serve-tree-switch.test.ts',
  'test/security/session-takeover.test.ts',
  'test/cli/init.test.ts',
  'test/bridge/script-conventions.test.ts',
  'test/build/golden-trees.test.ts',
  'test/bridge/tools.test.ts',
  'test/cli/origin-dockerfile.test.ts',
  'test/cli/config-file.test.ts',
  'test/http/sdk-client.test.ts',
  'test/bridge/waiting-input.test.ts',
  'test/build/site-build.test.ts',
  'test/protocol-table/protocol-table.test.ts',
];

/** The tier of a test file given from the repository root (`test/<folder>/…`); undefined when its folder has none. */
export function findTier(file: string): Tier | undefined {
  const listed = FILE_TIERS[file];
  if (listed) return listed;
  const folder = file.split('/')[1];
  return folder === undefined ? undefined : FOLDER_TIERS[folder];
}

/** The include and exclude globs of one tier's vitest project. */
export function listTierGlobs(tier: Tier): { include: string[]; exclude: string[] } {
  const folders = Object.keys(FOLDER_TIERS).filter((folder) => FOLDER_TIERS[folder] === tier);
  const files = Object.entries(FILE_TIERS);
  return {
    include: [
      ...folders.map((folder) => `test/${folder}/**/*.test.ts`),
      ...files.filter(([, fileTier]) => fileTier === tier).map(([file]) => file),
    ],
    exclude: files.filter(([, fileTier]) => fileTier !== tier).map(([file]) => file),
  };
}

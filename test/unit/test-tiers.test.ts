// Every test file runs in exactly one tier (test/helpers/test-tiers.ts), and in the right one: a
// `core` file compiles nothing and starts no CLI, a `cli` file starts no external runtime or
// client (those make `npm run test:fast` and the Node 24 run of CI slow, or need tools/runtimes).
// Every tier shares workers between files (`isolate: false`), so no file mocks a module or stubs
// a global through vitest.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/paths.js';
import { FILE_TIERS, findTier, LONGEST_FILES, listTierGlobs, TIERS } from '../helpers/test-tiers.js';

const TEST_FILES = readdirSync(path.join(REPO_ROOT, 'test'), { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.ts'))
  .map((file) => path.posix.join('test', file.split(path.sep).join('/')))
  .sort();

/** What a file's imports or text show it starts, beyond the process vitest runs it in. */
const STARTS: readonly { what: string; pattern: RegExp; lowestTier: 'cli' | 'runtimes' }[] = [
  {
    what: 'the compiled CLI',
    pattern: /helpers\/(paths|cli|raw-bridge|http-serve|projects|example)\.js'/,
    lowestTier: 'cli',
  },
  {
    what: 'workerd (miniflare)',
    pattern: /'miniflare'|workerd-site\.js'|runtime-drivers\.js'|damaged-trees\.js'|shared-hosts\.js'/,
    lowestTier: 'runtimes',
  },
  { what: 'wrangler or Deno', pattern: /host-runtimes\.js'/, lowestTier: 'runtimes' },
  { what: 'chromium', pattern: /'playwright-core'|browser\.js'/, lowestTier: 'runtimes' },
  { what: 'the conformance suite', pattern: /conformance-runner\.js'/, lowestTier: 'runtimes' },
  { what: 'the Inspector', pattern: /@modelcontextprotocol\/inspector|inspector-cli\.js'/, lowestTier: 'runtimes' },
  { what: 'the local npm registry', pattern: /local-registry\.js'/, lowestTier: 'runtimes' },
];
const RANK = { core: 0, cli: 1, runtimes: 2 } as const;

/** Node's path.matchesGlob is Node 22+: the globs test-tiers.ts writes are `dir/**\/*.test.ts` or a file. */
function matchesGlob(file: string, glob: string): boolean {
  return glob.endsWith('/**/*.test.ts') ? file.startsWith(glob.slice(0, -'**/*.test.ts'.length)) : file === glob;
}

describe('test tiers', () => {
  it('puts every test file in exactly one tier, by its folder or by name', () => {
    expect(TEST_FILES.length).toBeGreaterThan(50);
    for (const file of TEST_FILES) {
      const tiers = TIERS.filter((tier) => {
        const { include, exclude } = listTierGlobs(tier);
        return include.some((glob) => matchesGlob(file, glob)) && !exclude.some((glob) => matchesGlob(file, glob));
      });
      expect(tiers, `${file}: add its folder to FOLDER_TIERS in test/helpers/test-tiers.ts`).toHaveLength(1);
      expect(tiers[0]).toBe(findTier(file));
    }
  });

  it('names only test files that exist in FILE_TIERS', () => {
    for (const file of Object.keys(FILE_TIERS)) expect(TEST_FILES, `${file} in FILE_TIERS`).toContain(file);
  });

  it('names only test files that exist in LONGEST_FILES, the order vitest starts files in', () => {
    for (const file of LONGEST_FILES) expect(TEST_FILES, `${file} in LONGEST_FILES`).toContain(file);
  });

  it('runs no file below the tier of what it starts', () => {
    const misplaced: string[] = [];
    // This file names every pattern it looks for.
    for (const file of TEST_FILES.filter((name) => name !== 'test/unit/test-tiers.test.ts')) {
      // paths.js alone (REPO_ROOT) starts nothing: only its CLI does.
      const text = readFileSync(path.join(REPO_ROOT, file), 'utf8').replace(
        /import \{ (FIXTURE_SCRIPTS, )?REPO_ROOT \} from '\.\.\/helpers\/paths\.js';/,
        '',
      );
      const tier = findTier(file) ?? 'core';
      for (const { what, pattern, lowestTier } of STARTS) {
        if (pattern.test(text) && RANK[tier] < RANK[lowestTier])
          misplaced.push(`${file} starts ${what} but runs in ${tier}: list it as '${lowestTier}' in FILE_TIERS`);
      }
    }
    expect(misplaced).toEqual([]);
  });

  it('runs no file that mocks a module or stubs a global: every tier shares workers between files', () => {
    // What vi.mock or a stub changes would reach the next file the worker runs.
    const sharing = /\bvi\.(mock|doMock|stubEnv|stubGlobal|useFakeTimers|spyOn)\(/;
    const stubbing = TEST_FILES.filter(
      (file) =>
        file !== 'test/unit/test-tiers.test.ts' && sharing.test(readFileSync(path.join(REPO_ROOT, file), 'utf8')),
    );
    expect(stubbing, 'test files share a worker: show the behaviour with a real process or file instead').toEqual([]);
  });
});

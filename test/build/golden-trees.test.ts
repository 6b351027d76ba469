// Golden trees, one folder per case under test/build/__golden__/<case>/ (the unified/remark
// fixture style): `project/` is the input project (for `example`, a symlink to fixtures/example)
// and `tree/` is the tree the real CLI must build from it, file for file and byte for byte.
//
// Regenerate after an intended change with `UPDATE_GOLDEN=1 npx vitest run
// test/build/golden-trees.test.ts` (refused when CI is set), then review the diff like code. A
// new case is a new folder with a `project/`: the first UPDATE_GOLDEN=1 run writes its `tree/`.
//
// Determinism: each project is copied to a fresh folder first (so neither its location nor a
// cache in it can matter) and built with --force; stateful scripts never run at build time, and
// value-list commands sort under the LANG=C.UTF-8 every script gets. The `example` case compares
// the run's one build of fixtures/example (test/global-setup.ts: a fresh copy, built once, the
// same as --force), which every other file reads, unless UPDATE_GOLDEN=1 writes its tree.
//
// `_worker.js` is the generator's bundled edge worker, not the project's content: it changes with
// every edit of the MCP core, so the golden does not hold it; the test checks that each tree
// holds exactly the bundle this staticmcp was built with (edge/_worker.js beside the compiled CLI).
import { readdirSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { builtExample } from '../helpers/example.js';
import { readTree } from '../helpers/files.js';
import { CLI, REPO_ROOT } from '../helpers/paths.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

const GOLDEN = path.join(REPO_ROOT, 'test', 'build', '__golden__');
const CASES = readdirSync(GOLDEN).sort();
const WORKER_FILE = '_worker.js';
const WORKER_BUNDLE = path.join(path.dirname(CLI), '..', 'edge', '_worker.js');
const UPDATE = process.env.UPDATE_GOLDEN === '1';

async function copyProject(source: string, destination: string): Promise<void> {
  await fs.cp(source, destination, {
    recursive: true,
    dereference: true,
    filter: (file) => !['dist', '.staticmcp'].includes(path.relative(source, file).split(path.sep)[0] ?? ''),
  });
}

async function writeGolden(expected: string, built: Map<string, Buffer>): Promise<void> {
  if (process.env.CI) throw new Error('refusing to regenerate golden trees in CI');
  await fs.rm(expected, { recursive: true, force: true });
  for (const [file, bytes] of built) {
    await fs.mkdir(path.dirname(path.join(expected, file)), { recursive: true });
    await fs.writeFile(path.join(expected, file), bytes);
  }
}

/** The tree of a case: built from a fresh copy of its project with --force, or the shared example. */
async function buildCase(name: string, caseFolder: string): Promise<string> {
  if (name === 'example' && !UPDATE) return path.join(builtExample(), 'dist');
  const project = path.join(await temporaryFolder('staticmcp-golden-'), name);
  await copyProject(path.join(caseFolder, 'project'), project);
  const out = path.join(await temporaryFolder('staticmcp-golden-'), 'tree');
  const { code, stderr } = await runCli(['build', project, '--out', out, '--force']);
  expect(code, stderr).toBe(0);
  return out;
}

describe.each(CASES)('golden case %s', (name) => {
  const caseFolder = path.join(GOLDEN, name);
  const expected = path.join(caseFolder, 'tree');

  it('builds exactly the committed tree', async () => {
    const built = await readTree(await buildCase(name, caseFolder));
    expect(
      built.get(WORKER_FILE)?.equals(await fs.readFile(WORKER_BUNDLE)),
      `${WORKER_FILE} is the bundled worker`,
    ).toBe(true);
    built.delete(WORKER_FILE);

    if (UPDATE) return writeGolden(expected, built);

    const golden = await readTree(expected).catch(() => new Map<string, Buffer>());
    expect(
      golden.size,
      `no golden tree at ${path.relative(REPO_ROOT, expected)}; run with UPDATE_GOLDEN=1 to create it`,
    ).toBeGreaterThan(0);
    expect([...built.keys()]).toEqual([...golden.keys()]);
    for (const [file, bytes] of golden) {
      // Compared as text first, so a mismatch shows a readable diff.
      expect(built.get(file)?.toString('utf8'), file).toBe(bytes.toString('utf8'));
      expect(built.get(file)?.equals(bytes), file).toBe(true);
    }
  });
});

describe('golden tree of fixtures/example', () => {
  const GOLDEN_EXAMPLE = path.join(GOLDEN, 'example', 'tree');
  it('covers what the example promises: every kind of tool and resource', async () => {
    const manifest = JSON.parse(await fs.readFile(path.join(GOLDEN_EXAMPLE, 'mcp.json'), 'utf8')) as {
      capabilities: { tools: { name: string }[]; resources: { uri: string; mimeType: string }[] };
      staticmcp: { tools: Record<string, { precomputed: number; liveReason?: string; enumerated: string[] }> };
    };
    const tools = manifest.staticmcp.tools;
    expect(tools.greet).toMatchObject({ precomputed: 6, enumerated: ['language', 'shout'] });
    expect(tools.math_multiply).toMatchObject({ precomputed: 100, enumerated: ['a', 'b'] });
    expect(tools.capital).toMatchObject({ precomputed: 5, enumerated: ['country'] });
    expect(tools['word-count']).toMatchObject({ precomputed: 2, enumerated: ['document'] });
    expect(tools.divide?.liveReason).toMatch(/no finite domain/);
    expect(tools.counter?.liveReason).toMatch(/stateful/);
    const mimeTypes = manifest.capabilities.resources.map((resource) => resource.mimeType);
    expect(mimeTypes).toEqual(expect.arrayContaining(['text/markdown', 'application/json', 'image/png']));
    const logo = JSON.parse(await fs.readFile(path.join(GOLDEN_EXAMPLE, 'resources', 'logo_png.json'), 'utf8')) as {
      blob?: string;
    };
    expect(
      Buffer.from(logo.blob ?? '', 'base64')
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');
  });
});

// The golden tree: `fixtures/example` built by the real CLI must equal, file for file and byte for
// byte, the committed copy in test/build/__golden__/example/ (kept under test/ so it is plainly a
// test expectation, not a second example project).
//
// Regenerate after an intended change with `npx vitest run test/build/golden-example.test.ts -u`
// (or UPDATE_GOLDEN=1 npx vitest run …), then review the diff like code. Never when CI is set.
//
// Determinism: the project is copied to a fresh folder first (so neither its location nor a
// cache in fixtures/example/.staticmcp can matter) and built with --force; the stateful counter
// never runs at build time (its $TMPDIR file cannot leak in), and the value-list command
// (`ls *.md`) sorts under the LANG=C.UTF-8 every script gets.
//
// `_worker.js` is the generator's bundled edge worker, not the example's content: it changes with
// every edit of the MCP core, so the golden does not hold it; the test checks that the tree holds
// exactly the bundle this staticmcp was built with (edge/_worker.js beside the compiled CLI).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, REPO_ROOT, readTree, removeTemporaryFolders, runCli, temporaryFolder } from './helpers.js';

const EXAMPLE = path.join(REPO_ROOT, 'fixtures', 'example');
const GOLDEN = path.join(REPO_ROOT, 'test', 'build', '__golden__', 'example');
const WORKER_FILE = '_worker.js';
const WORKER_BUNDLE = path.join(path.dirname(CLI), '..', 'edge', '_worker.js');

afterAll(removeTemporaryFolders);

function updateRequested(): boolean {
  const snapshotState = (expect.getState() as { snapshotState?: { _updateSnapshot?: string } }).snapshotState;
  return process.env.UPDATE_GOLDEN === '1' || snapshotState?._updateSnapshot === 'all';
}

async function copyProject(destination: string): Promise<void> {
  await fs.cp(EXAMPLE, destination, {
    recursive: true,
    filter: (source) => !['dist', '.staticmcp'].includes(path.relative(EXAMPLE, source).split(path.sep)[0]),
  });
}

describe('golden tree of fixtures/example', () => {
  it('builds exactly the committed tree', async () => {
    const project = path.join(await temporaryFolder(), 'example');
    await copyProject(project);
    const out = path.join(await temporaryFolder(), 'tree');
    const { code, stderr } = await runCli(['build', project, '--out', out, '--force']);
    expect(code, stderr).toBe(0);
    const built = await readTree(out);
    expect(
      built.get(WORKER_FILE)?.equals(await fs.readFile(WORKER_BUNDLE)),
      `${WORKER_FILE} is the bundled worker`,
    ).toBe(true);
    built.delete(WORKER_FILE);

    if (updateRequested()) {
      if (process.env.CI) throw new Error('refusing to regenerate the golden tree in CI');
      await fs.rm(GOLDEN, { recursive: true, force: true });
      for (const [file, bytes] of built) {
        await fs.mkdir(path.dirname(path.join(GOLDEN, file)), { recursive: true });
        await fs.writeFile(path.join(GOLDEN, file), bytes);
      }
      return;
    }

    const golden = await readTree(GOLDEN).catch(() => new Map<string, Buffer>());
    expect(
      golden.size,
      `no golden tree at ${path.relative(REPO_ROOT, GOLDEN)}; run with -u to create it`,
    ).toBeGreaterThan(0);
    expect([...built.keys()]).toEqual([...golden.keys()]);
    for (const [file, bytes] of golden) {
      // Compared as text where possible, so a mismatch shows a readable diff.
      expect(built.get(file)!.toString('utf8'), file).toBe(bytes.toString('utf8'));
      expect(built.get(file)!.equals(bytes), file).toBe(true);
    }
  });

  it('covers what the example promises: every kind of tool and resource', async () => {
    const manifest = JSON.parse(await fs.readFile(path.join(GOLDEN, 'mcp.json'), 'utf8')) as {
      capabilities: { tools: { name: string }[]; resources: { uri: string; mimeType: string }[] };
      staticmcp: { tools: Record<string, { precomputed: number; liveReason?: string; enumerated: string[] }> };
    };
    const tools = manifest.staticmcp.tools;
    expect(tools.greet).toMatchObject({ precomputed: 6, enumerated: ['language', 'shout'] });
    expect(tools.math_multiply).toMatchObject({ precomputed: 100, enumerated: ['a', 'b'] });
    expect(tools.capital).toMatchObject({ precomputed: 5, enumerated: ['country'] });
    expect(tools['word-count']).toMatchObject({ precomputed: 2, enumerated: ['document'] });
    expect(tools.divide.liveReason).toMatch(/no finite domain/);
    expect(tools.counter.liveReason).toMatch(/stateful/);
    const mimeTypes = manifest.capabilities.resources.map((resource) => resource.mimeType);
    expect(mimeTypes).toEqual(expect.arrayContaining(['text/markdown', 'application/json', 'image/png']));
    const logo = JSON.parse(await fs.readFile(path.join(GOLDEN, 'resources', 'logo_png.json'), 'utf8')) as {
      blob?: string;
    };
    expect(Buffer.from(logo.blob!, 'base64').subarray(1, 4).toString()).toBe('PNG');
  });
});

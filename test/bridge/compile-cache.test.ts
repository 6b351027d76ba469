// The compile cache the command's start keeps (src/cli/start-cli.ts) (Node's on 22.1+, src/cli/code-cache.ts's on Node 20) is a quiet
// speed-up of serve's start-up: it lives in the OS temp folder (or $NODE_COMPILE_CACHE), never in
// the project or the tree being served, and a temp folder where no cache can be made does not stop
// serve. test/unit/code-cache.test.ts shows a damaged or stale cache file is ignored. A cache
// written by a build or a serve is one every later run can use: written before they change V8's flags.
import { promises as fs, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { buildFixtureProject } from '../helpers/projects.js';
import { mainModulePath } from '../helpers/paths.js';
import { RawBridge } from '../helpers/raw-bridge.js';
import { temporaryFolderSync } from '../helpers/temp-folders.js';

let project: string;

beforeAll(() => {
  project = buildFixtureProject('fixtures/example');
});

afterAll(async () => {
  if (project) await fs.rm(path.dirname(project), { recursive: true, force: true });
});

/** Every file under `folder`, relative to it, sorted. */
function listFiles(folder: string): string[] {
  return (readdirSync(folder, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(folder, path.join(entry.parentPath, entry.name)))
    .sort();
}

/** The environment of a serve whose temp folder is `tmp`, with no cache folder chosen by the caller. */
function envWithTemp(tmp: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: tmp };
  delete env.NODE_COMPILE_CACHE;
  delete env.NODE_DISABLE_COMPILE_CACHE;
  return env;
}

describe('the compile cache', () => {
  it('is kept in the temp folder, and serving a project writes nothing into it', async () => {
    const before = listFiles(project);
    const tmp = temporaryFolderSync('staticmcp-compile-cache-');
    // Through main.js, the ES module entry (the other tests run the installed bin).
    const bridge = new RawBridge([project], { cwd: project, env: envWithTemp(tmp), cli: mainModulePath() });
    expect((await bridge.initialize()).result?.protocolVersion).toBeDefined();
    expect(await bridge.close()).toBe(0);
    expect(listFiles(project)).toEqual(before);
    const cached = listFiles(tmp).filter((file) => file.startsWith(`node-compile-cache${path.sep}`));
    expect(cached.length).toBeGreaterThan(0);
  });

  it('is skipped, and serve answers, when no cache folder can be made', async () => {
    // A file where the temp folder should be: making node-compile-cache in it fails even for root.
    const tmp = path.join(temporaryFolderSync('staticmcp-compile-cache-'), 'not-a-folder');
    writeFileSync(tmp, '');
    const bridge = new RawBridge([path.join(project, 'dist')], { env: envWithTemp(tmp) });
    expect((await bridge.initialize()).result?.protocolVersion).toBeDefined();
    expect((await bridge.request('tools/list')).result?.tools).toBeInstanceOf(Array);
    expect(await bridge.close()).toBe(0);
    expect(bridge.stderr).not.toMatch(/compile cache|Error/i);
  });

  it('written by a build (and a check, for its own bundle), is used by later runs, never rewritten', async () => {
    const folder = temporaryFolderSync('staticmcp-compile-cache-');
    const small = path.join(folder, 'project');
    mkdirSync(path.join(small, 'resources'), { recursive: true });
    writeFileSync(path.join(small, 'resources', 'guide.md'), '# Guide\n\nHello.\n');
    const env = { NODE_COMPILE_CACHE: path.join(folder, 'cache') };
    const tree = path.join(folder, 'tree');
    /** The command bundles' cache files: name and bytes. */
    const bundleCache = () =>
      listFiles(env.NODE_COMPILE_CACHE)
        .filter((file) => /^staticmcp-[0-9a-f]+-/.test(file))
        .map((file) => [file, readFileSync(path.join(env.NODE_COMPILE_CACHE, file)).toString('base64')]);
    expect((await runCli(['build', small, '--out', tree, '--force'], { env })).code).toBe(0);
    const byBuild = bundleCache();
    expect(byBuild).toHaveLength(1);
    // check runs from a bundle of its own (scripts/bundle-cli.mjs): it adds that bundle's cache.
    expect((await runCli(['check', tree], { env })).code).toBe(0);
    const written = bundleCache();
    expect(written).toHaveLength(2);
    expect(written).toEqual(expect.arrayContaining(byBuild));
    expect((await runCli(['build', small, '--out', tree, '--force'], { env })).code).toBe(0);
    expect((await runCli(['check', tree], { env })).code).toBe(0);
    // Rewritten only when missing or refused by V8: the same bytes mean the later runs used them.
    expect(bundleCache()).toEqual(written);
  });

  it("written by serve, which then lowers V8's tier-up budget (Node 20), is used by later serves", async () => {
    const folder = temporaryFolderSync('staticmcp-compile-cache-');
    const cache = path.join(folder, 'cache');
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_COMPILE_CACHE: cache };
    delete env.NODE_DISABLE_COMPILE_CACHE;
    const serveCache = () =>
      listFiles(cache)
        .filter((file) => /^staticmcp-[0-9a-f]+-/.test(file))
        .map((file) => [file, readFileSync(path.join(cache, file)).toString('base64')]);
    const serveAWhile = async () => {
      const bridge = new RawBridge([path.join(project, 'dist')], { env });
      expect((await bridge.initialize()).result?.protocolVersion).toBeDefined();
      // Past the cache write (a second after the start) and the flag change that waits for it.
      await new Promise((resolve) => setTimeout(resolve, 1_600));
      expect((await bridge.request('tools/list')).result?.tools).toBeInstanceOf(Array);
      expect(await bridge.close()).toBe(0);
    };
    await serveAWhile();
    const written = serveCache();
    expect(written).toHaveLength(1);
    await serveAWhile();
    // A cache made under the changed flags would be refused by the next start, and rewritten.
    expect(serveCache()).toEqual(written);
  });
});

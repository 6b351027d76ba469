// `staticmcp index <tree>` with the real CLI (issue #25): a tree shaped like docusaurus-smg's (no
// extension of ours) gains the index, the search and fetch tools and the worker, `check` passes
// on it, and `serve` and the worker in workerd answer search and fetch to the SDK client while the
// tree's own resources and tools still read as before; a tree of ours indexed afterwards holds the
// index a build with the same settings writes, packed or not; bad trees are refused with what to
// do, leaving the folder as it was, unreadable files are skipped with a warning and a count, and a
// run killed while writing leaves the previous tree.
// What index decides without printing (the first of two runs in place, the run after a killed one,
// the refusals after the first) runs in-process (index-tree.ts's indexTree, the command's own call);
// so do the builds of our trees (test/helpers/in-process-build.ts) and their check (checkSource).
// The CLI runs once per thing a user sees: the summary and the JSON report, exit 2 with what to do,
// the worker it writes, check's verdict on a foreign tree.
import { existsSync, readdirSync, readFileSync, rmSync, symlinkSync, watch, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { checkSource } from '../../src/cli/commands/check.js';
import { exitCodeOf } from '../../src/cli/exit-codes.js';
import { StaticMcpError } from '../../src/core/staticmcp-error.js';
import { indexTree } from '../../src/index-tree/index-tree.js';
import { DOCUMENTS, writeDocusaurusTree } from '../bridge/docusaurus-tree.js';
import { startWorkerdSite } from '../edge/workerd-site.js';
import { runCli } from '../helpers/cli.js';
import { fingerprint } from '../helpers/files.js';
import { buildTreeInProcess } from '../helpers/in-process-build.js';
import { CLI } from '../helpers/paths.js';
import { makeProject, writeTree } from '../helpers/projects.js';

function filesBelow(root: string, folder: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (relative: string): void => {
    for (const entry of readdirSync(path.join(root, relative), { withFileTypes: true })) {
      const child = path.posix.join(relative, entry.name);
      if (entry.isDirectory()) walk(child);
      else files.set(child, readFileSync(path.join(root, child)).toString('base64'));
    }
  };
  walk(folder);
  return files;
}

interface TreeManifest {
  capabilities: { tools: unknown[] };
  staticmcp: { search?: { documentCount: number } };
}

function manifestOf(tree: string): TreeManifest {
  return JSON.parse(readFileSync(path.join(tree, 'mcp.json'), 'utf8')) as TreeManifest;
}

/**
 * What `staticmcp index` refuses, in-process: the exit code the command gives for the error and
 * the lines printError writes for it (`error [CODE] message`, then what to do).
 */
async function refusalOf(options: Parameters<typeof indexTree>[0]): Promise<{ code: number; stderr: string }> {
  try {
    await indexTree(options);
  } catch (error) {
    if (!(error instanceof StaticMcpError)) throw error;
    return { code: exitCodeOf(error), stderr: `error [${error.code}] ${error.message}\nwhat to do: ${error.hint}\n` };
  }
  throw new Error(`index ${options.tree} was not refused`);
}

type Hit = { id: string; title: string; url: string };

async function searchAndFetch(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name).sort()).toEqual(['fetch', 'get_resource', 'list_resources', 'search']);
  const found = await client.callTool({ name: 'search', arguments: { query: 'shipped' } });
  const results = (found.structuredContent as { results: Hit[] }).results;
  // The resource (at the raw path docusaurus-smg writes) and get_resource's answer for it.
  expect(results.map((hit) => [hit.id, hit.title]).sort()).toEqual([
    ['resources/blog/launch.json', 'launch'],
    ['tools/get_resource/blog/launch.json', 'blog/launch'],
  ]);
  expect(results.find((hit) => hit.id.startsWith('resources/'))!.url).toBe(
    'https://docs.example.org/resources/blog/launch.json',
  );
  const fetched = await client.callTool({ name: 'fetch', arguments: { id: 'resources/blog/launch.json' } });
  expect(fetched.structuredContent).toMatchObject({ text: DOCUMENTS['docs://blog/launch'] });
  // The tree's own answers read as before (its foreign shapes, not ours).
  const read = await client.readResource({ uri: 'docs://docs/intro' });
  expect(read.contents[0]).toMatchObject({ text: DOCUMENTS['docs://docs/intro'] });
  const call = await client.callTool({ name: 'get_resource', arguments: { uri: 'docs/guides/setup' } });
  expect((call.content as { text: string }[])[0]!.text).toContain('Install it');
  // A call's document takes its text from the call file itself, in the foreign tree's own shape.
  const fromCall = await client.callTool({ name: 'fetch', arguments: { id: 'tools/get_resource/blog/launch.json' } });
  const launch = await client.callTool({ name: 'get_resource', arguments: { uri: 'blog/launch' } });
  expect(fromCall.isError).toBeUndefined();
  expect(fromCall.structuredContent).toMatchObject({
    id: 'tools/get_resource/blog/launch.json',
    title: 'blog/launch',
    text: (launch.content as { text: string }[]).map((item) => item.text).join('\n\n'),
  });
}

describe('staticmcp index over a tree another generator wrote', () => {
  it('adds the index, the tools and the worker into --out (the tree untouched), which check, serve and workerd accept', async () => {
    const tree = await writeDocusaurusTree();
    const before = await fingerprint(tree);
    const out = path.join(path.dirname(tree), 'indexed');
    const result = await runCli([
      'index',
      tree,
      '--out',
      out,
      '--tool',
      'get_resource={uri}',
      '--public-url',
      'https://docs.example.org/',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/indexed 6 document\(s\)/);
    expect(await fingerprint(tree)).toEqual(before);
    const manifest = manifestOf(out);
    // Only `search`: the tree stays another generator's to our readers.
    expect(Object.keys(manifest.staticmcp)).toEqual(['search']);
    expect(manifest.staticmcp.search?.documentCount).toBe(6);
    for (const file of ['_worker.js', '_routes.json', '.assetsignore', 'resources/blog/launch.json'])
      expect(readdirSync(path.join(out, path.dirname(file))), file).toContain(path.basename(file));
    expect(readFileSync(path.join(out, '_headers'), 'utf8')).toContain('/packs/*\n  Cache-Control: public');
    const check = await runCli(['check', out]);
    expect(check.code, check.stdout + check.stderr).toBe(0);

    // serve over stdio and the worker in workerd read the same tree: asked side by side.
    const overStdio = async (): Promise<void> => {
      const client = new Client({ name: 'index-test', version: '1.0.0' });
      await client.connect(
        new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', out], stderr: 'pipe' }),
      );
      try {
        await searchAndFetch(client);
      } finally {
        await client.close();
      }
    };
    const inWorkerd = async (): Promise<void> => {
      const site = await startWorkerdSite(out);
      const overHttp = new Client({ name: 'index-test', version: '1.0.0' });
      try {
        await overHttp.connect(new StreamableHTTPClientTransport(new URL('mcp', site.url)));
        await searchAndFetch(overHttp);
      } finally {
        await overHttp.close();
        await site.close();
      }
    };
    await Promise.all([overStdio(), inWorkerd()]);
    // Six CLI runs and a workerd one after another: past a minute on a loaded machine.
  }, 180_000);

  it('indexes in place, again over its own index, and skips unreadable files with a warning and a count', async () => {
    const tree = await writeDocusaurusTree({ 'resources/docs/intro.json': '{not json' });
    rmSync(path.join(tree, 'tools/get_resource/docs/guides/setup.json'));
    symlinkSync('/etc/hostname', path.join(tree, 'tools/get_resource/docs/guides/setup.json'));
    const first = await runCli(['index', tree, '--tool', 'get_resource', '--json']);
    expect(first.code, first.stderr).toBe(0);
    const report = JSON.parse(first.stdout);
    expect(report.documents).toBe(4);
    expect(report.skipped.map((skipped: { path: string }) => skipped.path).sort()).toEqual([
      'resources/docs/intro.json',
      'tools/get_resource/docs/guides/setup.json',
    ]);
    // The link's message is index's own: no merge, no part (the reader is shared with merge).
    const linkSkip = report.skipped.find((skipped: { path: string }) => skipped.path.endsWith('setup.json'));
    expect(linkSkip.message).toMatch(/^is a symlink: index never follows a link/);
    expect(linkSkip.message).not.toMatch(/merge|part/);
    const index = filesBelow(tree, 'packs/search.index');
    // The link was left out of the tree (no host serves it alike), the malformed file kept.
    expect(existsSync(path.join(tree, 'tools/get_resource/docs/guides/setup.json'))).toBe(false);
    expect(existsSync(path.join(tree, 'resources/docs/intro.json'))).toBe(true);
    // A second run replaces the index (same documents: same files) and keeps nothing stale.
    const second = await runCli(['index', tree, '--tool', 'get_resource']);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/skipped 1 file\(s\)[\s\S]*resources\/docs\/intro\.json: is not JSON/);
    expect(filesBelow(tree, 'packs/search.index')).toEqual(index);
  });

  it('killed while writing in place, leaves the previous tree; the next run cleans up and indexes', async () => {
    const tree = await writeDocusaurusTree();
    const parent = path.dirname(tree);
    const before = await fingerprint(tree);
    const child = spawn(process.execPath, [CLI, 'index', tree], { stdio: 'ignore' });
    // Killed the moment its temporary tree appears beside the tree, long before the swap.
    const watcher = watch(parent, (_event, name) => {
      if (name?.startsWith('tree.staticmcp-tmp-')) child.kill('SIGKILL');
    });
    const signal = await new Promise((resolve) => child.on('close', (_code, killedBy) => resolve(killedBy)));
    watcher.close();
    expect(signal).toBe('SIGKILL');
    expect(await fingerprint(tree)).toEqual(before);
    expect((await indexTree({ tree, tools: [] })).documents).toBe(3);
    expect(readdirSync(parent).filter((name) => name.startsWith('tree.'))).toEqual([]);
    expect(manifestOf(tree).staticmcp.search?.documentCount).toBe(3);
  });

  it('refuses a folder without mcp.json, a tree with its own search tool, and an unknown --tool, writing nothing', async () => {
    const empty = path.dirname(await writeTree({ 'x/readme.txt': 'hello' }));
    const notTree = await runCli(['index', empty]);
    expect(notTree.code).toBe(2);
    expect(notTree.stderr).toMatch(/error \[NOT_A_TREE\].*has no mcp\.json/);
    expect(notTree.stderr).toContain('what to do:');

    const tree = await writeDocusaurusTree();
    const manifest = manifestOf(tree);
    manifest.capabilities.tools.push({ name: 'search', inputSchema: { type: 'object' } });
    writeFileSync(path.join(tree, 'mcp.json'), JSON.stringify(manifest));
    const before = await fingerprint(tree);
    const taken = await refusalOf({ tree, tools: [] });
    expect(taken.code).toBe(2);
    expect(taken.stderr).toMatch(/error \[SEARCH_TOOLS_TAKEN\].*own tool named "search"/);
    expect(taken.stderr).toMatch(/tools\/search → tools\/find-search/);
    expect(await fingerprint(tree)).toEqual(before);

    const other = await writeDocusaurusTree();
    const unknown = await refusalOf({ tree: other, tools: [{ name: 'wiki' }] });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/error \[TOOL_NOT_IN_TREE\].*its tools: list_resources, get_resource/);
  });
});

// The two kinds, and each one's two builds, are independent: run side by side.
describe.concurrent('staticmcp index over a tree of ours', () => {
  for (const [kind, budget] of [
    ['unpacked', 0],
    ['packed', 1],
  ] as const) {
    it(`writes the index a build with the same settings writes (${kind} calls)`, async ({ expect }) => {
      const files = { 'resources/guide.md': '# Guide\n\nPush the tree to a static host.\n' };
      const values = { echo: { values: { value: ['the quick brown fox', 'lazy dogs sleep', 'quick thinking'] } } };
      const publicUrl = 'https://ours.example.org';
      const plain = await makeProject({
        tools: { echo: 'echo-value' },
        config: { publicUrl, search: false, tools: values },
        files,
      });
      const searched = await makeProject({
        tools: { echo: 'echo-value' },
        config: { publicUrl, search: { tools: { echo: { title: 'Echo of {value}' } } }, tools: values },
        files,
      });
      const [built, expected] = await Promise.all([
        buildTreeInProcess(plain, { maxCallFiles: budget }),
        buildTreeInProcess(searched, { maxCallFiles: budget }),
      ]);
      expect(manifestOf(built.outDir).staticmcp.search).toBeUndefined();
      // The CLI's index for one kind; the other through indexTree, the call the command makes.
      if (kind === 'unpacked') {
        const result = await runCli([
          'index',
          built.outDir,
          '--tool',
          'echo=Echo of {value}',
          '--public-url',
          publicUrl,
        ]);
        expect(result.code, result.stderr).toBe(0);
      } else {
        await indexTree({ tree: built.outDir, tools: [{ name: 'echo', title: 'Echo of {value}' }], publicUrl });
      }
      expect(filesBelow(built.outDir, 'packs/search.index')).toEqual(filesBelow(expected.outDir, 'packs/search.index'));
      expect(manifestOf(built.outDir).staticmcp.search).toEqual(manifestOf(expected.outDir).staticmcp.search);
      expect(manifestOf(built.outDir).staticmcp.search?.documentCount).toBe(4);
      // llms.txt and llms-full.txt come from the same documents, as the build writes them (below
      // the title line: the two projects' names differ).
      const belowTitle = (outDir: string, file: string) =>
        readFileSync(path.join(outDir, file), 'utf8').split('\n').slice(1).join('\n');
      for (const file of ['llms.txt', 'llms-full.txt'])
        expect(belowTitle(built.outDir, file)).toBe(belowTitle(expected.outDir, file));
      // The rest of the tree is as built: its content hash still holds.
      // (check's checkSource: the command prints "content hash matches" for hashed files and no problem.)
      const check = (await checkSource(built.outDir)).report;
      expect(check.ok, JSON.stringify(check.problems)).toBe(true);
      expect(check.checked.hashedFiles).toBeGreaterThan(0);
    });
  }
});

// `"search": true` in staticmcp.json, end to end with the real CLI (issue #25): the build indexes
// the text resources below packs/search.index/ and names the index in mcp.json, the same bytes on
// every build, `check` accepts the tree, and `serve` answers the search and fetch tools to the
// official SDK client over stdio, in OpenAI's shapes, with isError for bad input. A call's
// document keeps no text in the index: fetch reads the call, plain or packed, on every host
// (serve, the worker in workerd, serve --http, serve <URL>), with the same JSON; one built tree
// holds both kinds of document, so each host is started once.
// The settings' decisions (indexed by default, nothing with `"search": false`, stemming, no
// index in a shard part, a project tool named search wins with one warning) and a call gone from
// the host are the build's and the session's: built in-process (test/helpers/in-process-build.ts)
// and asked through the core session serve opens (test/helpers/in-process-session.ts), with check's
// own checkSource.
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSource } from '../../src/cli/commands/check.js';
import { buildJson } from '../helpers/cli.js';
import { startWorkerdSite } from '../edge/workerd-site.js';
import { HttpServe } from '../helpers/http-serve.js';
import { buildInProcess } from '../helpers/in-process-build.js';
import { openTreeSession, type TreeSession } from '../helpers/in-process-session.js';
import { CLI } from '../helpers/paths.js';
import { makeProject } from '../helpers/projects.js';

/** A test's room on a machine a second CI shares (CONTRIBUTING: tests are not timed). */
const BUSY_MACHINE_MS = 120_000;
const GUIDE = '# Deploying\n\nPush the tree to Cloudflare Pages; the worker answers /mcp at the edge.\n';
const NOTES = 'Résumé of the café meeting: the Straße team ships packed trees on Thursday.\n';
const ECHO_VALUES = { echo: { values: { value: ['the quick brown fox', 'lazy dogs sleep', 'quick thinking'] } } };

function searchProject(config: Record<string, unknown>, tools: Record<string, string> = { hello: 'ok' }) {
  return makeProject({
    tools,
    config,
    files: {
      'resources/guide.md': GUIDE,
      'resources/notes.txt': NOTES,
      'resources/logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]),
    },
  });
}

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

/** `staticmcp build <project> --json` in-process, which must succeed; its report. */
async function buildOk(project: string, options: Parameters<typeof buildInProcess>[1] = {}) {
  const built = await buildInProcess(project, options);
  expect(built.code, built.error?.message).toBe(0);
  return built.report;
}

/** The result of each query, asked of one in-process session with `tree`. */
async function searchIds(tree: string, queries: string[]): Promise<string[][]> {
  const session = await openTreeSession(tree);
  try {
    const answers: string[][] = [];
    for (const query of queries) {
      const found = await session.callTool('search', { query });
      answers.push((found.structuredContent as { results: { id: string }[] }).results.map((hit) => hit.id));
    }
    return answers;
  } finally {
    await session.close();
  }
}

async function overStdio<T>(target: string, use: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ name: 'search-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', target], stderr: 'pipe' }),
  );
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

// Its first test builds in-process first in this file, which loads the builder's modules: on a
// busy machine that alone outlasts the default 60 s.
describe('search over a built tree', { timeout: BUSY_MACHINE_MS }, () => {
  let project: string;
  let tree: string;
  let client: Client;

  beforeAll(async () => {
    project = await searchProject({ search: true, publicUrl: 'https://docs.example.org/' });
    const { report } = await buildJson(project);
    expect(report.ok).toBe(true);
    tree = report.outDir;
    client = new Client({ name: 'search-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', tree], stderr: 'pipe' }),
    );
  });

  afterAll(async () => {
    await client?.close();
  });

  it('writes the index below packs/search.index/ and names it in mcp.json, the same bytes every build', async () => {
    const manifest = JSON.parse(readFileSync(path.join(tree, 'mcp.json'), 'utf8'));
    expect(manifest.staticmcp.search).toMatchObject({ format: 6, documentCount: 2, blockSize: 16, stemming: 'porter' });
    const first = filesBelow(tree, 'packs/search.index');
    expect([...first.keys()].some((file) => file.endsWith('.pack'))).toBe(true);
    // Named by their content, so caches may keep them for good, as call packs.
    expect(readFileSync(path.join(tree, '_headers'), 'utf8')).toContain(
      '/packs/*\n  Cache-Control: public, max-age=31536000, immutable',
    );
    // Another build (in this test's process: another process than the CLI's) writes the same index.
    const again = await buildOk(project, { outDir: path.join(project, 'second') });
    expect(filesBelow(again.outDir, 'packs/search.index')).toEqual(first);
    // The writer's sorted runs lived beside the output folder, and are gone.
    expect(readdirSync(project).filter((name) => name.includes('.staticmcp-'))).toEqual([]);
    // check accepts it (checkSource: what the command decides; test/cli/check.test.ts runs the CLI).
    const checked = (await checkSource(tree)).report;
    expect(checked.ok, JSON.stringify(checked.problems)).toBe(true);
    expect(checked.problems).toEqual([]);
    // check reads the index: an edited pack of a copy of the tree is reported where it lies.
    const copy = path.join(project, 'edited');
    cpSync(tree, copy, { recursive: true });
    // Short texts: their fetch records are their excerpt sources, in the title pack.
    const pack = [...first.keys()].find((file) => file.includes('/titles/') && file.endsWith('.pack'))!;
    const bytes = readFileSync(path.join(copy, pack));
    bytes[bytes.length - 3] = bytes[bytes.length - 3]! ^ 0x20;
    writeFileSync(path.join(copy, pack), bytes);
    const broken = (await checkSource(copy)).report;
    expect(broken.ok).toBe(false);
    expect(broken.problems.map((problem) => `${problem.path}: ${problem.message}`).join('\n')).toMatch(
      /packs\/search\.index\/.*checksum does not match/,
    );
  });

  it('lists search and fetch as OpenAI defines them, beside the project tools', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['fetch', 'hello', 'search']);
    for (const name of ['search', 'fetch']) {
      const tool = tools.find((candidate) => candidate.name === name)!;
      expect(tool.annotations?.readOnlyHint).toBe(true);
      expect(tool.outputSchema).toMatchObject({ type: 'object' });
    }
    expect(tools.find((tool) => tool.name === 'search')!.inputSchema).toMatchObject({ required: ['query'] });
  });
  it('finds a resource by words folded as the index folds them, and fetches its whole text', async () => {
    const found = await client.callTool({ name: 'search', arguments: { query: 'CAFE strasse' } });
    const results = (found.structuredContent as { results: { id: string; title: string; url: string }[] }).results;
    // The excerpt is the text as written, the matches where the words asked for are in it.
    const excerpt = NOTES.trim();
    const at = (word: string) => [excerpt.indexOf(word), excerpt.indexOf(word) + word.length];
    expect(found.structuredContent).toEqual({
      results: [
        {
          id: 'resources/notes_txt.json',
          title: 'notes.txt',
          // The landing page's view of the document, made absolute from publicUrl (no .json file).
          url: 'https://docs.example.org/?doc=resources/notes_txt.json',
          excerpt,
          matches: [at('café'), at('Straße')],
        },
      ],
      total: 1,
    });
    expect(found.content).toEqual([{ type: 'text', text: JSON.stringify(found.structuredContent) }]);
    const fetched = await client.callTool({ name: 'fetch', arguments: { id: results[0]!.id } });
    expect(fetched.structuredContent).toMatchObject({ id: results[0]!.id, text: NOTES, url: results[0]!.url });
    expect((fetched.structuredContent as { metadata: { mimeType: string } }).metadata.mimeType).toMatch(/^text\/plain/);
    const edge = await client.callTool({ name: 'search', arguments: { query: 'cloudflare worker' } });
    expect((edge.structuredContent as { results: { id: string }[] }).results.map((hit) => hit.id)).toEqual([
      'resources/guide_md.json',
    ]);
  });

  it('answers bad input with isError or an empty list, and reads nothing outside the index', async () => {
    expect((await client.callTool({ name: 'search', arguments: { query: '' } })).isError).toBe(true);
    expect((await client.callTool({ name: 'search', arguments: { query: 'x'.repeat(10_000) } })).isError).toBe(true);
    expect((await client.callTool({ name: 'search', arguments: { query: '?!… 🙂' } })).structuredContent).toEqual({
      results: [],
      total: 0,
    });
    for (const id of ['../mcp.json', 'mcp.json', 'tools/hello.json', 'resources/logo_png.json', 'x'.repeat(100_000)]) {
      const fetched = await client.callTool({ name: 'fetch', arguments: { id } });
      expect(fetched.isError, id.slice(0, 30)).toBe(true);
    }
  });
});

// One project with both kinds of document (text resources, and the calls search.tools names),
// built packed by the CLI (its worker for workerd) and plain; every host only reads its tree, so
// the hosts are asked side by side.
describe('search and fetch on every host', () => {
  let plain = '';
  let packed = '';

  beforeAll(async () => {
    const project = await makeProject({
      tools: { echo: 'echo-value' },
      config: { search: { tools: { echo: { title: 'Echo of {value}' } } }, tools: ECHO_VALUES },
      files: { 'resources/guide.md': GUIDE, 'resources/notes.txt': NOTES },
    });
    // One call file allowed: the calls go into packs, after the search step has read them.
    const built = await buildJson(project, '--out', path.join(project, 'out-packed'), '--max-call-files', '1');
    expect(built.report.ok, built.stderr).toBe(true);
    packed = built.report.outDir;
    plain = (await buildOk(project, { outDir: path.join(project, 'out-plain') })).outDir;
  });

  /** "packed trees thursday": the notes, which hold all three words, above the guide ("trees" finds its "tree"). */
  async function searchTrees(client: Client): Promise<[string, string][]> {
    const found = await client.callTool({ name: 'search', arguments: { query: 'packed trees thursday' } });
    const results = (found.structuredContent as { results: { id: string; url: string }[] }).results;
    const fetched = await client.callTool({ name: 'fetch', arguments: { id: results[0]!.id } });
    expect(fetched.structuredContent).toMatchObject({ text: NOTES, url: results[0]!.url });
    return results.map((hit) => [hit.id, hit.url]);
  }

  /** The call found by "brown fox", and fetch's answer for it. */
  async function fetchFox(client: Client): Promise<{ id: string; result: unknown }> {
    const found = await client.callTool({ name: 'search', arguments: { query: 'brown fox' } });
    const id = (found.structuredContent as { results: { id: string }[] }).results[0]!.id;
    return { id, result: await client.callTool({ name: 'fetch', arguments: { id } }) };
  }

  it('keeps the calls’ text out of the index, plain or packed', () => {
    for (const tree of [plain, packed]) {
      const manifest = JSON.parse(readFileSync(path.join(tree, 'mcp.json'), 'utf8'));
      expect(manifest.staticmcp.search).toMatchObject({ format: 6, documentCount: 5 });
      // The index keeps titles and arguments, not the calls' text (each ends in a newline).
      const documents = [...filesBelow(tree, 'packs/search.index/documents').values()];
      expect(documents.length).toBeGreaterThan(0);
      for (const bytes of documents) expect(Buffer.from(bytes, 'base64').toString('latin1')).not.toContain('fox\\n');
    }
    expect(JSON.parse(readFileSync(path.join(plain, 'mcp.json'), 'utf8')).staticmcp.packs).toBeUndefined();
    expect(JSON.parse(readFileSync(path.join(packed, 'mcp.json'), 'utf8')).staticmcp.packs.echo).toBeDefined();
  });

  it("finds and fetches alike through serve (plain and packed), the tree's worker in workerd, serve --http and serve <URL>", async () => {
    const inWorkerd = async () => {
      const site = await startWorkerdSite(packed);
      const client = new Client({ name: 'search-test', version: '1.0.0' });
      try {
        await client.connect(new StreamableHTTPClientTransport(new URL('mcp', site.url)));
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['search', 'fetch']));
        // Without publicUrl, the worker makes the page absolute from the origin it was asked on
        // (the index read through ASSETS).
        expect(await searchTrees(client)).toEqual([
          ['resources/notes_txt.json', new URL('/?doc=resources/notes_txt.json', site.url).href],
          ['resources/guide_md.json', new URL('/?doc=resources/guide_md.json', site.url).href],
        ]);
        const forged = await client.callTool({ name: 'fetch', arguments: { id: '../mcp.json' } });
        expect(forged.isError).toBe(true);
        // The worker's answer differs only by its url: the call's view, on the worker's own origin.
        const { id, result } = await fetchFox(client);
        const structured = (result as { structuredContent: { url: string } }).structuredContent;
        expect(structured.url).toBe(new URL(`/?doc=${id}`, site.url).href);
        return { id, result: JSON.parse(JSON.stringify(result).replaceAll(structured.url, '')) };
      } finally {
        await client.close();
        await site.close();
      }
    };
    const overHttpAndUrl = async () => {
      const server = await HttpServe.start([packed]);
      const overHttp = new Client({ name: 'search-test', version: '1.0.0' });
      try {
        await overHttp.connect(new StreamableHTTPClientTransport(server.endpoint));
        // serve --http answers from the origin it was asked on; stdio without publicUrl has none: "".
        expect(await searchTrees(overHttp)).toEqual([
          ['resources/notes_txt.json', new URL('/?doc=resources/notes_txt.json', server.endpoint).href],
          ['resources/guide_md.json', new URL('/?doc=resources/guide_md.json', server.endpoint).href],
        ]);
        return await overStdio(new URL('/', server.endpoint).href, async (overUrl) => {
          expect(await searchTrees(overUrl)).toEqual([
            ['resources/notes_txt.json', ''],
            ['resources/guide_md.json', ''],
          ]);
          return fetchFox(overUrl);
        });
      } finally {
        await overHttp.close();
        await server.stop();
      }
    };
    const answers = await Promise.all([
      overStdio(plain, fetchFox),
      overStdio(packed, fetchFox),
      inWorkerd(),
      overHttpAndUrl(),
    ]);
    const [first] = answers as { id: string; result: { structuredContent: unknown; content: unknown } }[];
    expect(first!.id).toMatch(/^tools\/echo\/.+\.json$/);
    expect(first!.result.structuredContent).toEqual({
      id: first!.id,
      title: 'Echo of the quick brown fox',
      text: 'the quick brown fox\n',
      url: '',
      metadata: { tool: 'echo', arguments: { value: 'the quick brown fox' } },
    });
    for (const answer of answers) expect(JSON.stringify(answer)).toBe(JSON.stringify(first));
  });
});

describe('search over precomputed calls', () => {
  it('indexes the calls of the tools search.tools names, titled by its template, packed or not', async () => {
    const project = await makeProject({
      tools: { echo: 'echo-value', hello: 'ok' },
      config: {
        search: { resources: false, tools: { echo: { title: 'Echo of {value}' }, nope: {} } },
        tools: ECHO_VALUES,
      },
      files: { 'resources/guide.md': GUIDE },
    });
    // One call file allowed: the calls go into packs, after the search step has read them.
    const report = await buildOk(project, { maxCallFiles: 1 });
    expect(report.warnings.map((warning) => warning.message)).toContain(
      'search.tools.nope names no tool, so nothing of it is indexed',
    );
    const manifest = JSON.parse(readFileSync(path.join(report.outDir, 'mcp.json'), 'utf8'));
    expect(manifest.staticmcp.packs.echo).toBeDefined();
    expect(manifest.staticmcp.search.documentCount).toBe(3);
    // Call packs and the search index side by side under packs/: check accepts both.
    const check = (await checkSource(report.outDir)).report;
    expect(check.ok, JSON.stringify(check.problems)).toBe(true);
    const session = await openTreeSession(report.outDir);
    try {
      const found = await session.callTool('search', { query: 'QUICK' });
      const results = (found.structuredContent as { results: { id: string; title: string }[] }).results;
      expect(results.map((hit) => hit.title).sort()).toEqual(['Echo of quick thinking', 'Echo of the quick brown fox']);
      const fox = results.find((hit) => hit.title.endsWith('fox'))!;
      const fetched = await session.callTool('fetch', { id: fox.id });
      expect(fetched.structuredContent).toMatchObject({
        text: 'the quick brown fox\n',
        metadata: { tool: 'echo', arguments: { value: 'the quick brown fox' } },
      });
      // The id is the call's own file: the call itself answers the same text.
      expect(fox.id).toMatch(/^tools\/echo\/.+\.json$/);
      const call = await session.callTool('echo', { value: 'the quick brown fox' });
      expect(call.content).toEqual([{ type: 'text', text: 'the quick brown fox\n' }]);
      // Resources were left out by the setting.
      expect((await session.callTool('search', { query: 'cloudflare' })).structuredContent).toEqual({
        results: [],
        total: 0,
      });
    } finally {
      await session.close();
    }
  });

  it('answers isError, and check names the document, when the call is gone from the host', async () => {
    const project = await makeProject({
      tools: { echo: 'echo-value' },
      config: { search: { resources: false, tools: { echo: { title: 'Echo of {value}' } } }, tools: ECHO_VALUES },
    });
    const { outDir } = await buildOk(project);
    const fetchFox = async () => {
      const session = await openTreeSession(outDir);
      try {
        const found = await session.callTool('search', { query: 'brown fox' });
        const id = (found.structuredContent as { results: { id: string }[] }).results[0]!.id;
        return { id, result: await session.callTool('fetch', { id }) };
      } finally {
        await session.close();
      }
    };
    const { id } = await fetchFox();
    rmSync(path.join(outDir, id));
    const { result } = await fetchFox();
    expect(result).toMatchObject({
      isError: true,
      content: [
        {
          text: `The document ${id} is in the search index but its call ${id} is missing on the host; this server's owner should build the tree again and deploy all of it.`,
        },
      ],
    });
    const check = (await checkSource(outDir)).report;
    expect(check.ok).toBe(false);
    expect(check.problems.map((problem) => problem.message).join('\n')).toContain(
      `takes its text from the call ${id}, which the tree lacks`,
    );
  });
});

// Independent builds, side by side; the default settings' tree is built once for the two that read it.
describe.concurrent('search settings', () => {
  let defaultBuild: Promise<string> | undefined;
  /** The tree of a project with no search setting (read only). */
  const buildDefault = (): Promise<string> => {
    defaultBuild ??= searchProject({}).then(async (project) => (await buildOk(project)).outDir);
    return defaultBuild;
  };

  it('indexes the text resources by default, and nothing with "search": false or without text resources', async ({
    expect,
  }) => {
    const manifest = JSON.parse(readFileSync(path.join(await buildDefault(), 'mcp.json'), 'utf8'));
    expect(manifest.staticmcp.search).toMatchObject({ documentCount: 2 });
    const off = await buildOk(await searchProject({ search: false }));
    expect(JSON.parse(readFileSync(path.join(off.outDir, 'mcp.json'), 'utf8')).staticmcp.search).toBeUndefined();
    expect(readdirSync(off.outDir)).not.toContain('packs');
    // Nothing to find: no index, no tools, and _headers as before.
    const bare = await buildOk(await makeProject({ tools: { hello: 'ok' }, config: {} }));
    expect(readdirSync(bare.outDir)).not.toContain('packs');
    expect(readFileSync(path.join(bare.outDir, '_headers'), 'utf8')).not.toContain('/packs/*');
  });

  it('stems English words by default, matches a prefix ending in *, and stems nothing when told', async ({
    expect,
  }) => {
    // "deploy" finds "Deploying", "ship" finds "ships", "thurs*" finds "Thursday".
    expect(await searchIds(await buildDefault(), ['deploy', 'ship thurs*'])).toEqual([
      ['resources/guide_md.json'],
      ['resources/notes_txt.json'],
    ]);
    for (const search of [{ stemming: false }, { language: 'fr' }]) {
      const report = await buildOk(await searchProject({ search }));
      const manifest = JSON.parse(readFileSync(path.join(report.outDir, 'mcp.json'), 'utf8'));
      expect(manifest.staticmcp.search, JSON.stringify(search)).toMatchObject({ format: 6, stemming: 'none' });
      expect(await searchIds(report.outDir, ['deploy', 'deploying'])).toEqual([[], ['resources/guide_md.json']]);
    }
  });

  it('writes no index into a shard part (the merge indexes the merged tree)', async ({ expect }) => {
    const project = await searchProject({ search: true });
    const report = await buildOk(project, { shard: { index: 1, count: 2 }, outDir: path.join(project, 'part-1') });
    expect(readdirSync(report.outDir)).not.toContain('packs');
    const record = JSON.parse(readFileSync(path.join(report.outDir, 'staticmcp-shard.json'), 'utf8'));
    expect(record.search).toEqual({ resources: true, tools: {} });
  });

  it('lets a project tool named search win, and says once how to rename it', async ({ expect }) => {
    const project = await searchProject({ search: true }, { search: 'ok' });
    const report = await buildOk(project);
    const warnings = report.warnings.filter((warning) => warning.message.includes('search and fetch'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toMatch(/rename that script \(e\.g\. tools\/search → tools\/find-search\)/);
    const manifest = JSON.parse(readFileSync(path.join(report.outDir, 'mcp.json'), 'utf8'));
    expect(manifest.staticmcp.search).toBeUndefined();
    const session: TreeSession = await openTreeSession(report.outDir);
    try {
      const listed = (await session.request('tools/list')).result as { tools: { name: string }[] };
      expect(listed.tools.map((tool) => tool.name)).toEqual(['search']);
      expect(await session.callTool('search', {})).toMatchObject({ content: [{ text: 'ok\n' }] });
    } finally {
      await session.close();
    }
  });
});

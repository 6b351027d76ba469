// `"search": true` in staticmcp.json, end to end with the real CLI (issue #25): the build indexes
// the text resources below packs/search.index/ and names the index in mcp.json, the same bytes on
// every build, `check` accepts the tree, and `serve` answers the search and fetch tools to the
// official SDK client over stdio, in OpenAI's shapes, with isError for bad input. A project tool
// named search wins, with one warning saying how to rename it; without the setting the text
// resources are indexed, with `"search": false` nothing. A call's document keeps no text in the
// index: fetch reads the call, plain or packed, on every host, with the same JSON.
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildJson, runCli } from '../helpers/cli.js';
import { startWorkerdSite } from '../edge/workerd-site.js';
import { HttpServe } from '../helpers/http-serve.js';
import { CLI } from '../helpers/paths.js';
import { makeProject } from '../helpers/projects.js';

const GUIDE = '# Deploying\n\nPush the tree to Cloudflare Pages; the worker answers /mcp at the edge.\n';
const NOTES = 'Résumé of the café meeting: the Straße team ships packed trees on Thursday.\n';

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

describe('search over a built tree', () => {
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
    const again = await buildJson(project, '--out', path.join(project, 'second'));
    expect(filesBelow(again.report.outDir, 'packs/search.index')).toEqual(first);
    // The writer's sorted runs lived beside the output folder, and are gone.
    expect(readdirSync(project).filter((name) => name.includes('.staticmcp-'))).toEqual([]);
    const check = await runCli(['check', tree]);
    expect(check.code, check.stdout + check.stderr).toBe(0);
    // check reads the index: an edited pack of a copy of the tree is reported where it lies.
    const copy = path.join(project, 'edited');
    cpSync(tree, copy, { recursive: true });
    // Short texts: their fetch records are their excerpt sources, in the title pack.
    const pack = [...first.keys()].find((file) => file.includes('/titles/') && file.endsWith('.pack'))!;
    const bytes = readFileSync(path.join(copy, pack));
    bytes[bytes.length - 3] = bytes[bytes.length - 3]! ^ 0x20;
    writeFileSync(path.join(copy, pack), bytes);
    const broken = await runCli(['check', copy]);
    expect(broken.code).not.toBe(0);
    expect(broken.stdout + broken.stderr).toMatch(/packs\/search\.index\/.*checksum does not match/);
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

// Both servers only read one tree: built once, and asked side by side.
describe.concurrent('search over HTTP', () => {
  let tree = '';

  beforeAll(async () => {
    const { report } = await buildJson(await searchProject({ search: true }));
    tree = report.outDir;
  });

  it("answers the same through the tree's worker in workerd (the index read through ASSETS)", async ({ expect }) => {
    const site = await startWorkerdSite(tree);
    const client = new Client({ name: 'search-test', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL('mcp', site.url)));
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['search', 'fetch']));
      const found = await client.callTool({ name: 'search', arguments: { query: 'packed trees thursday' } });
      const results = (found.structuredContent as { results: { id: string; url: string }[] }).results;
      // "trees" finds the guide's "tree" too, below the notes that hold all three words. Without
      // publicUrl, the worker makes the page absolute from the origin it was asked on.
      expect(results.map((hit) => [hit.id, hit.url])).toEqual([
        ['resources/notes_txt.json', new URL('/?doc=resources/notes_txt.json', site.url).href],
        ['resources/guide_md.json', new URL('/?doc=resources/guide_md.json', site.url).href],
      ]);
      const fetched = await client.callTool({ name: 'fetch', arguments: { id: results[0]!.id } });
      expect(fetched.structuredContent).toMatchObject({ text: NOTES, url: results[0]!.url });
      const forged = await client.callTool({ name: 'fetch', arguments: { id: '../mcp.json' } });
      expect(forged.isError).toBe(true);
    } finally {
      await client.close();
      await site.close();
    }
  });

  it('answers the same through serve --http, and through serve <URL> of that server', async ({ expect }) => {
    const server = await HttpServe.start([tree]);
    const clients: Client[] = [];
    try {
      const overHttp = new Client({ name: 'search-test', version: '1.0.0' });
      clients.push(overHttp);
      await overHttp.connect(new StreamableHTTPClientTransport(server.endpoint));
      const overUrl = new Client({ name: 'search-test', version: '1.0.0' });
      clients.push(overUrl);
      const site = new URL('/', server.endpoint).href;
      await overUrl.connect(
        new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', site], stderr: 'pipe' }),
      );
      // serve --http answers from the origin it was asked on; stdio without publicUrl has none: "".
      const urls = [new URL('/?doc=resources/notes_txt.json', server.endpoint).href, ''];
      for (const [position, client] of clients.entries()) {
        const found = await client.callTool({ name: 'search', arguments: { query: 'packed trees thursday' } });
        const results = (found.structuredContent as { results: { id: string; url: string }[] }).results;
        expect(results.map((hit) => [hit.id, hit.url])).toEqual([
          ['resources/notes_txt.json', urls[position]],
          ['resources/guide_md.json', urls[position] && urls[position]!.replace('notes_txt', 'guide_md')],
        ]);
        const fetched = await client.callTool({ name: 'fetch', arguments: { id: results[0]!.id } });
        expect(fetched.structuredContent).toMatchObject({ text: NOTES });
      }
    } finally {
      await Promise.all(clients.map((client) => client.close()));
      await server.stop();
    }
  });
});

describe('search over precomputed calls', () => {
  it('indexes the calls of the tools search.tools names, titled by its template, packed or not', async () => {
    const project = await makeProject({
      tools: { echo: 'echo-value', hello: 'ok' },
      config: {
        search: { resources: false, tools: { echo: { title: 'Echo of {value}' }, nope: {} } },
        tools: { echo: { values: { value: ['the quick brown fox', 'lazy dogs sleep', 'quick thinking'] } } },
      },
      files: { 'resources/guide.md': GUIDE },
    });
    // One call file allowed: the calls go into packs, after the search step has read them.
    const { report } = await buildJson(project, '--max-call-files', '1');
    expect(report.ok).toBe(true);
    expect(report.warnings.map((warning) => warning.message)).toContain(
      'search.tools.nope names no tool, so nothing of it is indexed',
    );
    const manifest = JSON.parse(readFileSync(path.join(report.outDir, 'mcp.json'), 'utf8'));
    expect(manifest.staticmcp.packs.echo).toBeDefined();
    expect(manifest.staticmcp.search.documentCount).toBe(3);
    // Call packs and the search index side by side under packs/: check accepts both.
    const check = await runCli(['check', report.outDir]);
    expect(check.code, check.stdout + check.stderr).toBe(0);
    const client = new Client({ name: 'search-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', report.outDir], stderr: 'pipe' }),
    );
    try {
      const found = await client.callTool({ name: 'search', arguments: { query: 'QUICK' } });
      const results = (found.structuredContent as { results: { id: string; title: string }[] }).results;
      expect(results.map((hit) => hit.title).sort()).toEqual(['Echo of quick thinking', 'Echo of the quick brown fox']);
      const fox = results.find((hit) => hit.title.endsWith('fox'))!;
      const fetched = await client.callTool({ name: 'fetch', arguments: { id: fox.id } });
      expect(fetched.structuredContent).toMatchObject({
        text: 'the quick brown fox\n',
        metadata: { tool: 'echo', arguments: { value: 'the quick brown fox' } },
      });
      // The id is the call's own file: the call itself answers the same text.
      expect(fox.id).toMatch(/^tools\/echo\/.+\.json$/);
      const call = await client.callTool({ name: 'echo', arguments: { value: 'the quick brown fox' } });
      expect(call.content).toEqual([{ type: 'text', text: 'the quick brown fox\n' }]);
      // Resources were left out by the setting.
      expect((await client.callTool({ name: 'search', arguments: { query: 'cloudflare' } })).structuredContent).toEqual(
        {
          results: [],
          total: 0,
        },
      );
    } finally {
      await client.close();
    }
  });
});

describe("fetch of a call's document", () => {
  const config = {
    search: { resources: false, tools: { echo: { title: 'Echo of {value}' } } },
    tools: { echo: { values: { value: ['the quick brown fox', 'lazy dogs sleep', 'quick thinking'] } } },
  };
  const FOX_ID = (id: string) => expect(id).toMatch(/^tools\/echo\/.+\.json$/);

  async function fetchFox(client: Client): Promise<{ id: string; result: unknown }> {
    const found = await client.callTool({ name: 'search', arguments: { query: 'brown fox' } });
    const id = (found.structuredContent as { results: { id: string }[] }).results[0]!.id;
    return { id, result: await client.callTool({ name: 'fetch', arguments: { id } }) };
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

  it('reads the call, plain or packed, on every host, and answers the same JSON', async () => {
    const project = await makeProject({ tools: { echo: 'echo-value' }, config });
    const plain = (await buildJson(project, '--out', path.join(project, 'out-plain'))).report;
    const packed = (await buildJson(project, '--out', path.join(project, 'out-packed'), '--max-call-files', '1'))
      .report;
    expect(plain.ok && packed.ok).toBe(true);
    for (const tree of [plain.outDir, packed.outDir]) {
      const manifest = JSON.parse(readFileSync(path.join(tree, 'mcp.json'), 'utf8'));
      expect(manifest.staticmcp.search.format).toBe(6);
      // The index keeps titles and arguments, not the calls' text (each ends in a newline).
      const documents = [...filesBelow(tree, 'packs/search.index/documents').values()];
      expect(documents.length).toBeGreaterThan(0);
      for (const bytes of documents) expect(Buffer.from(bytes, 'base64').toString('latin1')).not.toContain('fox\\n');
    }
    expect(JSON.parse(readFileSync(path.join(packed.outDir, 'mcp.json'), 'utf8')).staticmcp.packs.echo).toBeDefined();

    const answers: unknown[] = [];
    answers.push(await overStdio(plain.outDir, fetchFox));
    answers.push(await overStdio(packed.outDir, fetchFox));
    const site = await startWorkerdSite(packed.outDir);
    try {
      const client = new Client({ name: 'search-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL('mcp', site.url)));
      // The worker's answer differs only by its url: the call's view, on the worker's own origin.
      const { id, result } = await fetchFox(client);
      const structured = (result as { structuredContent: { url: string } }).structuredContent;
      expect(structured.url).toBe(new URL(`/?doc=${id}`, site.url).href);
      answers.push({
        id,
        result: JSON.parse(JSON.stringify(result).replaceAll(structured.url, '')),
      });
      await client.close();
    } finally {
      await site.close();
    }
    const server = await HttpServe.start([packed.outDir]);
    try {
      answers.push(await overStdio(new URL('/', server.endpoint).href, fetchFox));
    } finally {
      await server.stop();
    }
    const [first] = answers as { id: string; result: { structuredContent: unknown; content: unknown } }[];
    FOX_ID(first!.id);
    expect(first!.result.structuredContent).toEqual({
      id: first!.id,
      title: 'Echo of the quick brown fox',
      text: 'the quick brown fox\n',
      url: '',
      metadata: { tool: 'echo', arguments: { value: 'the quick brown fox' } },
    });
    for (const answer of answers) expect(JSON.stringify(answer)).toBe(JSON.stringify(first));
  });

  it('answers isError, and check names the document, when the call is gone from the host', async () => {
    const project = await makeProject({ tools: { echo: 'echo-value' }, config });
    const { report } = await buildJson(project);
    const { id } = await overStdio(report.outDir, fetchFox);
    rmSync(path.join(report.outDir, id));
    const { result } = await overStdio(report.outDir, fetchFox);
    expect(result).toMatchObject({
      isError: true,
      content: [
        {
          text: `The document ${id} is in the search index but its call ${id} is missing on the host; this server's owner should build the tree again and deploy all of it.`,
        },
      ],
    });
    const check = await runCli(['check', report.outDir]);
    expect(check.code).not.toBe(0);
    expect(check.stdout + check.stderr).toContain(`takes its text from the call ${id}, which the tree lacks`);
  });
});

// Independent builds, side by side; the default settings' tree is built once for the two that read it.
describe.concurrent('search settings', () => {
  let defaultBuild: Promise<string> | undefined;
  /** The tree of a project with no search setting (read only). */
  const buildDefault = (): Promise<string> => {
    defaultBuild ??= searchProject({}).then(async (project) => (await buildJson(project)).report.outDir);
    return defaultBuild;
  };

  it('indexes the text resources by default, and nothing with "search": false or without text resources', async ({
    expect,
  }) => {
    const report = { outDir: await buildDefault() };
    const manifest = JSON.parse(readFileSync(path.join(report.outDir, 'mcp.json'), 'utf8'));
    expect(manifest.staticmcp.search).toMatchObject({ documentCount: 2 });
    const off = await searchProject({ search: false });
    const offReport = (await buildJson(off)).report;
    expect(JSON.parse(readFileSync(path.join(offReport.outDir, 'mcp.json'), 'utf8')).staticmcp.search).toBeUndefined();
    expect(readdirSync(offReport.outDir)).not.toContain('packs');
    // Nothing to find: no index, no tools, and _headers as before.
    const bare = await makeProject({ tools: { hello: 'ok' }, config: {} });
    const bareReport = (await buildJson(bare)).report;
    expect(readdirSync(bareReport.outDir)).not.toContain('packs');
    expect(readFileSync(path.join(bareReport.outDir, '_headers'), 'utf8')).not.toContain('/packs/*');
  });

  it('stems English words by default, matches a prefix ending in *, and stems nothing when told', async ({
    expect,
  }) => {
    /** The ids each query finds, asked of one `serve` of the tree. */
    const ids = async (tree: string, queries: string[]) => {
      const client = new Client({ name: 'stemming-test', version: '1.0.0' });
      await client.connect(
        new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', tree], stderr: 'pipe' }),
      );
      try {
        const answers: string[][] = [];
        for (const query of queries) {
          const found = await client.callTool({ name: 'search', arguments: { query } });
          answers.push((found.structuredContent as { results: { id: string }[] }).results.map((hit) => hit.id));
        }
        return answers;
      } finally {
        await client.close();
      }
    };
    // "deploy" finds "Deploying", "ship" finds "ships", "thurs*" finds "Thursday".
    expect(await ids(await buildDefault(), ['deploy', 'ship thurs*'])).toEqual([
      ['resources/guide_md.json'],
      ['resources/notes_txt.json'],
    ]);
    for (const search of [{ stemming: false }, { language: 'fr' }]) {
      const { report } = await buildJson(await searchProject({ search }));
      const manifest = JSON.parse(readFileSync(path.join(report.outDir, 'mcp.json'), 'utf8'));
      expect(manifest.staticmcp.search, JSON.stringify(search)).toMatchObject({ format: 6, stemming: 'none' });
      expect(await ids(report.outDir, ['deploy', 'deploying'])).toEqual([[], ['resources/guide_md.json']]);
    }
  });

  it('writes no index into a shard part (the merge indexes the merged tree)', async ({ expect }) => {
    const project = await searchProject({ search: true });
    const { report } = await buildJson(project, '--shard', '1/2', '--out', path.join(project, 'part-1'));
    expect(report.ok).toBe(true);
    expect(readdirSync(report.outDir)).not.toContain('packs');
    const record = JSON.parse(readFileSync(path.join(report.outDir, 'staticmcp-shard.json'), 'utf8'));
    expect(record.search).toEqual({ resources: true, tools: {} });
  });

  it('lets a project tool named search win, and says once how to rename it', async ({ expect }) => {
    const project = await searchProject({ search: true }, { search: 'ok' });
    const { report } = await buildJson(project);
    expect(report.ok).toBe(true);
    const warnings = report.warnings.filter((warning) => warning.message.includes('search and fetch'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toMatch(/rename that script \(e\.g\. tools\/search → tools\/find-search\)/);
    const manifest = JSON.parse(readFileSync(path.join(report.outDir, 'mcp.json'), 'utf8'));
    expect(manifest.staticmcp.search).toBeUndefined();
    const client = new Client({ name: 'search-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', report.outDir], stderr: 'pipe' }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['search']);
      expect(await client.callTool({ name: 'search', arguments: {} })).toMatchObject({ content: [{ text: 'ok\n' }] });
    } finally {
      await client.close();
    }
  });
});

// Every document has a page a person can open (issue #39), end to end with the real CLI: a
// Markdown page's own URL from its front matter or sidecar, else the landing page's `?doc=` view,
// stored relative and made absolute by each host (stdio: "" without publicUrl; serve --http: the
// origin it was asked on); resources/list carries the page in `_meta`; llms.txt and llms-full.txt
// list the same documents and `check` holds them to their shape; and a folder of HTML pages built
// in one command (`build --site`) with its own `_headers` joined to the tree's. Trees are served,
// and `--site` refused, by the CLI; they are built by the build command's decision in-process
// (test/helpers/in-process-build.ts) and checked by check's (checkSource).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSource } from '../../src/cli/commands/check.js';
import { problemsOf, runCli } from '../helpers/cli.js';
import { buildInProcess } from '../helpers/in-process-build.js';
import { HttpServe } from '../helpers/http-serve.js';
import { CLI } from '../helpers/paths.js';
import { makeProject } from '../helpers/projects.js';

const FILES = {
  'resources/a.md': '---\nurl: https://example.org/guide/a\n---\n# Alpha lantern\n\nAlpha wick text.\n',
  'resources/b.md': '# Beta lantern\n\nBeta wick text.\n',
  'resources/b.md.meta.json': JSON.stringify({ url: 'https://example.org/b' }),
  'resources/c.md': '---\ncanonical: "javascript:alert(1)"\n---\n# Gamma lantern\n\nGamma wick text.\n',
  'resources/notes/d.md': '---\nurl: https://example.org/guide/a\n---\n# Delta lantern\n\nDelta wick text.\n',
};

type Hit = { id: string; url: string };

async function hitsOf(client: Client, query: string): Promise<Record<string, string>> {
  const found = await client.callTool({ name: 'search', arguments: { query } });
  const { results } = found.structuredContent as { results: Hit[] };
  return Object.fromEntries(results.map((hit) => [hit.id, hit.url]));
}

async function pagesOf(client: Client): Promise<Record<string, unknown>> {
  const { resources } = await client.listResources();
  return Object.fromEntries(resources.map((resource) => [resource.name, resource._meta?.['staticmcp/url']]));
}

describe("a document's page", () => {
  let tree: string;
  let warnings: string;
  let stdio: Client;

  beforeAll(async () => {
    const project = await makeProject({ config: { title: 'Lantern notes', search: true }, files: FILES });
    const { report } = await buildInProcess(project);
    expect(report.ok, problemsOf(report)).toBe(true);
    tree = report.outDir;
    warnings = JSON.stringify(report.warnings);
    stdio = new Client({ name: 'urls-test', version: '1.0.0' });
    await stdio.connect(
      new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', tree], stderr: 'pipe' }),
    );
  });

  afterAll(async () => {
    await stdio?.close();
  });

  it('is its front matter or sidecar url, else the view, which stdio without publicUrl cannot make absolute', async () => {
    expect(await hitsOf(stdio, 'lantern')).toEqual({
      'resources/a_md.json': 'https://example.org/guide/a',
      'resources/b_md.json': 'https://example.org/b',
      'resources/c_md.json': '',
      'resources/notes/d_md.json': '',
    });
    expect(await pagesOf(stdio)).toEqual({
      'a.md': 'https://example.org/guide/a',
      'b.md': 'https://example.org/b',
      'c.md': undefined,
      'd.md': undefined,
    });
    // A url that is not http(s) is ignored, and a second claim on one page loses it, each said.
    expect(warnings).toMatch(/resources\/c\.md.*javascript:alert\(1\).{0,3} is not an absolute http\(s\) URL; ignored/);
    expect(warnings).toMatch(
      /resources\/notes\/d\.md.*claims the page https:\/\/example\.org\/guide\/a, which resources\/a\.md/,
    );
  });

  it('is made absolute from the origin serve --http was asked on', async () => {
    const server = await HttpServe.start([tree]);
    const client = new Client({ name: 'urls-test', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(server.endpoint));
      const view = (id: string) => new URL(`/?doc=${id}`, server.endpoint).href;
      const hits = await hitsOf(client, 'lantern');
      expect(hits['resources/c_md.json']).toBe(view('resources/c_md.json'));
      expect(hits['resources/a_md.json']).toBe('https://example.org/guide/a');
      const fetched = await client.callTool({ name: 'fetch', arguments: { id: 'resources/notes/d_md.json' } });
      expect(fetched.structuredContent).toMatchObject({ url: view('resources/notes/d_md.json') });
      expect(JSON.parse((fetched.content as { text: string }[])[0]!.text)).toEqual(fetched.structuredContent);
    } finally {
      await client.close();
      await server.stop();
    }
  });

  it('is listed in llms.txt by folder, every text in llms-full.txt, and check holds both to their shape', async () => {
    const llms = readFileSync(path.join(tree, 'llms.txt'), 'utf8');
    expect(llms).toBe(
      [
        '# Lantern notes',
        '',
        '## Documents',
        '',
        '- [Alpha lantern](https://example.org/guide/a)',
        '- [Beta lantern](https://example.org/b)',
        '- [Gamma lantern](./?doc=resources/c_md.json)',
        '',
        '## notes',
        '',
        '- [Delta lantern](./?doc=resources/notes/d_md.json)',
        '',
      ].join('\n'),
    );
    const full = readFileSync(path.join(tree, 'llms-full.txt'), 'utf8');
    for (const word of ['Alpha wick text.', 'Beta wick text.', 'Gamma wick text.', 'Delta wick text.'])
      expect(full).toContain(word);
    // check's decision in-process (its exit code is 0 for an ok report, 1 otherwise).
    expect((await checkSource(tree)).report.problems).toEqual([]);
    writeFileSync(path.join(tree, 'llms.txt'), llms.replace('# Lantern notes', 'Lantern notes'));
    const broken = (await checkSource(tree)).report;
    expect(broken.ok).toBe(false);
    expect(broken.problems.map((problem) => `${problem.path}: ${problem.message}`).join('\n')).toMatch(
      /llms\.txt.*line 1 is not what llms\.txt allows/,
    );
  });
});

describe('build --site <folder> (a folder of HTML pages, no staticmcp.json)', () => {
  it("builds each page as a document, joining the site's _headers after the tree's", async () => {
    const project = await makeProject({
      files: {
        'public/index.html': '<title>Home</title><main><h1>Home</h1><p>Harbour lights.</p></main>',
        'public/guide/wick.html': '<title>Wicks</title><nav>Menu</nav><main><p>Trim the wick.</p></main>',
        'public/_headers':
          '/*\n  Cache-Control: max-age=9\n  X-Frame-Options: DENY\n/mcp.json\n  X-Custom: 1\n/assets/*\n  Cache-Control: max-age=99\n',
      },
    });
    const { report } = await buildInProcess(project, { siteDir: path.join(project, 'public') });
    expect(report.ok, problemsOf(report)).toBe(true);
    const manifest = JSON.parse(readFileSync(path.join(report.outDir, 'mcp.json'), 'utf8'));
    expect(
      manifest.capabilities.resources.map((resource: { name: string; _meta: unknown }) => [
        resource.name,
        resource._meta,
      ]),
    ).toEqual([
      ['guide/wick.html', { 'staticmcp/url': 'guide/wick.html' }],
      ['index.html', { 'staticmcp/url': './' }],
    ]);
    const headers = readFileSync(path.join(report.outDir, '_headers'), 'utf8');
    // Ours stay; the site's broad rule keeps only what ours do not set; its rule for mcp.json is dropped.
    expect(headers).toMatch(/^\/mcp\.json\n {2}Cache-Control: public, max-age=60/m);
    expect(headers).toContain('/*\n  X-Frame-Options: DENY\n');
    expect(headers).toContain('/assets/*\n  Cache-Control: max-age=99\n');
    expect(headers).not.toContain('max-age=9\n');
    expect(headers).not.toContain('X-Custom');
    const told = JSON.stringify(report.warnings);
    expect(told).toMatch(/public\/_headers.*rule for \/mcp\.json is left out/);
    expect(told).toMatch(/public\/_headers.*rule for \/\* also matches the tree's own files.*cache-control left out/);
    expect((await checkSource(report.outDir)).report.problems).toEqual([]);
    // A folder outside the project is refused, saying how to run it.
    const outside = await runCli(['build', project, '--site', path.dirname(project)]);
    expect(outside.code).not.toBe(0);
    expect(outside.stderr).toMatch(/--site .* is not a folder inside the project.*staticmcp build --site public/s);
  });
});

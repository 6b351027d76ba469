// A built website as a source (`"site": "public"` in staticmcp.json, as a Hugo-style generator
// writes it: published once, by the site's rules), end to end with the real CLI: each page
// of the fixture site becomes a resource with its title and canonical URL, read through `serve`
// over stdio as its main text without navigation, header or scripts, and found by search; the
// site's files are published as they are, its index.html and 404.html win (the landing page moves
// to /staticmcp.html), `check` accepts the tree, and a site _worker.js is refused.
import { cpSync, existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildJson, problemsOf, runCli } from '../helpers/cli.js';
import { checkSource } from '../../src/cli/commands/check.js';
import { CLI, REPO_ROOT } from '../helpers/paths.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

const FIXTURE = path.join(REPO_ROOT, 'test/fixtures/site-project');

async function copyFixture(): Promise<string> {
  const project = path.join(await temporaryFolder('staticmcp-site-'), 'site-project');
  cpSync(FIXTURE, project, { recursive: true });
  return project;
}

function textOf(result: { contents: unknown[] }): string {
  return (result.contents[0] as { text: string }).text;
}

describe('a built website as a source', () => {
  let tree: string;
  let warnings: string;
  let client: Client;

  beforeAll(async () => {
    const { report } = await buildJson(await copyFixture());
    expect(report.ok, problemsOf(report)).toBe(true);
    tree = report.outDir;
    warnings = JSON.stringify(report.warnings);
    client = new Client({ name: 'site-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', tree], stderr: 'pipe' }),
    );
  });

  afterAll(async () => {
    await client?.close();
  });

  it('lists each page with its title, at its canonical URL or its path under publicUrl', async () => {
    const { resources } = await client.listResources();
    const pages = resources
      .map((resource) => ({ uri: resource.uri, title: resource.title, name: resource.name }))
      .sort((left, right) => left.name.localeCompare(right.name));
    expect(pages).toEqual([
      { uri: 'https://docs.example.org/about.html', title: 'About us', name: 'about.html' },
      {
        uri: 'https://lanterns.example.com/install/',
        title: 'Installing lanterns',
        name: 'guide/install.html',
      },
      {
        uri: 'https://docs.example.org/guide/print.html',
        title: 'Installing lanterns (print)',
        name: 'guide/print.html',
      },
      { uri: 'https://docs.example.org/', title: 'Lanterns docs', name: 'index.html' },
    ]);
    // A second claim on a URL and a canonical link that is not http(s) are warnings, never fatal.
    expect(warnings).toMatch(
      /public\/guide\/print\.html.*claims the URL https:\/\/lanterns\.example\.com\/install\/, which public\/guide\/install\.html claimed first/,
    );
    expect(warnings).toMatch(/public\/about\.html.*canonical link uses javascript:, not http\(s\)/);
    // A canonical link on another host than publicUrl's is kept, said once for all such pages.
    expect(warnings).toMatch(/public\/guide\/install\.html.*names a canonical link on another host than publicUrl's/);
  });

  it("reads a page as its main text, headings kept, without the site's chrome or scripts", async () => {
    const install = textOf(await client.readResource({ uri: 'https://lanterns.example.com/install/' }));
    expect(install).toBe(
      '# Install\n\nFill the reservoir with paraffin before the first lighting.\n\n## Wicks\n\n- Trim the wick\n\n- Light it',
    );
    const about = textOf(await client.readResource({ uri: 'https://docs.example.org/about.html' }));
    expect(about).toBe('# About us\n\nWe are keepers of the lighthouse.');
    for (const chrome of ['Navigation-menu', 'Footer-copyright', 'tracker-script', 'Sidebar-links', 'Site-header'])
      expect(install + about).not.toContain(chrome);
  });

  it('finds a page by a word of its body, its url the canonical link, else the page on the site', async () => {
    const result = await client.callTool({ name: 'search', arguments: { query: 'paraffin lighthouse' } });
    const { results } = JSON.parse((result.content as { text: string }[])[0]!.text) as {
      results: { id: string; title: string; url: string }[];
    };
    expect(results.map((hit) => [hit.title, hit.url]).sort()).toEqual([
      ['About us', 'https://docs.example.org/about.html'],
      ['Installing lanterns', 'https://lanterns.example.com/install/'],
    ]);
  });

  it("publishes the site's files, its index.html and 404.html winning, and check accepts the tree", async () => {
    const site = (name: string) => readFileSync(path.join(FIXTURE, 'public', name), 'utf8');
    const published = (name: string) => readFileSync(path.join(tree, name), 'utf8');
    for (const name of ['index.html', '404.html', '_redirects', 'style.css', 'guide/install.html'])
      expect(published(name)).toBe(site(name));
    // The landing page moved beside mcp.json, with its policy; the site's own page gets none of ours.
    expect(published('staticmcp.html')).toContain('mcp.json');
    const headers = published('_headers');
    expect(headers).toMatch(/^\/staticmcp\.html\n {2}Content-Security-Policy:/m);
    expect(headers).not.toMatch(/^\/(index\.html)?\n {2}Content-Security-Policy:/m);
    // check accepts it (checkSource: what the command decides; test/cli/check.test.ts runs the CLI).
    const checked = (await checkSource(tree)).report;
    expect(checked.ok, JSON.stringify(checked.problems)).toBe(true);
    expect(checked.problems).toEqual([]);
  });

  it('refuses a site _worker.js, a link out of the project and a missing folder, saying what to do', async () => {
    const project = await copyFixture();
    writeFileSync(path.join(project, 'public/_worker.js'), 'export default {}\n');
    // A link that leads out of the project is refused, as everywhere the build publishes.
    writeFileSync(path.join(project, '..', 'outside.html'), '<main>Outside-secret</main>');
    symlinkSync(path.join(project, '..', 'outside.html'), path.join(project, 'public/outside.html'));
    const { report } = await buildJson(project);
    expect(report.ok).toBe(false);
    expect(problemsOf(report)).toMatch(/public\/_worker\.js.*refused.*the build writes _worker\.js itself/);
    expect(problemsOf(report)).toMatch(/public\/outside\.html.*cannot be read/);
    expect(existsSync(path.join(report.outDir, 'outside.html'))).toBe(false);
    // A site folder that is not there stops the build, saying what to do.
    writeFileSync(path.join(project, 'staticmcp.json'), JSON.stringify({ site: 'missing' }));
    const missing = await runCli(['build', project]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/site names missing, which is not a folder.*Build the site first/s);
    expect(
      existsSync(path.join(report.outDir, '_worker.js')) &&
        readFileSync(path.join(report.outDir, '_worker.js'), 'utf8'),
    ).not.toBe('export default {}\n');
  });
});

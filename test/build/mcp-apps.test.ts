// MCP Apps in the build: fixtures/apps (a tool's ui/ folder, a single file's <script>.ui.html, a
// standalone ui/<name>/) becomes ui:// resources with the extension's MIME type and _meta.ui,
// tools get _meta.ui.resourceUri and visibility; every wrong UI is a build failure that names its
// file and skips only its own tool or UI. The fixture is built by the CLI once; the bad UIs'
// builds and every check (the fixture's tree, the foreign tree) run the commands' decisions in-process.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkSource } from '../../src/cli/commands/check.js';
import { problemsOf } from '../helpers/cli.js';
import { buildInProcess } from '../helpers/in-process-build.js';
import { readJson } from '../helpers/files.js';
import { buildAppsProject } from '../helpers/apps-project.js';
import { writeProject, writeTree } from '../helpers/projects.js';

interface Manifest {
  capabilities: {
    tools: { name: string; _meta?: Record<string, unknown> }[];
    resources: { uri: string; name: string; mimeType?: string; _meta?: Record<string, unknown> }[];
  };
}

const APP = 'text/html;profile=mcp-app';
const tool = (description = 'A tool') => ({
  script: `#!/bin/sh\nif [ "$1" = "--help" ]; then echo '{"description": "${description}"}'; exit 0; fi\necho ok\n`,
});
const PAGE = '<!doctype html><html lang="en"><head><title>t</title></head><body>app</body></html>';

describe('fixtures/apps', () => {
  let tree: string;
  beforeAll(() => {
    tree = path.join(buildAppsProject(), 'dist');
  });

  it('lists each UI as a ui:// resource with the MIME type and _meta.ui, and links each tool to its UI', async () => {
    const manifest = await readJson<Manifest>(path.join(tree, 'mcp.json'));
    expect(manifest.capabilities.tools.map((entry) => [entry.name, entry._meta])).toEqual([
      // The deprecated flat key too, as ext-apps' registerAppTool writes it, for hosts that read only that.
      [
        'echo-app',
        {
          ui: { resourceUri: 'ui://echo-app/index.html', visibility: ['app'] },
          'ui/resourceUri': 'ui://echo-app/index.html',
        },
      ],
      ['forecast', { ui: { resourceUri: 'ui://forecast/index.html' }, 'ui/resourceUri': 'ui://forecast/index.html' }],
      [
        'status',
        {
          ui: { resourceUri: 'ui://dashboard/index.html', visibility: ['model', 'app'] },
          'ui/resourceUri': 'ui://dashboard/index.html',
        },
      ],
    ]);
    expect(
      manifest.capabilities.resources.map(({ uri, name, mimeType, _meta }) => ({ uri, name, mimeType, _meta })),
    ).toEqual([
      { uri: 'ui://dashboard/index.html', name: 'dashboard', mimeType: APP, _meta: { ui: { prefersBorder: false } } },
      { uri: 'ui://echo-app/index.html', name: 'echo-app', mimeType: APP, _meta: undefined },
      {
        uri: 'ui://forecast/index.html',
        name: 'forecast',
        mimeType: APP,
        _meta: { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } },
      },
    ]);
  });

  it('writes the page whole, with its _meta.ui, in the resource file; the tool answers stay plain text', async () => {
    const file = await readJson<{ uri: string; mimeType: string; text: string; _meta: unknown }>(
      path.join(tree, 'resources/forecast/index_html.json'),
    );
    expect(file.uri).toBe('ui://forecast/index.html');
    expect(file.mimeType).toBe(APP);
    expect(file._meta).toEqual({ ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } });
    expect(file.text).toMatch(/^<!doctype html>/);
    // The ext-apps App class is inlined (the page works with no network).
    expect(file.text).toContain('globalThis.ExtApps');
    expect(file.text).toContain('callServerTool');
    const call = await readJson<{ content: { type: string; text: string }[] }>(
      path.join(tree, 'tools/forecast/paris.json'),
    );
    expect(call.content).toEqual([{ type: 'text', text: 'Paris: sunny, 21 °C\n' }]);
  });

  it('passes staticmcp check', async () => {
    // check's decision (checkSource): test/cli/check.test.ts runs the command on a clean tree.
    const checked = (await checkSource(tree)).report;
    expect(checked.problems).toEqual([]);
    expect(checked.ok).toBe(true);
  });

  it('is what staticmcp check expects of apps: a tree whose tool names a page it lacks is reported', async () => {
    const foreign = await writeTree({
      'mcp.json': {
        protocolVersion: '2025-06-18',
        serverInfo: { name: 'foreign', version: '1' },
        capabilities: {
          tools: [
            {
              name: 'chart',
              inputSchema: { type: 'object' },
              _meta: { ui: { resourceUri: 'ui://chart/missing.html' } },
            },
          ],
          resources: [{ uri: 'ui://chart/page.html', name: 'page', mimeType: 'text/html' }],
        },
      },
      'tools/chart.json': { content: [{ type: 'text', text: 'chart' }] },
      'resources/chart/page.html.json': { uri: 'ui://chart/page.html', mimeType: 'text/html', text: '<p>x</p>' },
    });
    const { report } = await checkSource(foreign);
    // Exit 1 is `check`'s answer to a report that is not ok (test/cli/check.test.ts runs it).
    expect(report.ok).toBe(false);
    const printed = report.problems.map((problem) => `${problem.message}\n${problem.hint}`).join('\n');
    expect(printed).toContain('names the UI "ui://chart/missing.html", which is not a ui:// resource of this tree');
    expect(printed).toContain('MCP Apps hosts render only text/html;profile=mcp-app');
  });
});

describe('bad UIs', () => {
  it('refuses each wrong UI with a message that names its file, and builds everything else', async () => {
    const project = await writeProject({
      'tools/good.sh': tool('Good'),
      'tools/good.sh.ui.html': PAGE,
      'tools/big/big.sh': tool(),
      'tools/big/ui/index.html': `<!doctype html><html><body>${'x'.repeat(10 * 1024 * 1024)}</body></html>`,
      'tools/outside.sh': tool(),
      'tools/outside.sh.meta.json': JSON.stringify({ _meta: { ui: { resourceUri: 'https://evil.example/app.html' } } }),
      'tools/unknown.sh': tool(),
      'tools/unknown.sh.meta.json': JSON.stringify({ _meta: { ui: { resourceUri: 'ui://nope/index.html' } } }),
      'tools/dotdot.sh': tool(),
      'tools/dotdot.sh.meta.json': JSON.stringify({ _meta: { ui: { resourceUri: 'ui://../../etc/passwd' } } }),
      'tools/visibility.sh': tool(),
      'tools/visibility.sh.meta.json': JSON.stringify({ _meta: { ui: { visibility: ['everyone'] } } }),
      'tools/scheme/scheme.sh': tool(),
      'tools/scheme/ui/index.html': PAGE,
      'tools/scheme/ui/ui.meta.json': JSON.stringify({
        meta: { csp: { connectDomains: ['javascript:alert(1)'], resourceDomains: ['data:text/html,<b>x</b>'] } },
      }),
      'tools/plain/plain.sh': tool(),
      'tools/plain/ui/index.html': PAGE,
      'tools/plain/ui/ui.meta.json': JSON.stringify({ meta: { csp: { resourceDomains: ['http://cdn.example.com'] } } }),
      'tools/types/types.sh': tool(),
      'tools/types/ui/index.html': PAGE,
      'tools/types/ui/ui.meta.json': JSON.stringify({
        meta: { prefersBorder: 'yes', csp: { connectDomains: 'https://api.example.com' } },
      }),
      'tools/broken/broken.sh': tool(),
      'tools/broken/ui/index.html': PAGE,
      'tools/broken/ui/ui.meta.json': '{"meta": ',
      'tools/template/template.sh': tool(),
      'tools/template/ui/ui.meta.json': JSON.stringify({ template: 'form', config: {} }),
      'tools/pair/a.sh': tool(),
      'tools/pair/b.sh': tool(),
      'tools/pair/ui/index.html': PAGE,
      'ui/bad name/index.html': PAGE,
      'ui/empty/ui.meta.json': JSON.stringify({ description: 'no page' }),
      'ui/fine/index.html': PAGE,
      'ui/fine/ui.meta.json': JSON.stringify({
        meta: {
          csp: { connectDomains: ['wss://live.example.com', 'https://*.example.com:8443'] },
          domain: 'x.example',
        },
      }),
    });
    const { code, report } = await buildInProcess(project);
    expect(code).toBe(1);
    const byPath = (where: string) =>
      report.failures
        .filter((failure) => failure.path === where)
        .map((failure) => failure.message)
        .join(' | ');
    expect(byPath('tools/big/ui/index.html')).toMatch(
      /is 10485\d+ bytes, over the 4194304-byte limit.*big_big was skipped/,
    );
    expect(byPath('tools/outside.sh')).toContain('_meta.ui.resourceUri must be a ui:// URI of a UI in this project');
    expect(byPath('tools/unknown.sh')).toContain('"ui://nope/index.html" is not a UI of this project');
    expect(byPath('tools/dotdot.sh')).toContain('"ui://../../etc/passwd" is not a UI of this project');
    expect(byPath('tools/visibility.sh')).toContain('visibility must be a non-empty list of "model" and/or "app"');
    expect(byPath('tools/scheme/ui/ui.meta.json')).toMatch(
      /connectDomains holds "javascript:alert\(1\)", which is not an https:\/\/ or wss:\/\/ origin.*resourceDomains holds "data:text\/html,<b>x<\/b>"/,
    );
    expect(byPath('tools/plain/ui/ui.meta.json')).toContain(
      '"http://cdn.example.com", which is not an https:// origin',
    );
    expect(byPath('tools/types/ui/ui.meta.json')).toMatch(/prefersBorder.*boolean/);
    expect(byPath('tools/types/ui/ui.meta.json')).toMatch(/connectDomains.*array/);
    expect(byPath('tools/broken/ui/ui.meta.json')).toContain('is not JSON (a syntax error');
    expect(byPath('tools/template/ui/ui.meta.json')).toContain(
      '"template" (mcp-bash\'s generated UIs) is not supported',
    );
    expect(byPath('tools/pair/a.sh')).toContain('tools/pair/a.sh and tools/pair/b.sh are all there');
    expect(byPath('ui/bad name')).toContain('use letters, digits, _ and - only');
    expect(byPath('ui/empty/index.html')).toContain('is missing: a UI is one HTML page');
    expect(report.failures.filter((failure) => /fine|good/.test(failure.path))).toEqual([]);

    const manifest = await readJson<Manifest>(path.join(project, 'dist/mcp.json'));
    expect(manifest.capabilities.tools.map((entry) => entry.name)).toEqual(['good']);
    expect(manifest.capabilities.tools[0]!._meta).toEqual({
      ui: { resourceUri: 'ui://good/index.html' },
      'ui/resourceUri': 'ui://good/index.html',
    });
    expect(manifest.capabilities.resources.map((resource) => resource.uri)).toEqual([
      'ui://fine/index.html',
      'ui://good/index.html',
    ]);
    expect(manifest.capabilities.resources[0]!._meta).toEqual({
      ui: { csp: { connectDomains: ['wss://live.example.com', 'https://*.example.com:8443'] }, domain: 'x.example' },
    });
    // The 10 MB page was never copied into the tree.
    const sizes = await Promise.all(
      (await fs.readdir(path.join(project, 'dist/resources'), { recursive: true })).map(async (entry) => {
        const stat = await fs.stat(path.join(project, 'dist/resources', entry));
        return stat.isFile() ? stat.size : 0;
      }),
    );
    expect(Math.max(...sizes)).toBeLessThan(10_000);
  });

  it('never publishes a page a symlink leads to outside the project', async () => {
    const project = await writeProject({ 'tools/good.sh': tool('Good') });
    const outside = path.join(path.dirname(project), 'secret-ui');
    await fs.mkdir(outside);
    await fs.writeFile(path.join(outside, 'index.html'), '<p>secret</p>');
    await fs.mkdir(path.join(project, 'ui'));
    await fs.symlink(outside, path.join(project, 'ui', 'linked'));
    const { code, report } = await buildInProcess(project);
    expect(code).toBe(1);
    expect(problemsOf(report)).toContain('ui/linked/index.html');
    expect(problemsOf(report)).toContain('leads outside the project');
    const manifest = await readJson<Manifest>(path.join(project, 'dist/mcp.json'));
    expect(manifest.capabilities.resources).toEqual([]);
    expect(manifest.capabilities.tools.map((entry) => entry.name)).toEqual(['good']);
  });

  it('refuses a tool UI and a standalone UI that would share one URI', async () => {
    const project = await writeProject({
      'tools/dashboard/dashboard.sh': {
        script: `#!/bin/sh\nif [ "$1" = "--help" ]; then echo '{"name": "dashboard", "description": "d"}'; exit 0; fi\necho ok\n`,
      },
      'tools/dashboard/ui/index.html': PAGE,
      'ui/dashboard/index.html': PAGE,
    });
    const { code, report } = await buildInProcess(project);
    expect(code).toBe(1);
    expect(problemsOf(report)).toContain('its UI would be ui://dashboard/index.html, which ui/dashboard already is');
    const manifest = await readJson<Manifest>(path.join(project, 'dist/mcp.json'));
    expect(manifest.capabilities.tools).toEqual([]);
    expect(manifest.capabilities.resources.map((resource) => resource.uri)).toEqual(['ui://dashboard/index.html']);
  });
});

// `staticmcp init`: a starter project that builds as it is, with deploy files that work as they
// are, and never a file overwritten. One starter is made for the file (init is a process each
// time) and only read by the tests after the first, which builds it as the hint says.
import { beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { readConfig } from '../../src/project/config.js';
import { deployCommandWords } from '../../src/shared/staticmcp-command.js';
import { buildJson, type CliResult, runCli } from '../helpers/cli.js';
import { readJson } from '../helpers/files.js';
import { buildInProcess } from '../helpers/in-process-build.js';
import { HttpServe } from '../helpers/http-serve.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

describe('staticmcp init', () => {
  let project: string;
  let init: CliResult;

  beforeAll(async () => {
    project = path.join(await temporaryFolder(), 'my-server');
    init = await runCli(['init', project]);
  });

  it('creates a project that builds at once, with an executable tool and a .gitignore', async () => {
    expect(init.code).toBe(0);
    // The "next:" hint is a command line that works as printed (from where init ran).
    const next = /next: (.*)\n/.exec(init.stderr)?.[1];
    expect(next).toMatch(/ build .*my-server && .* serve .*my-server$/);
    const hinted = spawnSync('sh', ['-c', next!], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
    });
    expect(hinted.status, hinted.stderr).toBe(0);
    expect(await readJson(path.join(project, 'dist/mcp.json'))).toMatchObject({ serverInfo: { name: 'my-server' } });
    expect((await fs.stat(path.join(project, 'tools/hello'))).mode & 0o111).not.toBe(0);
    const ignored = (await fs.readFile(path.join(project, '.gitignore'), 'utf8')).split('\n');
    // The build's output and cache, wrangler's local state and local secrets never reach a commit.
    expect(ignored).toEqual(expect.arrayContaining(['dist/', '.staticmcp/', '.wrangler/', '.dev.vars*', '.env*']));
    // What that build reported, replayed by the build command's decision in-process (nothing is
    // written: the tree keeps the CLI's bundled _worker.js, which the Netlify test below serves).
    const { code, report } = await buildInProcess(project);
    expect(code).toBe(0);
    expect(report.unchanged).toBe(true);
    expect(report.tools).toEqual([expect.objectContaining({ name: 'hello', precomputed: 4 })]);
    // The starter skill tells an agent how to use the hello tool.
    expect(await readJson(path.join(project, 'dist/skills/list.json'))).toMatchObject({
      skills: [{ uri: 'skill://greeting/SKILL.md', frontmatter: { name: 'greeting' } }],
    });
    expect(await readJson(path.join(project, 'dist/tools/hello/mcp/true.json'))).toMatchObject({
      content: [{ text: 'Hello, MCP!\n' }],
    });
  });

  it('adds deploy files for Cloudflare, Netlify and GitHub Pages, and says where they are explained', async () => {
    expect(init.stderr).toContain(path.join('deploy', 'README.md'));
    for (const file of [
      'deploy/README.md',
      'deploy/wrangler.jsonc',
      'deploy/netlify/edge-functions/mcp.js',
      'netlify.toml',
      '.github/workflows/staticmcp-pages.yml',
    ]) {
      await expect(fs.access(path.join(project, file)), file).resolves.toBeUndefined();
    }
    const wrangler = await fs.readFile(path.join(project, 'deploy/wrangler.jsonc'), 'utf8');
    expect(wrangler).toContain('"run_worker_first": ["/mcp"]');
    const workflow = await fs.readFile(path.join(project, '.github/workflows/staticmcp-pages.yml'), 'utf8');
    // The build step runs this exact staticmcp (test/cli/deploy-commands.test.ts runs it as GitHub does).
    expect(workflow).toContain(`- run: ${deployCommandWords().join(' ')} build\n`);
    expect(workflow).toMatch(/ build\n[\s\S]*upload-pages-artifact[\s\S]*path: dist/);
  });

  it("the Netlify edge function answers MCP with the tree's worker, reading the tree from the site itself", async () => {
    // The CLI's build, which the first test's hint ran (here when this test runs alone): the tree
    // needs its bundled _worker.js.
    if (!existsSync(path.join(project, 'dist', '_worker.js'))) expect((await buildJson(project)).code).toBe(0);
    // serve --http plays the static host (Netlify's CDN); the edge function has no asset binding.
    const site = await HttpServe.start([path.join(project, 'dist')]);
    try {
      const entry = (await import(pathToFileURL(path.join(project, 'deploy/netlify/edge-functions/mcp.js')).href)) as {
        default: (request: Request, context: unknown) => Promise<Response>;
      };
      const call = (body: unknown): Promise<Response> =>
        entry.default(
          new Request(`http://127.0.0.1:${site.port}/mcp`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              'mcp-protocol-version': '2025-06-18',
            },
            body: JSON.stringify(body),
          }),
          {},
        );
      const response = await call({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'hello', arguments: { name: 'MCP', excited: true } },
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({
        id: 1,
        result: { content: [{ type: 'text', text: 'Hello, MCP!\n' }] },
      });
      const miss = (await (
        await call({
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: { name: 'hello', arguments: { name: 'Nobody' } },
        })
      ).json()) as { result: { isError: boolean; content: { text: string }[] } };
      expect(miss.result.isError).toBe(true);
      expect(miss.result.content[0]?.text).toContain(
        `staticmcp serve http://127.0.0.1:${site.port}/ --live <project folder>`,
      );
    } finally {
      await site.stop();
    }
  });

  it('points editors at staticmcp.schema.json, copied beside its staticmcp.json, and that file passes it', async () => {
    const written = await readJson<{ $schema: string }>(path.join(project, 'staticmcp.json'));
    // A fresh project has no node_modules/staticmcp: the schema of the staticmcp that wrote it is a file beside it.
    expect(written.$schema).toBe('./staticmcp.schema.json');
    expect(await readJson(path.join(project, written.$schema))).toEqual(
      await readJson(path.join(REPO_ROOT, 'staticmcp.schema.json')),
    );
    await expect(readConfig(project)).resolves.toMatchObject({ name: 'my-server' });
  });

  it('refuses a folder that is not empty, with exit 2, and leaves it as it was', async () => {
    const folder = await temporaryFolder();
    await fs.writeFile(path.join(folder, 'notes.txt'), 'mine');
    const init = await runCli(['init', folder]);
    expect(init.code).toBe(2);
    expect(init.stderr).toMatch(/INIT_NOT_EMPTY.*never overwrites/);
    expect(await fs.readdir(folder)).toEqual(['notes.txt']);
  });
});

// The README's "The first hour", run as a new user runs it: its ```sh blocks, read from README.md
// between the two walkthrough markers, each run by bash exactly as written, in order, in a fresh
// folder, with the staticmcp from the packed tarball installed on PATH. Three substitutions, each
// because nothing here should reach beyond the machine or repeat what other tests do:
// - step 1 (install) must read exactly `npm install`, `npm pack`, `npm install -g ./<tarball>`:
//   the tarball is packed from this run's build (a clone's `npm install` is the 2-minute
//   contributor install), then the `npm install -g` line runs as written, into a temporary prefix
//   (npm_config_prefix) instead of the user's global folder; that pack and install are the run's
//   one shared install (test/helpers/shared-install.ts), which test/cli/packed-install.test.ts
//   also checks;
// - step 7 (deploy) must read `npx wrangler pages deploy <tree> --project-name <name>`; the tree
//   is served by Cloudflare's runtime instead: its `_worker.js` in workerd with the tree as its
//   ASSETS (test/edge/workerd-site.ts), and the client command after it runs as written with that
//   address in place of https://my-server.pages.dev/. Not `wrangler pages dev`, which costs several
//   times a workerd start's CPU: what it adds, Pages' routing by `_routes.json`, is the same here as
//   for every tree (the test checks that it sends /mcp to the worker), and
//   test/hosts/real-hosts.test.ts runs the same worker and routes under `wrangler pages dev`;
// - `npx @modelcontextprotocol/inspector@2.12.0` finds the pinned Inspector (tools/runtimes) in
//   the folder's node_modules, as it would in npx's cache after a first download: no network.
//   That node_modules holds the Inspector and what it needs, as that cache would, and nothing
//   else (test/helpers/npx-folder.ts): a user's folder outside the clone has none of the clone's
//   packages, and npx reads every package there before it runs.
// Step 5 (`staticmcp serve my-server`) is the command the MCP TypeScript SDK client starts over
// stdio; it lists the tools and gets a precomputed and a live answer. Step 7's runtime starts as
// soon as step 4 has built the tree it serves, while steps 5 and 6 run.
import { existsSync, promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkerdSite, type WorkerdSite } from '../edge/workerd-site.js';
import { PACKAGE_JSON, runCommand } from '../helpers/npm-package.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { linkToolClosure } from '../helpers/npx-folder.js';
import { firstText } from '../helpers/results.js';
import { installPackedOnce, type SharedInstall, userShellEnvironment } from '../helpers/shared-install.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

const START_MARKER = '<!-- walkthrough:';
const END_MARKER = '<!-- walkthrough end -->';

/** The ```sh blocks between the walkthrough markers of the README, in order. */
function readWalkthroughBlocks(readme: string): string[] {
  const start = readme.indexOf(START_MARKER);
  const end = readme.indexOf(END_MARKER);
  expect(start, 'README.md marks where the walkthrough starts').toBeGreaterThanOrEqual(0);
  expect(end, 'and where it ends').toBeGreaterThan(start);
  return [...readme.slice(start, end).matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map(([, body = '']) => body);
}

/** A block's command lines, comments and blank lines left out. */
function commandLines(block: string): string[] {
  return block
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

const ANSWER_37 = '37 °C is 98.6 °F';

describe('the README walkthrough, run as written', () => {
  const blocks = readWalkthroughBlocks(readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8'));
  const [install = '', init = '', writeTool = '', build = '', serve = '', connect = '', deploy = '', remote = ''] =
    blocks;
  /** Step 1: the pack and `npm install -g` in a clone, shared with packed-install. */
  let installed: SharedInstall;
  /** The folder of every later step. */
  let work = '';
  let environment: Record<string, string> = {};
  /** Step 7's runtime, started once step 4 has built the tree, so its start overlaps steps 5 and 6. */
  let deployed: Promise<WorkerdSite> | undefined;
  /** The tree step 7 deploys, as its command names it. */
  const deployMatch = /^npx wrangler pages deploy (\S+) --project-name \S+$/.exec(commandLines(deploy)[0] ?? '');

  /** Runs a block with bash as the user's shell would, stopping at its first failing command. */
  const runBlock = (block: string, cwd = work, extra: Record<string, string> = {}) =>
    runCommand('bash', ['-e', '-c', block], { cwd, env: { ...environment, ...extra } });

  beforeAll(async () => {
    work = await temporaryFolder('staticmcp-walkthrough-');
    const home = await temporaryFolder('staticmcp-walkthrough-home-');
    await linkToolClosure(work, '@modelcontextprotocol/inspector');
    // The README's `npm pack` and `npm install -g` in a clone, run once for the run's files.
    installed = await installPackedOnce();
    // The installed staticmcp first on PATH, a home of its own for the Inspector's catalog.
    environment = userShellEnvironment(installed.prefix, home);
  }, 240_000);

  afterAll(async () => {
    await (await deployed?.catch(() => undefined))?.close();
  });

  it('has the eight blocks of its seven steps', () => {
    expect(blocks).toHaveLength(8);
  });

  it('1. installs the package npm pack wrote, and puts staticmcp on PATH', async () => {
    const tarball = `${PACKAGE_JSON.name}-${PACKAGE_JSON.version}.tgz`;
    expect(commandLines(install)).toEqual(['npm install', 'npm pack', `npm install -g ./${tarball}`]);
    expect(path.basename(installed.tarball), 'this run packed the tarball the README names').toBe(tarball);
    expect(existsSync(path.join(installed.clone, tarball))).toBe(true);
    // The line the shared install ran with bash in that clone (a failing install fails the setup above).
    expect(installed.command).toBe(commandLines(install)[2]);
    const version = await runBlock('staticmcp --version');
    expect(version.stdout.trim()).toBe(PACKAGE_JSON.version);
  });

  it('2-4. init, a tool of its own, build: every temperature precomputed', async () => {
    let output = '';
    for (const block of [init, writeTool, build]) {
      const step = await runBlock(block);
      expect(step.code, `${block}\n${step.stdout}${step.stderr}`).toBe(0);
      output = step.stdout + step.stderr;
    }
    // What step 4 says the build does, as its summary tells the user.
    expect(output).toMatch(/celsius-to-fahrenheit \(celsius-to-fahrenheit\): 141 precomputed/);
    expect(output).toMatch(/hello \(hello\): 4 precomputed/);
    const manifest = JSON.parse(await fs.readFile(path.join(work, 'my-server', 'dist', 'mcp.json'), 'utf8')) as {
      capabilities: { tools: { name: string }[] };
    };
    expect(manifest.capabilities.tools.map((tool) => tool.name).sort()).toEqual(['celsius-to-fahrenheit', 'hello']);
    if (deployMatch) {
      deployed = startWorkerdSite(path.join(work, deployMatch[1]!));
      // Step 7 reports a failed start; until then it must not count as unhandled.
      deployed.catch(() => {});
    }
  });

  it('5. serve is the command a client starts: precomputed and live answers over stdio', async () => {
    const client = new Client({ name: 'readme-walkthrough', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: 'bash',
        args: ['-c', serve],
        cwd: work,
        env: environment as Record<string, string>,
        stderr: 'pipe',
      }),
    );
    try {
      const { tools } = await client.listTools();
      // search and fetch: the starter's text resource is indexed (step 4 says so).
      expect(tools.map((tool) => tool.name).sort()).toEqual(['celsius-to-fahrenheit', 'fetch', 'hello', 'search']);
      expect(
        firstText(await client.callTool({ name: 'celsius-to-fahrenheit', arguments: { celsius: 37 } })).trim(),
      ).toBe(ANSWER_37);
      // A name staticmcp.json does not list: the script runs live.
      expect(firstText(await client.callTool({ name: 'hello', arguments: { name: 'Ada' } })).trim()).toBe(
        'Hello, Ada.',
      );
    } finally {
      await client.close();
    }
  });

  // npx starts the Inspector while step 7's runtime starts beside it: as long as step 7 on a busy
  // machine.
  it('6. the Inspector CLI starts the server and prints the answer', async () => {
    const inspector = await runBlock(connect);
    expect(inspector.code, inspector.stderr).toBe(0);
    expect(inspector.stdout).toContain(ANSWER_37);
  }, 120_000);

  it('7. deployed to Cloudflare Pages (its runtime, workerd), the tree answers MCP at /mcp', async () => {
    expect(deployMatch, commandLines(deploy)[0]).not.toBeNull();
    expect(deployed, 'step 4 built the tree step 7 deploys').toBeDefined();
    // Pages runs the worker for the paths _routes.json includes, and serves the rest as files.
    const routes = JSON.parse(await fs.readFile(path.join(work, deployMatch![1]!, '_routes.json'), 'utf8')) as {
      include: string[];
    };
    expect(routes.include).toContain('/mcp');
    const host = await deployed!;
    expect(remote).toContain('https://my-server.pages.dev/');
    const inspector = await runBlock(remote.replaceAll('https://my-server.pages.dev/', host.url.href));
    expect(inspector.code, inspector.stderr).toBe(0);
    expect(inspector.stdout).toContain(ANSWER_37);
  }, 120_000);
});

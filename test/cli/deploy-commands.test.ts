// The deploy files `init` writes, run as each host runs them, against a private npm registry
// (test/helpers/local-registry.ts): the GitHub Pages workflow's `run:` steps, Netlify's build
// `command`, the Cloudflare dashboard build command from deploy/README.md, and the stdio client
// config the built landing page shows. Both states of the package:
// - before publication (this checkout: PUBLISHED_ON_NPM false), the registry has no staticmcp and
//   the commands install the tarball init packed into deploy/;
// - once published: this build, flipped by the release's own scripts/mark-published.mjs, packed
//   and published to the registry, then `npx --yes staticmcp@<version> init` as a user runs it.
// Every staticmcp command in every generated file names this exact version. The two states share
// nothing but the registry (the tarball is installed by path), so they run side by side: most of
// their time is npm waiting on the registry and on its installs.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startStaticHost } from '../hosts/host-runtimes.js';
import { runCli } from '../helpers/cli.js';
import { readJson } from '../helpers/files.js';
import { LocalRegistry } from '../helpers/local-registry.js';
import { initializeOverStdio, PACKAGE_JSON, runCommand, stageThisBuild } from '../helpers/npm-package.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

const VERSION = PACKAGE_JSON.version;
const TARBALL_SPEC = `./deploy/staticmcp-${VERSION}.tgz`;
const REGISTRY_SPEC = `staticmcp@${VERSION}`;

interface HostBuild {
  host: string;
  /** Each is one shell command, run in the project folder as the host runs it. */
  commands: string[];
}

/** The build commands of each host, read from the files init wrote, as the host reads them. */
async function readHostBuilds(project: string): Promise<HostBuild[]> {
  const workflow = parse(await fs.readFile(path.join(project, '.github/workflows/staticmcp-pages.yml'), 'utf8')) as {
    jobs: { build: { steps: { run?: string; uses?: string; with?: { path?: string } }[] } };
  };
  const steps = workflow.jobs.build.steps;
  expect(steps.find((step) => step.uses?.startsWith('actions/upload-pages-artifact@'))?.with?.path).toBe('dist');
  const netlify = await fs.readFile(path.join(project, 'netlify.toml'), 'utf8');
  const netlifyBuild = /^\[build\]\n(?:[ \t]+.*\n)*?[ \t]+command = "([^"]+)"/m.exec(netlify);
  expect(netlify).toMatch(/^\s+publish = "dist"$/m);
  const readme = await fs.readFile(path.join(project, 'deploy/README.md'), 'utf8');
  const dashboard = /Cloudflare dashboard\s+with build command `([^`]+)` and output folder `dist`/.exec(readme);
  return [
    { host: 'GitHub Pages', commands: steps.flatMap((step) => (step.run === undefined ? [] : [step.run])) },
    { host: 'Netlify', commands: netlifyBuild?.[1] ? [netlifyBuild[1]] : [] },
    { host: 'Cloudflare Pages (dashboard)', commands: dashboard?.[1] ? [dashboard[1]] : [] },
  ];
}

/**
 * Runs each host's build in the project from a clean checkout (no dist/, no cache); the tree must
 * be there after. Hosts whose commands are the same lines, in the same folder, with the same
 * environment, are built once for all of them (said in the test's name of the run, never silently):
 * a second run of the same lines shows nothing the first did not.
 */
async function buildAsHosts(project: string, builds: HostBuild[], env: Record<string, string>): Promise<string[]> {
  const runs = new Map<string, HostBuild[]>();
  for (const build of builds) {
    expect(build.commands, `${build.host}: a build command`).not.toEqual([]);
    const key = build.commands.join('\n');
    runs.set(key, [...(runs.get(key) ?? []), build]);
  }
  const ran: string[] = [];
  for (const [, sharing] of runs) {
    const [build] = sharing;
    if (!build) continue;
    await buildAsHost(project, { host: sharing.map((each) => each.host).join(' = '), commands: build.commands }, env);
    ran.push(sharing.map((each) => each.host).join(' = '));
  }
  return ran;
}

async function buildAsHost(project: string, build: HostBuild, env: Record<string, string>): Promise<void> {
  await fs.rm(path.join(project, 'dist'), { recursive: true, force: true });
  await fs.rm(path.join(project, '.staticmcp'), { recursive: true, force: true });
  for (const command of build.commands) {
    // GitHub runs a step as `bash --noprofile --norc -eo pipefail {0}`; Netlify and Cloudflare run bash too.
    const result = await runCommand('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', command], {
      cwd: project,
      env: { ...env, CI: 'true' },
    });
    expect(result.code, `${build.host}: ${command}\n${result.stderr}`).toBe(0);
  }
  const manifest = await readJson<{ staticmcp: { generator: string } }>(path.join(project, 'dist/mcp.json'));
  expect(manifest.staticmcp.generator, build.host).toBe(`staticmcp ${VERSION}`);
}

/** Every staticmcp that a generated file runs with npx (a command line or a client config's args). */
async function listNpxSpecs(project: string): Promise<string[]> {
  const specs: string[] = [];
  const entries = await fs.readdir(project, { withFileTypes: true, recursive: true });
  for (const entry of entries) {
    if (!entry.isFile() || entry.name.endsWith('.tgz')) continue;
    const file = path.join(entry.parentPath, entry.name);
    if (path.relative(project, file).split(path.sep)[0] === 'dist') continue;
    const text = await fs.readFile(file, 'utf8');
    for (const match of text.matchAll(/(?:npx\s+(?:(?:--yes|-y)\s+)?|"-y",\s*")([^\s"`']*staticmcp[^\s"`']*)/g))
      specs.push(String(match[1]));
  }
  return specs;
}

/** The `{ "mcpServers": … }` config the landing page shows for Claude Desktop and Cursor. */
function readStdioConfig(indexHtml: string): { command: string; args: string[] } {
  const block = /Claude Desktop[\s\S]*?<pre class="snippet">([\s\S]*?)<\/pre>/.exec(indexHtml)?.[1];
  expect(block, 'the landing page shows a stdio client config').toBeDefined();
  const text = String(block)
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&amp;', '&')
    .replace(/&#(\d+);/g, (_entity, code: string) => String.fromCharCode(Number(code)));
  const config = JSON.parse(text) as { mcpServers: Record<string, { command: string; args: string[] }> };
  const [server] = Object.values(config.mcpServers);
  if (!server) throw new Error(`no server in ${text}`);
  return server;
}

// Each scenario is bounded at 5 minutes: several npm and npx runs, each allowed 3 (runCommand),
// the two scenarios side by side, which a loaded machine stretches well past a quiet one's minute.
describe('the deploy files init writes, run as each host runs them against an npm registry', () => {
  let registry: LocalRegistry;
  let work = '';

  beforeAll(async () => {
    work = await temporaryFolder('staticmcp-deploy-');
    await fs.mkdir(path.join(work, 'registry'));
    registry = await LocalRegistry.start(path.join(work, 'registry'));
    // Before either state runs: the second publishes staticmcp while the first runs beside it.
    // Asked as npm asks for a package document (an `npm view` costs a second of CPU to say the same).
    const document = await fetch(new URL('staticmcp', registry.url), {
      headers: { accept: 'application/vnd.npm.install-v1+json' },
    });
    expect(document.status, 'the registry has no staticmcp yet').toBe(404);
  }, 90_000);

  afterAll(async () => {
    await registry?.stop();
  });

  it.concurrent('before publication: init packs itself into deploy/, and every host builds from that tarball', async ({
    expect,
  }) => {
    const env = registry.env();
    const project = path.join(work, 'unpublished', 'my-server');
    const init = await runCli(['init', project]);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stderr).toContain(
      `staticmcp is not on the npm registry yet: the deploy files install staticmcp ${VERSION} from`,
    );
    await expect(fs.access(path.join(project, TARBALL_SPEC))).resolves.toBeUndefined();
    const specs = await listNpxSpecs(project);
    expect(specs).toContain(TARBALL_SPEC);
    // The README's note names the command that replaces the tarball once published: pinned too.
    expect(specs.filter((spec) => spec !== TARBALL_SPEC && spec !== REGISTRY_SPEC)).toEqual([]);

    // $schema names a file the fresh project has: the schema of the staticmcp that wrote it.
    const config = await readJson<{ $schema: string }>(path.join(project, 'staticmcp.json'));
    expect(await readJson(path.join(project, config.$schema))).toEqual(
      await readJson(path.join(REPO_ROOT, 'staticmcp.schema.json')),
    );

    const builds = await readHostBuilds(project);
    for (const build of builds) expect(build.commands, build.host).toEqual([`npx --yes ${TARBALL_SPEC} build`]);
    expect(await buildAsHosts(project, builds, env)).toEqual(['GitHub Pages = Netlify = Cloudflare Pages (dashboard)']);
  }, 300_000);

  it.concurrent('once published: the flipped package from the registry writes pinned deploy files that every host builds with, and a landing page whose stdio config connects', async ({
    expect,
  }) => {
    const env = registry.env();
    // npm publish packs the staged folder itself, as the release's `npm publish` packs the checkout.
    const stage = await stageThisBuild(work, { published: true });
    const publish = await runCommand('npm', ['publish', stage, '--ignore-scripts'], { cwd: work, env });
    expect(publish.code, publish.stderr).toBe(0);

    // As a user starts: npx with the exact version, from the registry.
    const user = path.join(work, 'published');
    await fs.mkdir(user);
    const init = await runCommand('npx', ['--yes', REGISTRY_SPEC, 'init', 'my-server'], { cwd: user, env });
    expect(init.code, init.stderr).toBe(0);
    expect(init.stderr).toContain(
      `the deploy files run staticmcp ${VERSION} from the npm registry (npx --yes ${REGISTRY_SPEC})`,
    );
    const project = path.join(user, 'my-server');
    expect((await fs.readdir(path.join(project, 'deploy'))).filter((name) => name.endsWith('.tgz'))).toEqual([]);
    const specs = await listNpxSpecs(project);
    expect(specs.length).toBeGreaterThan(3);
    expect(specs.filter((spec) => spec !== REGISTRY_SPEC)).toEqual([]);

    // A public URL (with the GitHub owner the registry verifies a pages.dev site by) makes the build
    // write server.json and put the real address on the landing page.
    const configFile = path.join(project, 'staticmcp.json');
    await fs.writeFile(
      configFile,
      JSON.stringify(
        { ...(await readJson(configFile)), publicUrl: 'https://my-server.pages.dev', githubOwner: 'example-owner' },
        null,
        2,
      ),
    );
    const builds = await readHostBuilds(project);
    for (const build of builds) expect(build.commands, build.host).toEqual([`npx --yes ${REGISTRY_SPEC} build`]);
    expect(await buildAsHosts(project, builds, env)).toEqual(['GitHub Pages = Netlify = Cloudflare Pages (dashboard)']);

    const serverJson = await readJson<{ packages?: unknown[] }>(path.join(project, 'dist/server.json'));
    expect(serverJson.packages).toEqual([
      expect.objectContaining({ registryType: 'npm', identifier: 'staticmcp', version: VERSION, runtimeHint: 'npx' }),
    ]);

    // The landing page's stdio config, run as a client runs it, reading the tree from a static host.
    const stdio = readStdioConfig(await fs.readFile(path.join(project, 'dist/index.html'), 'utf8'));
    expect(stdio.command).toBe('npx');
    expect(stdio.args).toEqual(['-y', REGISTRY_SPEC, 'serve', 'https://my-server.pages.dev/']);
    // A plain static host, as GitHub Pages serves dist/: files as they are.
    const site = await startStaticHost(path.join(project, 'dist'));
    try {
      const args = stdio.args.map((arg) => (arg === 'https://my-server.pages.dev/' ? site.url.href : arg));
      const { answer, stderr } = await initializeOverStdio(stdio.command, args, { env, cwd: work, timeoutMs: 60_000 });
      expect(answer, stderr).toMatchObject({ id: 1, result: { serverInfo: { name: 'my-server' } } });
    } finally {
      await site.close();
    }
  }, 300_000);
});

// The edge in front of a live origin (issue 27) on Cloudflare's own local runtime: the tree's
// `_worker.js` run by `wrangler dev` (Workers static assets, with the deploy/wrangler.jsonc `init`
// writes) and `wrangler pages dev`, holding the origin secret from a `.dev.vars` file as a user
// would locally, in front of `staticmcp serve <project> --origin` on this machine. The SDK client
// sees one server: precomputed calls from the edge (the origin's log shows it got nothing), misses,
// a live tool's progress and a completion provider from the origin. The secret is never in the tree.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { waitUntil } from '../helpers/processes.js';
import { ECHO_SCRIPT, FRUIT_PROVIDER, type OriginProcess, STEPS_SCRIPT, startOrigin } from '../helpers/live-origin.js';
import { temporaryFolder } from '../helpers/temp-folders.js';
import { addInitDeployFiles, type RunningHost, startPagesDev, startWranglerDev } from './host-runtimes.js';

const KEY = 'wrangler-dev-secret-0123456789abcdef0123456789abcdef';
// What wrangler reads for local secrets: `wrangler secret put` is its deployed counterpart.
const DEV_VARS = `STATICMCP_ORIGIN_KEY=${KEY}\n`;

const SCRIPTS: Record<string, string> = {
  'tools/echo': ECHO_SCRIPT,
  'tools/steps': STEPS_SCRIPT,
  'completions/fruit.sh': FRUIT_PROVIDER,
};

function textOf(result: unknown): string {
  return ((result as { content?: { text?: string }[] }).content ?? []).map((item) => item.text ?? '').join('');
}

/** Every file under `folder`, as paths relative to it. */
async function listFiles(folder: string): Promise<string[]> {
  const entries = await fs.readdir(folder, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(folder, path.join(entry.parentPath, entry.name)));
}

let project: string;
let origin: OriginProcess;

beforeAll(async () => {
  project = path.join(await temporaryFolder('staticmcp-live-origin-'), 'project');
  await fs.mkdir(path.join(project, 'tools'), { recursive: true });
  await fs.copyFile(
    path.join(REPO_ROOT, 'fixtures', 'example', 'tools', 'greet'),
    path.join(project, 'tools', 'greet'),
  );
  await fs.mkdir(path.join(project, 'completions'));
  await fs.mkdir(path.join(project, 'prompts'));
  await fs.mkdir(path.join(project, 'server.d'));
  for (const [file, text] of Object.entries(SCRIPTS))
    await fs.writeFile(path.join(project, file), text, { mode: 0o755 });
  await fs.writeFile(path.join(project, 'prompts', 'pick.fruit.md'), 'Pick {{fruit}}.');
  await fs.writeFile(
    path.join(project, 'prompts', 'pick.fruit.meta.json'),
    JSON.stringify({ arguments: { type: 'object', properties: { fruit: { type: 'string' } } } }),
  );
  await fs.writeFile(
    path.join(project, 'server.d', 'register.json'),
    JSON.stringify({ version: 1, completions: [{ name: 'pick.fruit', path: 'completions/fruit.sh', timeoutSecs: 5 }] }),
  );
  origin = await startOrigin(project, { STATICMCP_ORIGIN_KEY: KEY });
  await fs.writeFile(
    path.join(project, 'staticmcp.json'),
    JSON.stringify({ name: 'edge-origin', liveOrigin: origin.url, limits: { originTimeoutMs: 5_000 } }),
  );
  const build = await runCli(['build', project]);
  expect(build.code, build.stderr).toBe(0);
  // The deploy files init writes; the secret goes beside deploy/wrangler.jsonc, where `wrangler
  // dev -c deploy/wrangler.jsonc` reads it, and at the project's root, where `wrangler pages dev
  // dist` (run from the project) reads it: both outside dist/, the folder that is uploaded.
  await addInitDeployFiles(project);
  await fs.writeFile(path.join(project, 'deploy', '.dev.vars'), DEV_VARS);
  await fs.writeFile(path.join(project, '.dev.vars'), DEV_VARS);
}, 90_000);

afterAll(() => {
  origin?.child.kill('SIGTERM');
});

describe('the tree never holds the origin secret', () => {
  it('has no file with the key, and no .dev.vars or .env file, in the folder that is deployed', async () => {
    const tree = path.join(project, 'dist');
    const files = await listFiles(tree);
    expect(files).toContain('_worker.js');
    for (const file of files) {
      expect(path.basename(file), file).not.toMatch(/^\.dev\.vars|^\.env/);
      expect(await fs.readFile(path.join(tree, file), 'utf8'), file).not.toContain(KEY);
    }
    // Were one left there anyway, Workers static assets would not upload it.
    expect((await fs.readFile(path.join(tree, '.assetsignore'), 'utf8')).split('\n')).toEqual(
      expect.arrayContaining(['.dev.vars*', '.env*']),
    );
  });

  it('refuses to copy a secrets file from public/, saying where it goes instead', async () => {
    const copy = path.join(await temporaryFolder('staticmcp-secrets-'), 'project');
    await fs.cp(project, copy, { recursive: true });
    await fs.rm(path.join(copy, 'dist'), { recursive: true });
    await fs.mkdir(path.join(copy, 'public'));
    await fs.writeFile(path.join(copy, 'public', '.dev.vars'), DEV_VARS);
    await fs.writeFile(path.join(copy, 'public', 'robots.txt'), 'User-agent: *\n');
    const build = await runCli(['build', copy]);
    expect(build.code).toBe(1);
    expect(build.stderr).toMatch(/public\/\.dev\.vars.*is not copied: a local secrets file is never published/);
    expect(build.stderr).toMatch(/wrangler secret put STATICMCP_ORIGIN_KEY/);
    expect(await listFiles(path.join(copy, 'dist'))).toContain('robots.txt');
    expect(await listFiles(path.join(copy, 'dist'))).not.toContain('.dev.vars');
  });

  it('fails the build when the output folder holds a secrets file a deploy would publish', async () => {
    const copy = path.join(await temporaryFolder('staticmcp-secrets-'), 'project');
    await fs.cp(project, copy, { recursive: true });
    await fs.writeFile(path.join(copy, 'dist', '.env'), DEV_VARS);
    const build = await runCli(['build', copy]);
    expect(build.code).toBe(1);
    expect(build.stderr).toMatch(
      /dist\/\.env.*is in the folder that is deployed, and would be published with the site/,
    );
    expect(build.stderr).toMatch(/deploy\/\.dev\.vars/);
  });
});

const HOSTS: { name: string; start(): Promise<RunningHost>; honoursAssetsIgnore?: boolean }[] = [
  {
    name: 'Cloudflare Workers static assets (wrangler dev, deploy/wrangler.jsonc, deploy/.dev.vars)',
    start: () => startWranglerDev(project),
    honoursAssetsIgnore: true,
  },
  {
    name: 'Cloudflare Pages (wrangler pages dev dist, .dev.vars in the project)',
    start: () => startPagesDev(path.join(project, 'dist'), project),
  },
];

describe.each(HOSTS)('the edge on $name in front of the origin', (hostCase) => {
  let host: RunningHost | undefined;
  let client: Client;
  let unavailable = '';

  beforeAll(async () => {
    // A secrets file left in the tree after the build (which would refuse it), as a user might.
    if (hostCase.honoursAssetsIgnore) await fs.writeFile(path.join(project, 'dist', '.dev.vars'), 'DECOY=1\n');
    try {
      host = await hostCase.start();
    } catch (error) {
      unavailable = `wrangler could not start here, so the edge was not run on it: ${(error as Error).message.slice(0, 400)}`;
      console.warn(`${hostCase.name}: ${unavailable}`);
      return;
    }
    client = new Client({ name: 'edge-origin-wrangler-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL('mcp', host.url)));
  }, 70_000);

  afterAll(async () => {
    await client?.close();
    await host?.close();
    await fs.rm(path.join(project, 'dist', '.dev.vars'), { force: true });
  });

  it.runIf(hostCase.honoursAssetsIgnore)('does not serve a secrets file left in the tree', async ({ skip }) => {
    skip(unavailable !== '', unavailable);
    const response = await fetch(new URL('.dev.vars', host!.url));
    expect(await response.text()).not.toContain('DECOY');
    expect(response.status).toBe(404);
  });

  it('answers precomputed calls at the edge: the origin gets nothing', async ({ skip }) => {
    skip(unavailable !== '', unavailable);
    const before = origin.log().length;
    expect(textOf(await client.callTool({ name: 'greet', arguments: { language: 'fr' } }))).toContain('Bonjour');
    expect(textOf(await client.callTool({ name: 'greet', arguments: { language: 'de' } }))).toContain('Hallo');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(origin.log().slice(before)).toBe('');
  });

  it('answers a miss from the origin, which logs the run', async ({ skip }) => {
    skip(unavailable !== '', unavailable);
    const text = `hello through ${hostCase.name.split(' (')[0]}`;
    const result = await client.callTool({ name: 'echo', arguments: { text } });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(textOf(result)).toBe(`echo: ${text}\n`);
    await waitUntil(() => origin.log().includes('live run of echo for client'), 5_000, 'the origin to log the run');
  });

  it("relays a live tool's progress to the client", async ({ skip }) => {
    skip(unavailable !== '', unavailable);
    const seen: number[] = [];
    const result = await client.callTool({ name: 'steps', arguments: { label: 'x' } }, undefined, {
      onprogress: (progress) => seen.push(progress.progress),
    });
    expect(textOf(result), JSON.stringify(result)).toBe('done x\n');
    // The script's own 1, 2, 3 in order. The edge's start tick (progress 0) comes first when the
    // origin's first line takes longer than its second, as on a loaded machine: not a relay's fault.
    expect(seen[0] === 0 ? seen.slice(1) : seen).toEqual([1, 2, 3]);
  });

  it("forwards a completion to the origin's provider, whose own matching answers", async ({ skip }) => {
    skip(unavailable !== '', unavailable);
    const before = origin.log().length;
    const answer = await client.complete({
      ref: { type: 'ref/prompt', name: 'pick.fruit' },
      argument: { name: 'fruit', value: 'an' },
    });
    // The tree's prefix match would answer nothing for "an".
    expect(answer.completion).toEqual({ values: ['banana', 'mango'], total: 2, hasMore: false });
    await waitUntil(
      () => origin.log().slice(before).includes('completions/fruit.sh'),
      5_000,
      'the origin to log the provider run',
    );
  });
});

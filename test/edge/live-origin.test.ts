// The edge in front of a live origin (issue 27): the tree's `_worker.js` in workerd (miniflare),
// holding the origin secret as a binding, forwards what the tree cannot answer to
// `staticmcp serve <project> --origin`, a real process on this machine. The SDK client sees one
// server: precomputed calls from the edge (the origin's log shows it got nothing), misses, a
// live tool's progress and a completion provider from the origin; an origin that is slow, down, or
// answers something else gives a clear isError in time while precomputed calls go on; the origin
// refuses what its edge did not sign.
import { promises as fs } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { signOriginRequest } from '../../src/core/origin/origin-signature.js';
import { runCli } from '../helpers/cli.js';
import { post } from '../helpers/http-serve.js';
import { modernHeaders } from '../protocol-table/drivers.js';
import { MODERN_META } from '../protocol-table/modern-cases.js';
import { ECHO_SCRIPT, FRUIT_PROVIDER, type OriginProcess, STEPS_SCRIPT, startOrigin } from '../helpers/live-origin.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { waitUntil } from '../helpers/processes.js';
import { removeTemporaryFolders, temporaryFolder } from '../helpers/temp-folders.js';
import { startWorkerdSitesOnPorts, type WorkerdSite } from './workerd-site.js';

const KEY = 'kkkkkkkkkkkkkkkk0123456789abcdef0123456789abcdef';
const EDGE_TIMEOUT_MS = 3_000;
/**
 * The deadline of the sites whose calls are not about the deadline (every test but the slow and
 * the silent origin): on a loaded machine a run at the origin outlasted 3 s (load 35), and reading
 * a 12 MB answer up to the size cap too (load 26), so the short deadline answered those calls
 * instead; this one stays below the test's own timeout, so a call left hanging still fails here.
 */
const PATIENT_TIMEOUT_MS = 30_000;

const SCRIPTS: Record<string, string> = {
  echo: ECHO_SCRIPT,
  steps: STEPS_SCRIPT,
  sleepy: `#!/bin/sh
if [ "$1" = "--help" ]; then
  echo '{"description": "Takes its time"}'
  echo '{"text": {"description": "Anything", "required": true, "value_type": "string"}}' >&2
  exit 0
fi
sleep 40
echo late
`,
};

async function buildTree(project: string, liveOrigin: string, out: string, timeoutMs: number): Promise<void> {
  await fs.writeFile(
    path.join(project, 'staticmcp.json'),
    JSON.stringify({ name: 'edge-origin', liveOrigin, limits: { originTimeoutMs: timeoutMs } }),
  );
  const build = await runCli(['build', project, '--out', out]);
  expect(build.code, build.stderr).toBe(0);
}

async function connect(site: WorkerdSite): Promise<Client> {
  const client = new Client({ name: 'edge-origin-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('mcp', site.url)));
  return client;
}

function textOf(result: unknown): string {
  return ((result as { content: { text: string }[] }).content ?? []).map((item) => item.text).join('');
}

/** What the fake origin does with the next request. */
let fakeMode: 'html' | 'redirect' | 'huge' | 'never' | 'busy' | 'refuse' = 'html';
let project: string;
let origin: OriginProcess;
let fake: http.Server;
/** The live origin behind the patient deadline, and behind the short one (`hastySite`). */
let site: WorkerdSite;
let hastySite: WorkerdSite;
/** The fake origin behind the short deadline, and behind the patient one. */
let fakeSite: WorkerdSite;
let patientFakeSite: WorkerdSite;
let keylessSite: WorkerdSite;
let client: Client;

beforeAll(async () => {
  project = path.join(await temporaryFolder(), 'project');
  await fs.mkdir(path.join(project, 'tools'), { recursive: true });
  for (const name of ['greet', 'counter'])
    await fs.copyFile(path.join(REPO_ROOT, 'fixtures', 'example', 'tools', name), path.join(project, 'tools', name));
  // A resource template whose provider computes any instance; one instance is precomputed.
  await fs.mkdir(path.join(project, 'providers'));
  await fs.mkdir(path.join(project, 'resources'));
  await fs.writeFile(path.join(project, 'providers', 'fact'), '#!/bin/sh\nprintf "a fact about %s\\n" "$planet"\n', {
    mode: 0o755,
  });
  await fs.writeFile(
    path.join(project, 'resources', 'facts.meta.json'),
    JSON.stringify({
      name: 'facts',
      uriTemplate: 'example://facts/{planet}',
      mimeType: 'text/plain',
      provider: 'providers/fact',
      values: { planet: ['mars'] },
    }),
  );
  for (const [name, text] of Object.entries(SCRIPTS)) {
    await fs.writeFile(path.join(project, 'tools', name), text, { mode: 0o755 });
  }
  // A completion provider that matches anywhere in the word, where the tree's answer is a prefix match.
  await fs.mkdir(path.join(project, 'completions'));
  await fs.mkdir(path.join(project, 'prompts'));
  await fs.mkdir(path.join(project, 'server.d'));
  await fs.writeFile(path.join(project, 'completions', 'fruit.sh'), FRUIT_PROVIDER, { mode: 0o755 });
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
  fake = http.createServer((request, response) => {
    request.resume();
    if (fakeMode === 'never') return;
    if (fakeMode === 'busy' || fakeMode === 'refuse') {
      response.writeHead(fakeMode === 'busy' ? 503 : 401, {
        'content-type': 'application/json',
        ...(fakeMode === 'busy' ? { 'retry-after': '7' } : {}),
      });
      response.end('{"error":"no"}');
    } else if (fakeMode === 'redirect') {
      response.writeHead(302, { location: 'https://elsewhere.example/live-run' });
      response.end();
    } else if (fakeMode === 'html') {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<html>a login page</html>');
    } else {
      response.writeHead(200, { 'content-type': 'application/x-ndjson' });
      const line = `${JSON.stringify({ log: { level: 'debug', message: 'x'.repeat(1024 * 1024) } })}\n`;
      let sent = 0;
      const more = (): void => {
        while (sent < 12 && response.write(line)) sent += 1;
        if (sent < 12) response.once('drain', more);
        else response.end();
      };
      more();
    }
  });
  await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
  // In the project's own output folder: the origin runs only what this tree declares.
  const tree = path.join(project, 'dist');
  await buildTree(project, origin.url, tree, PATIENT_TIMEOUT_MS);
  const hastyTree = path.join(await temporaryFolder(), 'hasty-tree');
  await buildTree(project, origin.url, hastyTree, EDGE_TIMEOUT_MS);
  const fakeUrl = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
  const fakeTree = path.join(await temporaryFolder(), 'fake-tree');
  await buildTree(project, fakeUrl, fakeTree, EDGE_TIMEOUT_MS);
  const patientFakeTree = path.join(await temporaryFolder(), 'patient-fake-tree');
  await buildTree(project, fakeUrl, patientFakeTree, PATIENT_TIMEOUT_MS);
  // One workerd for the five sites; `site` first, through miniflare's front as a lone site is.
  [site, hastySite, fakeSite, patientFakeSite, keylessSite] = await startWorkerdSitesOnPorts([
    { treeDir: tree, bindings: { STATICMCP_ORIGIN_KEY: KEY } },
    { treeDir: hastyTree, bindings: { STATICMCP_ORIGIN_KEY: KEY } },
    { treeDir: fakeTree, bindings: { STATICMCP_ORIGIN_KEY: KEY } },
    { treeDir: patientFakeTree, bindings: { STATICMCP_ORIGIN_KEY: KEY } },
    { treeDir: tree },
  ]);
  client = await connect(site);
}, 120_000);

afterAll(async () => {
  await client?.close();
  await Promise.all([site, hastySite, fakeSite, patientFakeSite, keylessSite].map((each) => each?.close()));
  origin?.child.kill('SIGTERM');
  fake?.closeAllConnections();
  fake?.close();
  await removeTemporaryFolders();
});

describe('the edge in front of a live origin', () => {
  it('lists the live-only tools with their full parameters', async () => {
    const { tools } = await client.listTools();
    const echo = tools.find((tool) => tool.name === 'echo');
    expect(echo?.inputSchema.properties).toEqual({ text: expect.objectContaining({ type: 'string' }) });
    expect(JSON.stringify(echo?.inputSchema)).not.toContain('enum');
  });

  it('answers precomputed calls at the edge: the origin gets nothing', async () => {
    const before = origin.log();
    for (const language of ['en', 'fr', 'de']) {
      const result = await client.callTool({ name: 'greet', arguments: { language } });
      expect(result.isError).toBeFalsy();
    }
    expect(textOf(await client.callTool({ name: 'greet', arguments: { language: 'fr' } }))).toContain('Bonjour');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(origin.log().slice(before.length)).toBe('');
  });

  it('answers a miss from the origin, which logs the run', async () => {
    const result = await client.callTool({ name: 'echo', arguments: { text: 'hello from the edge' } });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(textOf(result)).toBe('echo: hello from the edge\n');
    await waitUntil(() => origin.log().includes('live run of echo for client'), 5_000, 'the origin to log the run');
  });

  it('forwards a 2026-07-28 call the tree cannot answer, without a session', async () => {
    const params = { name: 'echo', arguments: { text: 'modern' }, _meta: MODERN_META };
    const answer = await post(
      Number(site.url.port),
      { jsonrpc: '2.0', id: 7, method: 'tools/call', params },
      modernHeaders('tools/call', params),
    );
    expect(answer.status).toBe(200);
    expect(answer.json().result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'echo: modern\n' }],
    });
  });

  it('lists a state resource and reads it from the origin', async () => {
    const { resources } = await client.listResources();
    const state = resources.find((resource) => resource.uri.includes('counter'));
    expect(state, JSON.stringify(resources)).toBeDefined();
    const read = await client.readResource({ uri: state!.uri });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toHaveProperty('count');
    await waitUntil(() => origin.log().includes('state run of'), 5_000, 'the origin to log the state read');
  });

  it('reads a precomputed template instance at the edge and computes another at the origin', async () => {
    const before = origin.log().length;
    const mars = await client.readResource({ uri: 'example://facts/mars' });
    expect((mars.contents[0] as { text: string }).text).toBe('a fact about mars\n');
    expect(origin.log().slice(before)).toBe('');
    const venus = await client.readResource({ uri: 'example://facts/venus' });
    expect((venus.contents[0] as { text: string }).text).toBe('a fact about venus\n');
    await waitUntil(() => origin.log().includes('providers/fact'), 5_000, 'the origin to log the provider run');
  });

  it("forwards a completion to the origin's provider, whose own matching answers", async () => {
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

  it("relays a live tool's progress to the client", async () => {
    const seen: number[] = [];
    const result = await client.callTool({ name: 'steps', arguments: { label: 'x' } }, undefined, {
      onprogress: (progress) => seen.push(progress.progress),
    });
    expect(textOf(result)).toBe('done x\n');
    // The script's own 1, 2, 3 in order. The edge's start tick (progress 0) comes first when the
    // origin's first line takes longer than its second, as on a loaded machine: not a relay's fault.
    expect(seen[0] === 0 ? seen.slice(1) : seen).toEqual([1, 2, 3]);
  });

  it('answers isError within the deadline when the origin is slow, and goes on answering precomputed calls', async () => {
    const hasty = await connect(hastySite);
    const startedAt = Date.now();
    const result = await hasty.callTool({ name: 'sleepy', arguments: { text: 'a' } });
    const tookMs = Date.now() - startedAt;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/did not answer within 3000 ms/);
    // Ten times the deadline, and still before the script would have answered: only an edge that
    // waited for the origin fails this, however busy the machine.
    expect(tookMs).toBeLessThan(EDGE_TIMEOUT_MS * 10);
    expect(textOf(await hasty.callTool({ name: 'greet', arguments: {} }))).toContain('Hello');
    await hasty.close();
  });

  it('says what is wrong when the worker holds no secret', async () => {
    const keyless = await connect(keylessSite);
    const result = await keyless.callTool({ name: 'echo', arguments: { text: 'a' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/wrangler secret put STATICMCP_ORIGIN_KEY/);
    await keyless.close();
  });

  it.each([
    ['html', /answered with text\/html, not a staticmcp origin's stream/],
    ['redirect', /redirect \(302 to https:\/\/elsewhere\.example\/live-run\), which the edge does not follow/],
    ['huge', /more than the 10 MB the edge accepts/],
    ['never', /did not answer within 3000 ms/],
    ['busy', /is busy; try again in 7 s/],
    ['refuse', /refused the edge's signature; the site's owner checks that STATICMCP_ORIGIN_KEY is the same secret/],
  ] as const)('turns an origin that answers %s into a clear isError', async (mode, message) => {
    fakeMode = mode;
    // Only the silent origin meets the short deadline: the others are judged by their answer alone.
    const target = mode === 'never' ? fakeSite : patientFakeSite;
    // The silent origin's call gets ten times its deadline (only an edge that never gives up fails
    // it); the others their deadline and a margin.
    const boundMs = mode === 'never' ? EDGE_TIMEOUT_MS * 10 : PATIENT_TIMEOUT_MS + 4_000;
    const edge = await connect(target);
    const startedAt = Date.now();
    const result = await edge.callTool({ name: 'echo', arguments: { text: 'a' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(message);
    expect(Date.now() - startedAt).toBeLessThan(boundMs);
    expect(textOf(await edge.callTool({ name: 'greet', arguments: { language: 'de' } }))).toContain('Hallo');
    await edge.close();
  });
});

describe('liveOrigin at build', () => {
  it.each([
    ['http://origin.example', /plain http on a host that is not loopback/],
    ['https://origin.example/base', /liveOrigin/],
    ['ftp://origin.example', /liveOrigin/],
  ])('refuses %s with a clear error', async (liveOrigin, message) => {
    const bad = path.join(await temporaryFolder(), 'bad');
    await fs.cp(project, bad, { recursive: true });
    await fs.writeFile(path.join(bad, 'staticmcp.json'), JSON.stringify({ liveOrigin }));
    const build = await runCli(['build', bad, '--out', path.join(bad, 'out')]);
    expect(build.code).not.toBe(0);
    expect(build.stderr).toMatch(message);
    expect(build.stderr).toMatch(/what to do/);
  });
});

describe('the origin', () => {
  const runBody = new TextEncoder().encode(
    JSON.stringify({ scriptPath: 'tools/echo', phase: 'live', toolName: 'echo', args: { text: 'direct' } }),
  );

  async function post(headers: Record<string, string>, body: Uint8Array = runBody): Promise<Response> {
    return fetch(`${origin.url}/live-run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
  }

  it('answers a signed request once, and refuses its replay', async () => {
    const headers = await signOriginRequest(KEY, { method: 'POST', path: '/live-run', body: runBody, client: 'test' });
    const first = await post(headers);
    expect(first.status).toBe(200);
    expect(await first.text()).toContain('"outcome"');
    const replay = await post(headers);
    expect(replay.status).toBe(401);
    expect(((await replay.json()) as { error: string }).error).toMatch(/replayed/);
  });

  it('refuses unsigned, forged, changed and stale requests with 401 and a reason', async () => {
    const unsigned = await post({});
    expect(unsigned.status).toBe(401);
    expect(((await unsigned.json()) as { error: string }).error).toMatch(/only requests signed by its edge/);
    const forged = await post(
      await signOriginRequest('f'.repeat(48), { method: 'POST', path: '/live-run', body: runBody, client: 'x' }),
    );
    expect(forged.status).toBe(401);
    expect(((await forged.json()) as { error: string }).error).toMatch(/do not share the same STATICMCP_ORIGIN_KEY/);
    const changed = await post(
      await signOriginRequest(KEY, { method: 'POST', path: '/live-run', body: runBody, client: 'x' }),
      new TextEncoder().encode('{"scriptPath":"tools/sleepy","phase":"live"}'),
    );
    expect(changed.status).toBe(401);
    const stale = await post(
      await signOriginRequest(
        KEY,
        { method: 'POST', path: '/live-run', body: runBody, client: 'x' },
        Date.now() - 120_000,
      ),
    );
    expect(stale.status).toBe(401);
    expect(((await stale.json()) as { error: string }).error).toMatch(/replay window/);
  });

  it('serves nothing static, and answers health checks', async () => {
    for (const target of ['/', '/mcp', '/tools/echo', '/staticmcp.json']) {
      const response = await fetch(`${origin.url}${target}`);
      expect(response.status, target).toBe(401);
    }
    const health = await fetch(`${origin.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok' });
  });

  it('refuses to start without a usable key', async () => {
    const missing = await runCli(['serve', project, '--origin', '--port', '0'], {
      env: { STATICMCP_ORIGIN_KEY: '' },
      timeoutMs: 10_000,
    });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no STATICMCP_ORIGIN_KEY is set/);
    const short = await runCli(['serve', project, '--origin', '--port', '0'], {
      env: { STATICMCP_ORIGIN_KEY: 'short' },
      timeoutMs: 10_000,
    });
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/fewer than the 32 required/);
  });

  it('answers 503 with Retry-After when every slot and queue place is taken', async () => {
    const busy = await startOrigin(project, { STATICMCP_ORIGIN_KEY: KEY }, [
      '--live-concurrency',
      '1',
      '--client-live-runs',
      '4',
    ]);
    try {
      const sleepBody = new TextEncoder().encode(
        JSON.stringify({
          scriptPath: 'tools/sleepy',
          phase: 'live',
          toolName: 'sleepy',
          args: { text: 'a' },
          timeoutMs: 3000,
        }),
      );
      const sign = (): Promise<Record<string, string>> =>
        signOriginRequest(KEY, { method: 'POST', path: '/live-run', body: sleepBody, client: 'c' });
      const send = async (): Promise<Response> =>
        fetch(`${busy.url}/live-run`, { method: 'POST', headers: await sign(), body: sleepBody });
      const running = [await send(), await send()];
      const third = await send();
      expect(third.status).toBe(503);
      expect(third.headers.get('retry-after')).toBe('2');
      await Promise.all(running.map((response) => response.text()));
    } finally {
      busy.child.kill('SIGTERM');
    }
  });
});

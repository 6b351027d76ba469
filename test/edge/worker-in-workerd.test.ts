// The tree's `_worker.js` in the real edge runtime (workerd), driven by the official SDK client
// over Streamable HTTP on a loopback port, as a remote MCP client would use a deployed site:
// handshake, pagination, precomputed calls, misses, resources, prompts, completions, and whom it
// lets in (its refusals are rows of test/http/bad-input-cases.ts). Where `serve` over stdio answers the same request,
// the answers must be the same. The example's site and a big tree another generator wrote (served
// by the example's worker) run in one workerd, a site each.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { PUBLISHED_ON_NPM } from '../../src/shared/staticmcp-command.js';
import { runCli } from '../helpers/cli.js';
import { listEveryTool } from '../helpers/list-every-tool.js';
import { CLI, REPO_ROOT } from '../helpers/paths.js';
import { removeTemporaryFolders, temporaryFolder } from '../helpers/temp-folders.js';
import { startWorkerdSitesOnPorts, type WorkerdSite } from './workerd-site.js';

const ALLOWED_ORIGIN = 'https://app.example';

let tree: string;
let site: WorkerdSite;
/** The big tree's site: the example's worker serving a tree it did not write. */
let bigSite: WorkerdSite;
/** The big tree's 250 tools. */
const BIG_TOOLS = Array.from({ length: 250 }, (_, index) => ({
  name: `tool_${String(index).padStart(3, '0')}`,
  description: 'd',
  inputSchema: { type: 'object' },
}));

/** A tree of 250 tools, as another generator writes it: mcp.json and one call file. */
async function writeBigTree(): Promise<string> {
  const bigTree = await temporaryFolder();
  await fs.writeFile(
    path.join(bigTree, 'mcp.json'),
    JSON.stringify({
      protocolVersion: '2025-06-18',
      serverInfo: { name: 'big', version: '1' },
      capabilities: { tools: BIG_TOOLS, resources: [] },
    }),
  );
  await fs.mkdir(path.join(bigTree, 'tools'));
  await fs.writeFile(
    path.join(bigTree, 'tools', 'tool_249.json'),
    JSON.stringify({ content: [{ type: 'text', text: 'last one' }] }),
  );
  return bigTree;
}
let client: Client;
let stdio: Client;

async function connectHttp(url: URL): Promise<Client> {
  const connected = new Client({ name: 'edge-test', version: '1.0.0' });
  await connected.connect(new StreamableHTTPClientTransport(new URL('mcp', url)));
  return connected;
}

function textOf(result: unknown): string {
  return ((result as { content: { text: string }[] }).content ?? []).map((item) => item.text).join('');
}

/** A raw POST to /mcp, for what the SDK client never sends. */
function post(body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(new URL('mcp', site.url), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
      ...headers,
    },
    body,
  });
}

beforeAll(async () => {
  // The bundled example, with origins and a public URL added, built by the real CLI.
  const project = path.join(await temporaryFolder(), 'example');
  await fs.cp(path.join(REPO_ROOT, 'fixtures', 'example'), project, {
    recursive: true,
    filter: (source) => !/[/\\](dist|\.staticmcp)([/\\]|$)/.test(path.relative(REPO_ROOT, source)),
  });
  const configFile = path.join(project, 'staticmcp.json');
  const config = JSON.parse(await fs.readFile(configFile, 'utf8')) as Record<string, unknown>;
  await fs.writeFile(
    configFile,
    JSON.stringify({
      ...config,
      publicUrl: 'https://example.pages.dev',
      githubOwner: 'example-owner',
      http: { allowedOrigins: [ALLOWED_ORIGIN] },
    }),
  );
  tree = path.join(await temporaryFolder(), 'tree');
  const build = await runCli(['build', project, '--out', tree]);
  expect(build.code, build.stderr).toBe(0);
  [site, bigSite] = await startWorkerdSitesOnPorts([
    { treeDir: tree },
    { treeDir: await writeBigTree(), workerFile: path.join(tree, '_worker.js') },
  ] as const);
  client = await connectHttp(site.url);
  stdio = new Client({ name: 'edge-test-stdio', version: '1.0.0' });
  await stdio.connect(
    new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', tree], stderr: 'pipe' }),
  );
  // A build, a workerd and a stdio server one after another: past a minute on a loaded machine.
}, 180_000);

afterAll(async () => {
  await client?.close();
  await stdio?.close();
  await site?.close();
  await removeTemporaryFolders();
});

describe('the worker as a remote MCP server', () => {
  it('completes the handshake statelessly, without a session id', async () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'example', version: '1.0.0' });
    expect(client.getServerCapabilities()).toMatchObject({ tools: {}, resources: {}, prompts: {}, completions: {} });
    const transport = (client as unknown as { transport: StreamableHTTPClientTransport }).transport;
    expect(transport.sessionId).toBeUndefined();
  });

  it('lists tools as serve without --live does: only those the tree answers', async () => {
    const listed = await client.listTools();
    // counter and divide have no precomputed call; the edge never has the project to run them.
    // search and fetch answer from the index of the text resources every build writes (issue #25).
    expect(listed.tools.map((tool) => tool.name)).toEqual([
      'capital',
      'greet',
      'math_multiply',
      'word-count',
      'search',
      'fetch',
    ]);
    expect(listed.nextCursor).toBeUndefined();
    expect(listed).toEqual(await stdio.listTools());
  });

  it('answers precomputed calls from the tree, as serve does', async () => {
    const product = await client.callTool({ name: 'math_multiply', arguments: { a: 3, b: 7 } });
    expect(textOf(product)).toBe('21\n');
    expect(product.isError).toBeFalsy();
    for (const call of [
      { name: 'math_multiply', arguments: { a: 3, b: 7 } },
      { name: 'greet', arguments: { language: 'fr' } },
      { name: 'capital', arguments: { country: "Côte d'Ivoire" } },
      { name: 'math_multiply', arguments: { a: 'three' } },
      { name: 'greet', arguments: { language: 'xx', extra: true } },
    ]) {
      expect(await client.callTool(call), JSON.stringify(call)).toEqual(await stdio.callTool(call));
    }
  });

  it('answers a miss with an error result that says how to get a live answer', async () => {
    const miss = await client.callTool({ name: 'divide', arguments: { a: 1, b: 4 } });
    expect(miss.isError).toBe(true);
    expect(textOf(miss)).toContain('this call was not precomputed');
    expect(textOf(miss)).toContain(`staticmcp serve ${site.url.href} --live <project folder>`);
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toMatchObject({ code: -32602 });
  });

  it('reads resources and template instances, as serve does', async () => {
    for (const uri of [
      'resource://guide.md',
      'resource://logo.png',
      'example://data/planets',
      'example://planets/mars',
    ]) {
      expect(await client.readResource({ uri }), uri).toEqual(await stdio.readResource({ uri }));
    }
    expect((await client.readResource({ uri: 'resource://guide.md' })).contents[0]).toMatchObject({
      uri: 'resource://guide.md',
      mimeType: 'text/markdown',
    });
    await expect(client.readResource({ uri: 'resource://nowhere.md' })).rejects.toMatchObject({ code: -32002 });
    // State is read by running the script: the edge can only say how.
    await expect(client.readResource({ uri: 'mcpd://counter/state' })).rejects.toThrow(/--live <project folder>/);
  });

  it('renders prompts and completes arguments, as serve does', async () => {
    const prompt = await client.getPrompt({
      name: 'explain-product',
      arguments: { a: '6', b: '7', audience: 'child' },
    });
    expect(JSON.stringify(prompt.messages)).toContain('Explain to a child how to compute 6 times 7');
    expect(prompt).toEqual(
      await stdio.getPrompt({ name: 'explain-product', arguments: { a: '6', b: '7', audience: 'child' } }),
    );
    const completion = {
      ref: { type: 'ref/prompt' as const, name: 'explain-product' },
      argument: { name: 'audience', value: 'st' },
    };
    expect((await client.complete(completion)).completion.values).toEqual(['student']);
    expect(await client.complete(completion)).toEqual(await stdio.complete(completion));
  });

  it('walks every page of a big tree from another generator', async () => {
    const bigClient = await connectHttp(bigSite.url);
    try {
      const { names: seen, pages } = await listEveryTool(bigClient);
      expect(pages).toBe(3);
      expect(seen).toEqual(BIG_TOOLS.map((tool) => tool.name));
      expect(textOf(await bigClient.callTool({ name: 'tool_249', arguments: {} }))).toBe('last one');
      await expect(bigClient.listTools({ cursor: 'garbage!' })).rejects.toMatchObject({ code: -32602 });
    } finally {
      await bigClient.close();
    }
  });
});

// The worker's refusals (foreign Origin, bad bodies, GET, …) are rows of the table in
// test/http/bad-input-cases.ts, replayed through it by test/http/bad-input.test.ts.
describe('whom the worker lets in', () => {
  it('lets the site and the listed origins call, with CORS, and answers their preflight', async () => {
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    for (const origin of [site.url.origin, ALLOWED_ORIGIN]) {
      const allowed = await post(ping, { origin });
      expect(allowed.status, origin).toBe(200);
      expect(allowed.headers.get('access-control-allow-origin')).toBe(origin);
      expect(await allowed.json()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    }
    const preflight = await fetch(new URL('mcp', site.url), {
      method: 'OPTIONS',
      headers: {
        origin: ALLOWED_ORIGIN,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, mcp-protocol-version',
      },
    });
    expect(preflight.status).toBeLessThan(300);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(ALLOWED_ORIGIN);
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('mcp-protocol-version');
  });

  it('answers a notification with 202 and no body', async () => {
    const response = await post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    expect(response.status).toBe(202);
    expect(await response.text()).toBe('');
  });
});

describe('the static site around it', () => {
  it('passes every other path to the static files', async () => {
    const manifest = await fetch(new URL('mcp.json', site.url));
    expect(manifest.status).toBe(200);
    expect(await manifest.text()).toBe(await fs.readFile(path.join(tree, 'mcp.json'), 'utf8'));
    const page = await fetch(site.url);
    expect(await page.text()).toContain('https://example.pages.dev/mcp');
    expect((await fetch(new URL('no/such/file.json', site.url))).status).toBe(404);
  });

  it('comes with what Pages needs to route only /mcp to the worker, and a registry entry', async () => {
    expect(JSON.parse(await fs.readFile(path.join(tree, '_routes.json'), 'utf8'))).toEqual({
      version: 1,
      include: ['/mcp'],
      exclude: [],
    });
    const serverJson = JSON.parse(await fs.readFile(path.join(tree, 'server.json'), 'utf8')) as Record<string, unknown>;
    expect(serverJson).toMatchObject({
      // A pages.dev host is not the user's: the name is the GitHub owner's, which the registry verifies.
      name: 'io.github.example-owner/example',
      remotes: [{ type: 'streamable-http', url: 'https://example.pages.dev/mcp' }],
    });
    // The npm package only once staticmcp is published: the registry checks each package it lists.
    expect(serverJson.packages).toEqual(
      PUBLISHED_ON_NPM ? [expect.objectContaining({ registryType: 'npm', identifier: 'staticmcp' })] : undefined,
    );
  });

  it('fetches only the file a call needs (mcp.json is kept by the isolate)', async () => {
    const before = new Map(site.assetRequests);
    await client.callTool({ name: 'greet', arguments: { language: 'de', shout: true } });
    const fetched = [...site.assetRequests]
      .filter(([file, count]) => count !== (before.get(file) ?? 0))
      .map(([file]) => file);
    expect(fetched).toEqual(['/tools/greet/de/true.json']);
  });

  it("answers the same call from the next requests without fetching its file again (the version's reader is kept)", async () => {
    const manifestReads = site.assetRequests.get('/mcp.json');
    const call = { name: 'greet', arguments: { language: 'en', shout: false } };
    const first = await client.callTool(call);
    for (let request = 0; request < 3; request++) expect(await client.callTool(call)).toEqual(first);
    expect(site.assetRequests.get('/tools/greet/en/false.json')).toBe(1);
    expect(site.assetRequests.get('/mcp.json')).toBe(manifestReads);
  });
});

// The bundled example's tree on each host's own local runtime, as a user's client meets it: the
// official SDK client connects, a precomputed call is answered, a call nobody precomputed and a
// live-only tool answer "not precomputed" (never "broken"), a missing resource is -32002, a missing
// static path is a 404, and mcp.json and a call file carry one Cache-Control each (the hosts join
// every `_headers` rule that matches); the packed tree answers from its packs and serves skills.
// The protocol table runs through the same hosts (test/protocol-table/runtimes.test.ts). The edge
// hosts are the ones the tier starts once per run (test/shared-hosts.ts), over one tree that
// carries both: the example with skills, packed (capital, greet and math_multiply in packs/,
// word-count's calls as files). The plain static host is this file's own, over each tree.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { CLI } from '../helpers/paths.js';
import { buildFixtureProject } from '../helpers/projects.js';
import { releaseSharedHost, type SharedHostName, sharedHost, sharedHostOfProject } from '../helpers/shared-hosts.js';
import {
  type RunningHost,
  startNetlifyUnderDeno,
  startPagesDev,
  startStaticHost,
  startWranglerDev,
} from './host-runtimes.js';

interface HostCase {
  name: string;
  /** Starts the host over `project`, built (wrangler dev and Netlify: with the deploy files init writes). */
  start(project: string): Promise<RunningHost>;
  /** The runtime the tier shares over the packed example with skills, where there is one. */
  shared?: SharedHostName;
  /** How a client reaches the tree there: the host's own /mcp, or the bridge reading its files. */
  transport(host: RunningHost): Transport;
  /** Whether the host applies the tree's `_headers` file. */
  appliesHeaders: boolean;
  /** Whether the host keeps `_worker.js` and `_headers` from visitors (Cloudflare does; Netlify publishes every file). */
  hidesControlFiles: boolean;
}

const edgeTransport = (host: RunningHost): Transport => new StreamableHTTPClientTransport(new URL('mcp', host.url));

const HOSTS: HostCase[] = [
  {
    name: 'Cloudflare Pages (wrangler pages dev)',
    start: (project) => startPagesDev(path.join(project, 'dist')),
    shared: 'pages-dev',
    transport: edgeTransport,
    appliesHeaders: true,
    hidesControlFiles: true,
  },
  {
    name: 'Cloudflare Workers static assets (wrangler dev, deploy/wrangler.jsonc)',
    start: (project) => startWranglerDev(project),
    shared: 'wrangler-dev',
    transport: edgeTransport,
    appliesHeaders: true,
    hidesControlFiles: true,
  },
  {
    name: 'Netlify (the edge function under Deno, routed by netlify.toml)',
    start: (project) => startNetlifyUnderDeno(project),
    shared: 'netlify-deno',
    transport: edgeTransport,
    appliesHeaders: true,
    hidesControlFiles: false,
  },
  {
    name: 'a plain static host read by staticmcp serve <URL>',
    start: (project) => startStaticHost(path.join(project, 'dist')),
    transport: (host) =>
      new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', host.url.href], stderr: 'pipe' }),
    appliesHeaders: false,
    hidesControlFiles: false,
  },
];

function textOf(result: unknown): string {
  return ((result as { content?: { text?: string }[] }).content ?? []).map((item) => item.text ?? '').join('');
}

/**
 * How long a describe may wait for its shared host: the first file to ask waits for the packed
 * example's build and the runtime's start, which take well over a minute on a loaded machine.
 */
const SHARED_HOST_TIMEOUT_MS = 180_000;

/** The project the shared edge hosts serve (the tree in its dist/), asked once: the static host serves it too. */
let packedProject: Promise<string> | undefined;
function findPackedProject(): Promise<string> {
  packedProject ??= sharedHostOfProject('pages-dev').then(({ project }) => project);
  return packedProject;
}

// Each host's two describes run one after the other, so a shared host is held through both and
// let go once, instead of being paused between them and resumed.
describe.each(HOSTS)('$name', (hostCase) => {
  afterAll(async () => {
    // Done with it: the run pauses it while the other hosts' tests run.
    if (hostCase.shared) await releaseSharedHost(hostCase.shared);
  });

  // On the edge hosts this is the packed tree with skills: what it asks is answered there as from
  // the plain example (a packed call and a call file alike), which the static host serves here.
  describe('the example tree', () => {
    let host: RunningHost;
    let client: Client;

    beforeAll(async () => {
      // A shared host belongs to the run: closing it here is a no-op.
      host = hostCase.shared
        ? { url: await sharedHost(hostCase.shared), close: async () => {} }
        : await hostCase.start(buildFixtureProject('fixtures/example'));
      client = new Client({ name: 'real-hosts', version: '1.0.0' });
      await client.connect(hostCase.transport(host));
    }, SHARED_HOST_TIMEOUT_MS);

    afterAll(async () => {
      await client?.close();
      await host?.close();
    });

    it('connects the SDK client and answers a precomputed call, and one whose answer is a call file', async () => {
      expect(client.getServerVersion()?.name).toBe('example');
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('capital');
      const hit = await client.callTool({ name: 'capital', arguments: { country: 'Japan' } });
      expect(hit.isError).toBeFalsy();
      expect(textOf(hit)).toBe('Tokyo\n');
      const counted = await client.callTool({ name: 'word-count', arguments: { document: 'guide.md' } });
      expect(counted.isError).toBeFalsy();
      expect(textOf(counted)).toBe('26\n');
    });

    it('searches the text resources and fetches a result through the host (the index read from its packs)', async () => {
      const found = await client.callTool({ name: 'search', arguments: { query: 'division script' } });
      expect(found.isError).toBeFalsy();
      const { results } = found.structuredContent as { results: { id: string; title: string }[] };
      expect(results.map((result) => result.id)).toContain('resources/guide_md.json');
      const fetched = await client.callTool({ name: 'fetch', arguments: { id: 'resources/guide_md.json' } });
      expect(fetched.isError).toBeFalsy();
      expect((fetched.structuredContent as { text: string }).text).toContain('division runs the script');
      const forged = await client.callTool({ name: 'fetch', arguments: { id: '../../etc/passwd' } });
      expect(forged.isError).toBe(true);
    });

    it('answers a call nobody precomputed, and a live-only tool, as not precomputed', async () => {
      for (const call of [
        { name: 'capital', arguments: { country: 'Peru' } },
        { name: 'divide', arguments: { a: 1, b: 2 } },
      ]) {
        const miss = await client.callTool(call);
        expect(miss.isError, call.name).toBe(true);
        expect(textOf(miss), call.name).toContain('this call was not precomputed');
        expect(textOf(miss), call.name).not.toContain('cannot be read');
      }
    });

    it('answers a missing resource with -32002', async () => {
      await expect(client.readResource({ uri: 'resource://no-such-document.md' })).rejects.toMatchObject({
        code: -32002,
      });
    });

    it('answers a missing static path with 404, and mcp.json and a call file with one Cache-Control each', async () => {
      const missing = await fetch(new URL('tools/capital/peru.json', host.url));
      expect(missing.status).toBe(404);
      // Read to its end, not cancelled: a response cut off mid-way is a lost connection inside
      // wrangler, which it may answer by exiting (test/hosts/host-processes.ts, startWrangler).
      await missing.arrayBuffer();
      const manifest = await fetch(new URL('mcp.json', host.url));
      // word-count's calls are files in both trees (capital's are packed in the shared one).
      const call = await fetch(new URL('tools/word-count/guide_md.json', host.url));
      expect(manifest.status).toBe(200);
      expect(call.status).toBe(200);
      expect(manifest.headers.get('content-type')).toMatch(/^application\/json/);
      expect(call.headers.get('content-type')).toMatch(/^application\/json/);
      expect(JSON.parse(await manifest.text()).serverInfo.name).toBe('example');
      expect(JSON.parse(await call.text()).content[0].text).toBe('26\n');
      if (!hostCase.appliesHeaders) return;
      expect(manifest.headers.get('cache-control')).toBe('public, max-age=60, must-revalidate');
      expect(call.headers.get('cache-control')).toBe('public, max-age=300, must-revalidate');
    });

    it.runIf(hostCase.hidesControlFiles)("never serves the worker's code or the host's _headers file", async () => {
      // Pages answers these 404 in production and 502 under wrangler pages dev; Workers static assets
      // leave them out through .assetsignore. _routes.json and .assetsignore only name paths, and are
      // harmless where a host serves them (docs/tree-format.md).
      for (const file of ['_worker.js', '_headers']) {
        const answer = await fetch(new URL(file, host.url));
        const text = await answer.text();
        expect(answer.status, file).not.toBe(200);
        expect(text, file).not.toContain('Cache-Control');
        expect(text, file).not.toContain('export');
      }
    });
  });

  // The same tree packed (`--max-call-files 1`: every tool with enough calls goes into packs/): the
  // worker reads packs through ASSETS (Cloudflare) or by fetching its own origin (Netlify), the
  // bridge by HTTP from a plain static host. It carries test/fixtures/skills-project's skills too,
  // so the same hosts show skills/list and skill files as a client reads them.
  describe('the packed example tree with skills', () => {
    let project: string;
    let host: RunningHost;
    let client: Client;

    beforeAll(async () => {
      project = await findPackedProject();
      host = hostCase.shared
        ? { url: await sharedHost(hostCase.shared), close: async () => {} }
        : await hostCase.start(project);
      client = new Client({ name: 'real-hosts-packed', version: '1.0.0' });
      await client.connect(hostCase.transport(host));
    }, SHARED_HOST_TIMEOUT_MS);

    afterAll(async () => {
      await client?.close();
      await host?.close();
    });

    it('answers a packed call from its pack, and a call nobody precomputed as not precomputed', async () => {
      const manifest = JSON.parse(readFileSync(path.join(project, 'dist', 'mcp.json'), 'utf8'));
      expect(Object.keys(manifest.staticmcp.packs)).toContain('capital');
      expect(existsSync(path.join(project, 'dist', 'tools', 'capital', 'japan.json'))).toBe(false);
      const hit = await client.callTool({ name: 'capital', arguments: { country: 'Japan' } });
      expect(hit.isError).toBeFalsy();
      expect(textOf(hit)).toBe('Tokyo\n');
      const miss = await client.callTool({ name: 'capital', arguments: { country: 'Peru' } });
      expect(miss.isError).toBe(true);
      expect(textOf(miss)).toContain('this call was not precomputed');
      expect(textOf(miss)).not.toContain('cannot be read');
    });

    it('lists and gets the skills, and serves each listed file with the bytes its digest and size describe', async () => {
      expect(client.getServerCapabilities()?.extensions).toMatchObject({
        'io.modelcontextprotocol/skills': { directoryRead: true },
      });
      // The SDK (1.32) has no skills methods: `client.request` with its own loose result schema.
      const listed = await client.request({ method: 'skills/list', params: {} }, ResultSchema);
      const skills = listed.skills as { uri: string; resources: { uri: string; digest: string; size: number }[] }[];
      expect(skills.map((skill) => skill.uri)).toEqual([
        'skill://acme/billing/refunds/SKILL.md',
        'skill://acme/billing/refunds/chargebacks/SKILL.md',
        'skill://greeting-etiquette/SKILL.md',
      ]);
      const got = await client.request({ method: 'skills/get', params: { uri: skills[0]!.uri } }, ResultSchema);
      expect(got.skill).toEqual(skills[0]);
      const folder = await client.request(
        { method: 'resources/directory/read', params: { uri: 'skill://acme/billing/refunds' } },
        ResultSchema,
      );
      expect((folder.resources as { uri: string }[]).map((resource) => resource.uri)).toEqual([
        'skill://acme/billing/refunds/SKILL.md',
        'skill://acme/billing/refunds/assets',
        'skill://acme/billing/refunds/chargebacks',
        'skill://acme/billing/refunds/examples',
      ]);
      for (const file of skills[0]!.resources) {
        const [item] = (await client.readResource({ uri: file.uri })).contents as { text?: string; blob?: string }[];
        const bytes =
          item?.text !== undefined ? Buffer.from(item.text, 'utf8') : Buffer.from(item?.blob ?? '', 'base64');
        expect({
          uri: file.uri,
          digest: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
          size: bytes.length,
        }).toEqual(file);
      }
      if (!hostCase.appliesHeaders) return;
      const list = await fetch(new URL('skills/list.json', host.url));
      expect(list.headers.get('cache-control')).toBe('public, max-age=300, must-revalidate');
      await list.arrayBuffer();
    });
  });
});

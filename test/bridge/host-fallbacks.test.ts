// How static hosts answer a file they do not have, and what a reader of the tree makes of it:
// Cloudflare Pages without a 404.html answers index.html with 200 (labelled JSON by a `/*.json`
// rule, as our `_headers` once did), others redirect to the landing page, answer 403 (buckets)
// or an empty 200. `serve <URL>` must read each as "not in this tree", never as a broken file,
// and `check <URL>` must say the host does it. One local server plays every host, by path prefix,
// over the run's one build of fixtures/example (it only reads it). What serve answers and what
// check finds are decided in-process for each host (serve's own session over its URL source, the
// check command's checkSource); one process of each command shows what the command does.
import { promises as fs } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSource } from '../../src/cli/commands/check.js';
import { runCli } from '../helpers/cli.js';
import { builtExample } from '../helpers/example.js';
import { InProcessBridge } from '../helpers/in-process-bridge.js';
import { type JsonRpcLines, RawBridge } from '../helpers/raw-bridge.js';

type Host = 'pages-fallback' | 'redirect' | 'forbidden' | 'empty' | 'not-found';

let root: string;
let server: http.Server;
let origin: string;

beforeAll(async () => {
  root = path.join(builtExample(), 'dist');
  const landingPage = await fs.readFile(path.join(root, 'index.html'));
  server = http.createServer(async (request, response) => {
    const [, host = '', ...rest] = new URL(request.url!, 'http://x').pathname.split('/');
    const relative = decodeURIComponent(rest.join('/'));
    try {
      const body = await fs.readFile(path.join(root, relative));
      response.writeHead(200, { 'content-type': 'application/json' }).end(body);
      return;
    } catch {}
    switch (host as Host) {
      case 'pages-fallback':
        response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(landingPage);
        return;
      case 'redirect':
        response.writeHead(302, { location: `/${host}/` }).end();
        return;
      case 'forbidden':
        response.writeHead(403, { 'content-type': 'application/xml' }).end('<Error><Code>AccessDenied</Code></Error>');
        return;
      case 'empty':
        response.writeHead(200, { 'content-type': 'application/json' }).end();
        return;
      default:
        response.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const hosts: Host[] = ['pages-fallback', 'redirect', 'forbidden', 'empty', 'not-found'];

/** Asks a bridge serving the tree at `url` for a hit, a miss and a missing resource. */
async function expectMissesNotPrecomputed(bridge: JsonRpcLines): Promise<void> {
  await bridge.initialize();
  const hit = await bridge.request('tools/call', { name: 'capital', arguments: { country: 'Japan' } });
  expect(hit.result?.content).toEqual([{ type: 'text', text: 'Tokyo\n' }]);
  const miss = await bridge.request('tools/call', { name: 'capital', arguments: { country: 'Peru' } });
  const text = JSON.stringify(miss);
  expect(text).toContain('this call was not precomputed');
  expect(text).not.toContain('cannot be read');
  const resource = await bridge.request('resources/read', { uri: 'resource://no-such-file.md' });
  expect(resource.error?.code).toBe(-32002);
}

const NOT_A_BROKEN_TREE = /not valid JSON|cannot be read|HTTP 403|redirect/;

describe.each(hosts)('a tree on a host that answers a missing file with %s', (host) => {
  it('serve <URL> answers hits, and a miss as not precomputed, never as a broken tree', async () => {
    const bridge = await InProcessBridge.open(`${origin}/${host}/`);
    try {
      await expectMissesNotPrecomputed(bridge);
    } finally {
      await bridge.close();
    }
    expect(bridge.stderr).not.toMatch(NOT_A_BROKEN_TREE);
  });

  it('check <URL> says whether the host answers missing files with a page that stands in for them', async () => {
    const { report } = await checkSource(`${origin}/${host}/`);
    const probe = report.problems.filter((problem) => problem.path === 'tools/.staticmcp-check-missing-file.json');
    if (host === 'not-found') {
      expect(probe).toEqual([]);
      return;
    }
    expect(report.ok).toBe(false);
    expect(probe).toHaveLength(1);
    expect(probe[0]?.message).toMatch(/^the host answers a file the tree does not have with /);
    expect(probe[0]?.hint).toContain('including the 404.html staticmcp build writes');
  });
});

it('check <URL> prints the stand-in page as a problem with what to do, and exits 1', async () => {
  const result = await runCli(['check', `${origin}/pages-fallback/`]);
  expect(result.code).toBe(1);
  expect(result.stderr).toContain('✗ tools/.staticmcp-check-missing-file.json: the host answers a file the tree');
  expect(result.stderr).toContain('including the 404.html staticmcp build writes');
});

it('serve <URL> as a process answers a miss on a stand-in page as not precomputed, and exits 0', async () => {
  const bridge = new RawBridge([`${origin}/pages-fallback/`]);
  await expectMissesNotPrecomputed(bridge);
  expect(await bridge.close()).toBe(0);
  expect(bridge.stderr).not.toMatch(NOT_A_BROKEN_TREE);
});

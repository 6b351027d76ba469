// A tree served over HTTP by a local server started here: the bridge reads it with keep-alive,
// caches parsed files, and revalidates with ETags instead of downloading again.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnswerBudget } from '../../src/core/mcp/answer-budget.js';
import { CachedTreeReader } from '../../src/core/tree-reading/cached-tree-reader.js';
import { UrlSource } from '../../src/hosts/node/url-source.js';
import { buildFixtureProject } from '../helpers/projects.js';
import { RawBridge } from '../helpers/raw-bridge.js';

let project: string;
let server: http.Server;
let baseUrl: string;
const requests: { url: string; method: string; conditional: boolean; status: number }[] = [];
const sockets = new Set<unknown>();

beforeAll(async () => {
  project = buildFixtureProject('fixtures/example');
  const root = path.join(project, 'dist');
  server = http.createServer(async (request, response) => {
    const relative = decodeURIComponent(new URL(request.url!, 'http://x').pathname).replace(/^\/tree\//, '');
    let body: Buffer;
    try {
      body = await fs.readFile(path.join(root, relative));
    } catch {
      requests.push({ url: request.url!, method: request.method!, conditional: false, status: 404 });
      response.writeHead(404).end();
      return;
    }
    const etag = `"${createHash('sha1').update(body).digest('hex')}"`;
    const conditional = request.headers['if-none-match'] === etag;
    requests.push({ url: request.url!, method: request.method!, conditional, status: conditional ? 304 : 200 });
    if (request.method === 'HEAD') {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length, etag }).end();
      return;
    }
    if (conditional) {
      response.writeHead(304, { etag }).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json', etag }).end(body);
  });
  server.on('connection', (socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/tree/`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('a tree at an http URL', () => {
  it('serves hits from the URL, runs misses with --live, and fetches each file once', async () => {
    const bridge = new RawBridge([baseUrl, '--live', project]);
    const init = await bridge.initialize();
    expect((init.result!.serverInfo as { name: string }).name).toBe('example');
    for (let round = 0; round < 3; round += 1) {
      const hit = await bridge.request('tools/call', { name: 'capital', arguments: { country: "Côte d'Ivoire" } });
      expect(hit.result?.content).toEqual([{ type: 'text', text: 'Yamoussoukro\n' }]);
    }
    // Downloaded once; its size was asked once before (a HEAD), so a file past the answer cap is never downloaded.
    const callFile = requests.filter((request) => request.url.endsWith('/tools/capital/cote_d_ivoire.json'));
    expect(callFile.map((request) => request.method)).toEqual(['HEAD', 'GET']);
    const live = await bridge.request('tools/call', { name: 'divide', arguments: { a: 9, b: 3 } });
    expect(live.result?.content).toEqual([{ type: 'text', text: '3\n' }]);
    const resource = await bridge.request('resources/read', { uri: 'resource://guide.md' });
    expect((resource.result!.contents as { mimeType: string }[])[0]?.mimeType).toBe('text/markdown');
    expect(await bridge.close()).toBe(0);
  });

  it('revalidates a cached file with If-None-Match and keeps it on 304', async () => {
    const reader = new CachedTreeReader(new UrlSource(baseUrl, { revalidateAfterMs: 0 }));
    const first = await reader.readJson('tools/greet/de/false.json');
    const second = await reader.readJson('tools/greet/de/false.json');
    expect(second).toEqual(first);
    const greetRequests = requests.filter((request) => request.url.endsWith('/tools/greet/de/false.json'));
    expect(greetRequests.map((request) => request.status)).toEqual([200, 304]);
    expect(await reader.readJson('tools/greet/xx.json')).toEqual({ kind: 'missing' });
    reader.source.close();
  });

  it('refuses a file past the answer room from its Content-Length, without downloading it', async () => {
    const reader = new CachedTreeReader(new UrlSource(baseUrl));
    const room = new AnswerBudget(10).openRoom();
    await expect(reader.readJson('tools/capital/france.json', room, 'the call')).rejects.toThrow(
      /^Answer too large: the call is \d+ bytes, more than the 10 bytes this server sends in one answer; it was not read/,
    );
    const france = requests.filter((request) => request.url.endsWith('/tools/capital/france.json'));
    expect(france.map((request) => request.method)).toEqual(['HEAD']);
    reader.source.close();
  });

  it('reports an unreachable server as a clean error at start', async () => {
    const bridge = new RawBridge(['http://127.0.0.1:9/tree/']);
    expect(await bridge.exited).toBe(1);
    expect(bridge.stderr).toMatch(/mcp\.json/);
  });
});

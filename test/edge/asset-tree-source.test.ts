// The worker's view of the tree (hosts/edge/asset-tree-source.ts) over a host that honours byte
// ranges — `serve --http`'s static site, as a Netlify edge function fetches its own origin: a
// pack record is read alone (206), a range past the file's end is a short read the pack reader
// refuses, and a whole file still comes whole. A host that ignores ranges is the same site reached
// without the Range header: a pack too large to keep is cut as it streams. Over miniflare's asset
// binding, which ignores ranges, test/edge/packed-worker.test.ts covers the whole-pack path. A host
// that drops a connection without answering is asked once more.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAssetTreeSource } from '../../src/hosts/edge/asset-tree-source.js';
import { HttpServe } from '../helpers/http-serve.js';
import { packTool } from '../helpers/packed-trees.js';
import { buildProjectTree, makeProject } from '../helpers/projects.js';

let serve: HttpServe;
let tree: string;
let packPath: string;

beforeAll(async () => {
  const project = await makeProject({
    tools: { echo: 'echo-value' },
    config: { tools: { echo: { values: { value: Array.from({ length: 40 }, (_, at) => `word-${at}`) } } } },
  });
  buildProjectTree(project);
  tree = path.join(project, 'dist');
  packTool(tree, 'echo');
  const pack = readdirSync(path.join(tree, 'packs/echo')).find((name) => name.endsWith('.pack'));
  packPath = `packs/echo/${pack}`;
  // Larger than the reader keeps whole (a quarter of its 16 MiB budget): bytes numbered by position.
  writeFileSync(
    path.join(tree, 'packs/echo/large.pack'),
    Uint8Array.from({ length: 5 * 1024 * 1024 }, (_, at) => at % 251),
  );
  serve = await HttpServe.start([tree]);
}, 60_000);

afterAll(() => {
  serve?.child.kill();
});

function source() {
  return createAssetTreeSource({ fetch: (request) => fetch(request) }, new URL(`http://127.0.0.1:${serve.port}/`));
}

describe('the worker reading packs from a host that serves byte ranges', () => {
  it('reads a record alone, and a whole file whole', async () => {
    const file = readFileSync(path.join(tree, packPath));
    const part = await source().readBytes(packPath, {
      offset: 8,
      length: 24,
      fileLength: file.length,
      keepsWhole: true,
    });
    expect(part).toEqual({ status: 'ok', bytes: new Uint8Array(file.subarray(8, 32)), whole: false });
    const whole = await source().readBytes(packPath);
    expect(whole).toEqual({ status: 'ok', bytes: new Uint8Array(file), whole: true });
  });

  it('answers a range past the end as a short read, and a missing pack as missing', async () => {
    const size = readFileSync(path.join(tree, packPath)).length;
    expect(
      await source().readBytes(packPath, { offset: size + 10, length: 5, fileLength: size + 15, keepsWhole: true }),
    ).toEqual({
      status: 'ok',
      bytes: new Uint8Array(0),
      whole: false,
    });
    expect(
      await source().readBytes('packs/echo/0000000000000000.pack', {
        offset: 0,
        length: 5,
        fileLength: 5,
        keepsWhole: true,
      }),
    ).toEqual({
      status: 'missing',
    });
  });
});

describe('the worker reading packs from a host that ignores byte ranges', () => {
  /**
   * The same site, asked without the Range header: every answer is the whole file (200); with
   * `unsized`, streamed without a Content-Length (as the Workers asset binding answers a worker).
   */
  function rangeIgnoringSource(unsized = false) {
    return createAssetTreeSource(
      {
        fetch: async (request) => {
          const headers = new Headers(request.headers);
          headers.delete('range');
          const response = await fetch(new Request(request.url, { headers }));
          if (!unsized) return response;
          const answerHeaders = new Headers(response.headers);
          answerHeaders.delete('content-length');
          return new Response(response.body, { status: response.status, headers: answerHeaders });
        },
      },
      new URL(`http://127.0.0.1:${serve.port}/`),
    );
  }

  it('takes a pack of up to 4 MiB whole, kept or not (the reader cuts the record out)', async () => {
    const file = readFileSync(path.join(tree, packPath));
    for (const unsized of [false, true])
      for (const keepsWhole of [true, false]) {
        const range = { offset: 8, length: 24, fileLength: file.length, keepsWhole };
        expect(await rangeIgnoringSource(unsized).readBytes(packPath, range)).toEqual({
          status: 'ok',
          bytes: new Uint8Array(file),
          whole: true,
        });
      }
  });

  it('cuts the record out of a pack too large to keep, and a range past its end comes short', async () => {
    const size = 5 * 1024 * 1024;
    for (const unsized of [false, true])
      for (const offset of [10, 4_500_001]) {
        const record = await rangeIgnoringSource(unsized).readBytes('packs/echo/large.pack', {
          offset,
          length: 1000,
          fileLength: size,
          keepsWhole: false,
        });
        expect(record).toEqual({
          status: 'ok',
          bytes: Uint8Array.from({ length: 1000 }, (_, at) => (offset + at) % 251),
          whole: false,
        });
      }
    for (const unsized of [false, true]) {
      const short = await rangeIgnoringSource(unsized).readBytes('packs/echo/large.pack', {
        offset: size - 10,
        length: 50,
        fileLength: size + 40,
        keepsWhole: false,
      });
      expect(short.status === 'ok' && short.bytes.length).toBe(10);
    }
  });

  it('reads a large file that is not the length its index says no further than a byte past it', async () => {
    // A 5 MiB file where the index says 4.5 MiB (replaced on the host): a byte more than that
    // comes back whole, which the reader refuses for its length, and the rest is not read. (A
    // pack the index says is at most 4 MiB is read whole: one file of a host's 25 MiB at most.)
    const said = 4.5 * 1024 * 1024;
    const longer = await rangeIgnoringSource(true).readBytes('packs/echo/large.pack', {
      offset: 8,
      length: 24,
      fileLength: said,
      keepsWhole: true,
    });
    if (longer.status !== 'ok') throw new Error('the pack was not read');
    expect(longer.whole).toBe(true);
    // Compared as buffers: a deep equality of 4.5 million elements takes a minute.
    const expected = Uint8Array.from({ length: said + 1 }, (_, at) => at % 251);
    expect(Buffer.compare(Buffer.from(longer.bytes), Buffer.from(expected))).toBe(0);
  });

  it('takes a page the host sends for a pack it lacks for a missing pack', async () => {
    const pageSource = createAssetTreeSource(
      {
        fetch: async () =>
          new Response('<!doctype html><p>Not here</p>', { status: 200, headers: { 'content-type': 'text/html' } }),
      },
      new URL('https://example.test/'),
    );
    expect(
      await pageSource.readBytes(packPath, { offset: 8, length: 24, fileLength: 20_000, keepsWhole: true }),
    ).toEqual({
      status: 'missing',
    });
  });
});

describe('the worker reading from a host that drops a connection without answering', () => {
  /** A site that closes the connection of each of the first `drops` requests unanswered, then answers `{}`. */
  async function startDroppingSite(drops: number) {
    let requests = 0;
    const server = http.createServer((request, response) => {
      requests += 1;
      if (requests <= drops) request.socket.destroy();
      else response.writeHead(200, { 'content-type': 'application/json' }).end('{"answered":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const root = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    return {
      source: createAssetTreeSource({ fetch: (request) => fetch(request) }, root),
      server,
      requests: () => requests,
    };
  }

  it('reads the file on a second request after one dropped connection', async () => {
    const site = await startDroppingSite(1);
    try {
      expect(await site.source.read('mcp.json')).toMatchObject({ status: 'ok', text: '{"answered":true}' });
      expect(site.requests()).toBe(2);
    } finally {
      site.server.close();
    }
  });

  it('fails the read after two dropped connections, asking no more', async () => {
    const site = await startDroppingSite(2);
    try {
      await expect(site.source.readBytes('packs/echo/0.pack')).rejects.toThrow(/fetch failed/);
      expect(site.requests()).toBe(2);
    } finally {
      site.server.close();
    }
  });
});

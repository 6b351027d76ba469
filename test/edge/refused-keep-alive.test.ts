// A refused request leaves its keep-alive connection usable (issue 21, item 11): the worker in
// workerd and `serve --http` both read (and drop) the body of a request they refuse before
// answering it, so a Node `http` keep-alive client sends its next request on the same connection
// and gets its answer. workerd used to close the connection silently after answering a foreign
// Origin's POST unread, and that next request failed with ECONNRESET.
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpServe } from '../helpers/http-serve.js';
import { builtExample } from '../helpers/example.js';
import { sharedHost } from '../helpers/shared-hosts.js';

let tree: string;
/** The workerd the tier shares over the built example (test/shared-hosts.ts): never closed here. */
let site: { url: URL };
let serve: HttpServe;

beforeAll(async () => {
  // Read only: serve --http and the worker never write to the tree.
  tree = path.join(builtExample(), 'dist');
  site = { url: await sharedHost('workerd') };
  serve = await HttpServe.start([tree]);
}, 60_000);

afterAll(async () => {
  await serve?.stop();
});

interface Exchange {
  status: number;
  text: string;
  reusedSocket: boolean;
}

/** One POST through `agent`; rejects when the connection fails (the ECONNRESET this is about). */
function postThrough(agent: http.Agent, url: URL, body: string, headers: Record<string, string>): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
          ...headers,
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, text, reusedSocket: request.reusedSocket }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

const PING = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });

describe('a refused request on a keep-alive connection', () => {
  for (const host of ['the worker in workerd', 'serve --http'] as const) {
    it(`leaves the connection working for the next request (${host})`, async () => {
      const url = host === 'serve --http' ? serve.endpoint : new URL('mcp', site.url);
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        // A body large enough not to arrive with the headers in one read.
        const body = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping', params: { pad: 'x'.repeat(256 * 1024) } });
        const refused = await postThrough(agent, url, body, { origin: 'https://evil.example' });
        expect(refused.status).toBe(403);
        expect(refused.text).toContain('requests from this Origin are not allowed');
        // Stateless on the worker; a session-less ping on serve is a 400 that names the header,
        // answered all the same on the very connection the refusal used.
        const next = await postThrough(agent, url, PING, {});
        expect(next.reusedSocket).toBe(true);
        if (host === 'serve --http') expect(next.status).toBe(400);
        else expect(JSON.parse(next.text)).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
      } finally {
        agent.destroy();
      }
    });
  }
});

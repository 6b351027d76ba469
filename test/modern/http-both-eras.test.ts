// `staticmcp serve --http` answering 2026-07-28 POSTs next to legacy sessions on one endpoint:
// no session id, the mirrored headers checked against the body (400 / -32020), the spec's HTTP
// statuses for its errors (400 for -32602 and -32022, 404 for -32601), Cache-Control from the
// cache hints, 405 for a modern GET, and the SDK 1.x client still working on the same process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { HttpServe, post, rawRequest } from '../helpers/http-serve.js';
import { buildFixtureProject } from '../helpers/projects.js';
import { modernHeaders } from '../protocol-table/drivers.js';
import { MODERN_META } from '../protocol-table/modern-cases.js';

let server: HttpServe;

beforeAll(async () => {
  server = await HttpServe.start([buildFixtureProject('fixtures/example')]);
});

afterAll(async () => {
  await server?.stop();
});

function modernPost(
  id: number,
  method: string,
  params: Record<string, unknown>,
  headers: Record<string, string | undefined> = {},
) {
  return post(server.port, { jsonrpc: '2.0', id, method, params }, { ...modernHeaders(method, params), ...headers });
}

describe('2026-07-28 over Streamable HTTP', () => {
  it('answers without a session, with Cache-Control from the cache hints', async () => {
    const answer = await modernPost(1, 'tools/list', { _meta: MODERN_META });
    expect(answer.status).toBe(200);
    expect(answer.headers['mcp-session-id']).toBeUndefined();
    expect(answer.headers['cache-control']).toBe('public, max-age=300');
    expect(answer.json().result).toMatchObject({ resultType: 'complete', ttlMs: 300_000, cacheScope: 'public' });
  });

  it('refuses headers that disagree with the body: 400 with -32020 and the request id', async () => {
    const call = { name: 'greet', arguments: { language: 'fr' }, _meta: MODERN_META };
    const cases: Record<string, string | undefined>[] = [
      { 'mcp-method': 'prompts/list' },
      { 'mcp-method': undefined },
      { 'mcp-name': 'capital' },
      { 'mcp-name': undefined },
      { 'mcp-protocol-version': '2025-11-25' },
      { 'mcp-protocol-version': undefined },
    ];
    for (const [index, headers] of cases.entries()) {
      const answer = await modernPost(10 + index, 'tools/call', call, headers);
      expect(answer.status, JSON.stringify(headers)).toBe(400);
      expect(answer.json(), JSON.stringify(headers)).toMatchObject({ id: 10 + index, error: { code: -32020 } });
    }
    // Surrounding whitespace is not part of a header value, and the Base64 form is decoded.
    expect((await modernPost(20, 'tools/call', call, { 'mcp-name': '  greet  ' })).json().result?.resultType).toBe(
      'complete',
    );
    const encoded = `=?base64?${Buffer.from('greet').toString('base64')}?=`;
    expect((await modernPost(21, 'tools/call', call, { 'mcp-name': encoded })).json().result?.resultType).toBe(
      'complete',
    );
  });

  it('gives the spec statuses: -32602 and -32022 are 400, -32601 is 404', async () => {
    const missing = await modernPost(30, 'server/discover', {});
    expect([missing.status, missing.json().error?.code]).toEqual([400, -32602]);
    const noMetaList = await post(
      server.port,
      { jsonrpc: '2.0', id: 31, method: 'tools/list' },
      modernHeaders('tools/list', undefined),
    );
    expect([noMetaList.status, noMetaList.json().error?.code]).toEqual([400, -32602]);
    const future = { _meta: { ...MODERN_META, 'io.modelcontextprotocol/protocolVersion': 'v999.0.0' } };
    const unsupported = await modernPost(32, 'server/discover', future);
    expect([unsupported.status, unsupported.json().error]).toEqual([
      400,
      expect.objectContaining({ code: -32022, data: { supported: ['2026-07-28'], requested: 'v999.0.0' } }),
    ]);
    const mismatched = await modernPost(33, 'server/discover', future, { 'mcp-protocol-version': '2026-07-28' });
    expect([mismatched.status, mismatched.json().error?.code]).toEqual([400, -32020]);
    for (const method of ['initialize', 'ping', 'logging/setLevel', 'unknown/method']) {
      const answer = await modernPost(34, method, { _meta: MODERN_META });
      expect([method, answer.status, answer.json().error?.code]).toEqual([method, 404, -32601]);
    }
    const get = await rawRequest(server.port, {
      method: 'GET',
      headers: { accept: 'text/event-stream', 'mcp-protocol-version': '2026-07-28' },
    });
    expect(get.status).toBe(405);
  });

  it('a listen stream on a served tree is acknowledged, then closed gracefully', async () => {
    const answer = await modernPost(40, 'subscriptions/listen', {
      notifications: { toolsListChanged: true },
      _meta: MODERN_META,
    });
    expect(answer.status).toBe(200);
    const frames = answer.text
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => JSON.parse(line.slice(5)));
    expect(frames[0]).toMatchObject({
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: {}, _meta: { 'io.modelcontextprotocol/subscriptionId': 40 } },
    });
    expect(frames.at(-1)).toMatchObject({ id: 40, result: { resultType: 'complete' } });
  });

  it('the SDK 1.x client still works on the same process, between modern requests', async () => {
    const client = new Client({ name: 'legacy', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${server.port}/mcp`)));
    try {
      const modern = await modernPost(50, 'tools/call', {
        name: 'greet',
        arguments: { language: 'fr' },
        _meta: MODERN_META,
      });
      expect(modern.json().result?.resultType).toBe('complete');
      const tools = await client.listTools();
      expect(tools.tools.map((tool) => tool.name)).toContain('greet');
      expect(tools).not.toHaveProperty('resultType');
      await expect(client.readResource({ uri: 'resource://missing.md' })).rejects.toThrow(/-32002|not found/i);
    } finally {
      await client.close();
    }
  });
});

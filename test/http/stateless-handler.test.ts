// The portable handler in stateless mode (how the edge worker runs it), in-process over the
// example tree: every POST stands alone, the version comes from MCP-Protocol-Version (or
// initialize), no Mcp-Session-Id is issued or needed, and GET/DELETE are 405 with Allow: POST.
// The tree is the committed golden tree of fixtures/example (the core tier compiles nothing).
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpHttpHandler, type McpHttpHandler } from '../../src/core/mcp/http/streamable-http.js';
import type { ServerContext } from '../../src/core/mcp/server-context.js';
import { createNodeServerContext } from '../../src/hosts/node/node-server-context.js';
import { FolderSource } from '../../src/hosts/node/folder-source.js';
import { REPO_ROOT } from '../helpers/paths.js';

let handler: McpHttpHandler;
let context: ServerContext;

beforeAll(async () => {
  context = await createNodeServerContext({
    source: new FolderSource(path.join(REPO_ROOT, 'test/build/__golden__/example/tree'), 'dist'),
    logProblem: () => {},
  });
  handler = createMcpHttpHandler({
    server: () => context,
    sessions: false,
    isAllowedOrigin: (origin) => origin === 'https://site.example',
  });
});

afterAll(async () => {
  await handler?.close();
});

function call(body: unknown, headers: Record<string, string> = {}, method = 'POST'): Promise<Response> {
  return handler.handle(
    new Request('https://site.example/mcp', {
      method,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      ...(method === 'POST' ? { body: JSON.stringify(body) } : {}),
    }),
  );
}

/** The parts of the answers these tests read. */
interface Answer {
  result: { protocolVersion?: string; tools?: { name: string; title?: string }[] };
}

async function answerOf(response: Response): Promise<Answer> {
  return (await response.json()) as Answer;
}

describe('stateless Streamable HTTP', () => {
  it('answers initialize without issuing a session id', async () => {
    const answer = await call({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('mcp-session-id')).toBeNull();
    expect((await answerOf(answer)).result.protocolVersion).toBe('2025-06-18');
  });

  it('answers a call on its own, shaped for the version in the header', async () => {
    const listed = await answerOf(
      await call({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-protocol-version': '2025-06-18' }),
    );
    const greet = listed.result.tools?.find((tool) => tool.name === 'greet');
    expect(greet).toBeDefined();
    expect(greet?.title).toBeDefined();
    const old = await answerOf(
      await call({ jsonrpc: '2.0', id: 3, method: 'tools/list' }, { 'mcp-protocol-version': '2024-11-05' }),
    );
    const oldGreet = old.result.tools?.find((tool) => tool.name === 'greet');
    expect(oldGreet).toBeDefined();
    expect(oldGreet).not.toHaveProperty('title');
    const greeting = await answerOf(
      await call(
        { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'greet', arguments: { language: 'fr' } } },
        { 'mcp-protocol-version': '2025-11-25', 'mcp-session-id': 'ignored' },
      ),
    );
    expect(greeting.result).toEqual({ content: [{ type: 'text', text: 'Bonjour !\n' }] });
  });

  it('treats a request without MCP-Protocol-Version as 2025-03-26, batches included', async () => {
    const answer = await call([
      { jsonrpc: '2.0', id: 'a', method: 'ping' },
      { jsonrpc: '2.0', id: 'b', method: 'ping' },
    ]);
    expect(await answer.json()).toEqual([
      { jsonrpc: '2.0', id: 'a', result: {} },
      { jsonrpc: '2.0', id: 'b', result: {} },
    ]);
  });

  it('refuses GET and DELETE with 405 and Allow: POST', async () => {
    for (const method of ['GET', 'DELETE']) {
      const answer = await call(undefined, { accept: 'text/event-stream' }, method);
      expect(answer.status).toBe(405);
      expect(answer.headers.get('allow')).toBe('POST');
    }
  });

  it('lets the allowed origin call with CORS headers and refuses others', async () => {
    const allowed = await call({ jsonrpc: '2.0', id: 5, method: 'ping' }, { origin: 'https://site.example' });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://site.example');
    expect((await call({ jsonrpc: '2.0', id: 6, method: 'ping' }, { origin: 'https://evil.example' })).status).toBe(
      403,
    );
  });
});

// `staticmcp serve --http` driven by the official SDK client (StreamableHTTPClientTransport) as a
// remote MCP client would: the handshake, lists with pagination, precomputed and live calls,
// progress over SSE, cancellation that kills the live script, resources, prompts, completion,
// and the session's life (issued, required, ended by DELETE). Also: the tree it serves at `/` is
// a working URL source for another `staticmcp serve`, and SIGTERM stops it with live scripts killed.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { HttpServe, LATEST, openSession, post, rawRequest, sseMessages } from '../helpers/http-serve.js';
import { listEveryTool } from '../helpers/list-every-tool.js';
import { isAlive, waitUntil } from '../helpers/processes.js';
import { buildFixtureProject, writeTree } from '../helpers/projects.js';
import { InProcessBridge } from '../helpers/in-process-bridge.js';
import { buildFixtureInProcess } from '../helpers/in-process-build.js';

let example: string;
let project: string;
let exampleServer: HttpServe;
let projectServer: HttpServe;
const servers: HttpServe[] = [];

async function connect(server: HttpServe): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'http-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(server.endpoint);
  await client.connect(transport);
  return { client, transport };
}

function textOf(result: unknown): string {
  return ((result as { content: { text: string }[] }).content ?? []).map((item) => item.text).join('');
}

const REPORTING_SCRIPT = `#!/bin/sh
if [ "$1" = "--help" ]; then
  echo '{"description": "Echo a word after reporting progress", "precompute": false}'
  echo '{"word": {"description": "Word to echo", "required": true, "value_type": "string"}}' >&2
  exit 0
fi
echo "PROGRESS 1 2 halfway" >&2
echo "INFO echoing $word" >&2
echo "PROGRESS 2 2 done" >&2
echo "$word" >> "$STATICMCP_PROJECT_ROOT/marker.log"
printf 'word=%s\\n' "$word"
`;

function pidOf(label: string): number | undefined {
  const file = path.join(project, `slow-${label}.pid`);
  const text = existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
  return text ? Number(text) : undefined;
}

beforeAll(async () => {
  example = buildFixtureProject('fixtures/example');
  project = await buildFixtureInProcess('bridge-project', (copy) =>
    // A live tool that reports its own progress (PROGRESS lines) and logs, for the SSE answers.
    writeFileSync(path.join(copy, 'tools', 'reporting'), REPORTING_SCRIPT, { mode: 0o755 }),
  );
  writeFileSync(path.join(project, 'marker.log'), '');
  [exampleServer, projectServer] = await Promise.all([HttpServe.start([example]), HttpServe.start([project])]);
  servers.push(exampleServer, projectServer);
});

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
});

describe('the SDK client over Streamable HTTP', () => {
  it('prints the endpoint and the site on stderr, nothing on stdout', () => {
    expect(exampleServer.stderr).toMatch(
      new RegExp(
        `^MCP endpoint: http://127\\.0\\.0\\.1:${exampleServer.port}/mcp\\nStatic site: http://127\\.0\\.0\\.1:${exampleServer.port}/\\n`,
      ),
    );
  });

  it('initializes, lists tools and answers a precomputed call', async () => {
    const { client, transport } = await connect(exampleServer);
    expect(client.getServerVersion()).toMatchObject({ name: 'example', version: '1.0.0' });
    expect(client.getServerCapabilities()).toMatchObject({ tools: {}, resources: {}, prompts: {}, completions: {} });
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('greet');
    expect(textOf(await client.callTool({ name: 'greet', arguments: { language: 'de' } }))).toBe('Hallo!\n');
    await client.close();
  });

  it('reads resources, gets prompts and completes arguments', async () => {
    const { client } = await connect(exampleServer);
    const guide = await client.readResource({ uri: 'resource://guide.md' });
    expect(guide.contents[0]).toMatchObject({ uri: 'resource://guide.md', mimeType: 'text/markdown' });
    const prompt = await client.getPrompt({ name: 'explain-product', arguments: { a: '6', b: '7' } });
    // The optional audience is left out with its section: no "to a  how" gap.
    expect(prompt.messages[0]?.content).toMatchObject({
      type: 'text',
      text: expect.stringMatching(/^Explain how to compute 6 times 7 by hand/),
    });
    const completion = await client.complete({
      ref: { type: 'ref/prompt', name: 'explain-product' },
      argument: { name: 'audience', value: 'st' },
    });
    expect(completion.completion.values).toEqual(['student']);
    await client.close();
  });

  it('walks every page of a long tool list', async () => {
    const tools = Array.from({ length: 250 }, (_, index) => ({
      name: `tool_${String(index).padStart(3, '0')}`,
      description: 'd',
      inputSchema: { type: 'object' },
    }));
    const tree = await writeTree({
      'mcp.json': {
        protocolVersion: '2025-06-18',
        serverInfo: { name: 'long', version: '1' },
        capabilities: { tools, resources: [] },
      },
    });
    const server = await HttpServe.start([tree]);
    servers.push(server);
    const { client } = await connect(server);
    const { names: seen, pages } = await listEveryTool(client);
    expect(pages).toBe(3);
    expect(seen).toEqual(tools.map((tool) => tool.name));
    await client.close();
  });

  it('runs a miss live and streams its progress and logs before the result', async () => {
    const { client } = await connect(projectServer);
    await client.setLoggingLevel('debug');
    const progress: number[] = [];
    const result = await client.callTool({ name: 'reporting', arguments: { word: 'gamma' } }, undefined, {
      onprogress: (event) => progress.push(event.progress),
    });
    expect(textOf(result)).toBe('word=gamma\n');
    expect(readFileSync(path.join(project, 'marker.log'), 'utf8')).toBe('gamma\n');
    expect(progress).toEqual([1, 2]);
    await client.close();
  });

  it('answers with an SSE stream exactly when the call has notifications to send', async () => {
    const session = await openSession(projectServer.port);
    const headers = { 'mcp-session-id': session, 'mcp-protocol-version': LATEST };
    const quiet = await post(
      projectServer.port,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'marked', arguments: { word: 'alpha' } } },
      headers,
    );
    expect(quiet.headers['content-type']).toBe('application/json');
    expect(quiet.json().result).toEqual({ content: [{ type: 'text', text: 'word=alpha\n' }] });
    const chatty = await post(
      projectServer.port,
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'reporting', arguments: { word: 'delta' }, _meta: { progressToken: 'p' } },
      },
      headers,
    );
    expect(chatty.headers['content-type']).toBe('text/event-stream');
    const messages = sseMessages(chatty.text);
    expect(messages[0]).toMatchObject({ method: 'notifications/progress', params: { progressToken: 'p' } });
    expect(messages.at(-1)).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: { content: [{ type: 'text', text: 'word=delta\n' }] },
    });
  });

  it('kills the live script when the client cancels the call', async () => {
    const { client } = await connect(projectServer);
    const abort = new AbortController();
    const call = client.callTool({ name: 'slow', arguments: { label: 'sdk-cancel' } }, undefined, {
      signal: abort.signal,
    });
    const pid = await waitUntil(() => pidOf('sdk-cancel'), 15_000, 'the slow script to start');
    expect(isAlive(pid)).toBe(true);
    abort.abort('user');
    await expect(call).rejects.toThrow();
    await waitUntil(() => !isAlive(pid), 10_000, 'the script to be killed');
    expect(textOf(await client.callTool({ name: 'marked', arguments: { word: 'beta' } }))).toBe('word=beta\n');
    await client.close();
  });

  it('kills the live script when the client closes the HTTP request', async () => {
    const session = await openSession(projectServer.port);
    const pending = post(
      projectServer.port,
      {
        jsonrpc: '2.0',
        id: 'gone',
        method: 'tools/call',
        params: { name: 'slow', arguments: { label: 'disconnect' } },
      },
      { 'mcp-session-id': session, 'mcp-protocol-version': LATEST },
      100,
    );
    const pid = await waitUntil(() => pidOf('disconnect'), 15_000, 'the slow script to start');
    await pending;
    await waitUntil(() => !isAlive(pid), 10_000, 'the script to be killed');
  });
});

describe('sessions', () => {
  it('issues an id on initialize, requires it after, and ends it on DELETE (then 404)', async () => {
    const { client, transport } = await connect(exampleServer);
    const id = transport.sessionId!;
    const headers = { 'mcp-protocol-version': LATEST };
    const without = await post(exampleServer.port, { jsonrpc: '2.0', id: 1, method: 'ping' }, headers);
    expect(without.status).toBe(400);
    expect(without.json().error?.message).toMatch(/Mcp-Session-Id/);
    const withId = await post(
      exampleServer.port,
      { jsonrpc: '2.0', id: 2, method: 'ping' },
      { ...headers, 'mcp-session-id': id },
    );
    expect(withId.json()).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    await transport.terminateSession();
    const after = await post(
      exampleServer.port,
      { jsonrpc: '2.0', id: 3, method: 'ping' },
      { ...headers, 'mcp-session-id': id },
    );
    expect(after.status).toBe(404);
    expect(after.json().error?.code).toBe(-32001);
    await client.close();
  });

  it('opens the server-to-client stream on GET', async () => {
    const id = await openSession(exampleServer.port);
    const stream = await rawRequest(exampleServer.port, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': id, 'mcp-protocol-version': LATEST },
      readMs: 300,
    });
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toBe('text/event-stream');
  });
});

describe('the tree at /', () => {
  // Read by serve <URL>'s own session in-process (InProcessBridge: the URL source serve opens);
  // serve <URL> as a process is test/bridge/host-fallbacks.test.ts's.
  it('is a URL source another staticmcp serve can answer from', async () => {
    const bridge = await InProcessBridge.open(`${exampleServer.base}/`);
    try {
      await bridge.initialize();
      const call = await bridge.request('tools/call', { name: 'greet', arguments: { language: 'fr' } });
      expect(call.result).toEqual({ content: [{ type: 'text', text: 'Bonjour !\n' }] });
      const read = await bridge.request('resources/read', { uri: 'resource://guide.md' });
      expect(JSON.stringify(read.result)).toContain('resource://guide.md');
    } finally {
      await bridge.close();
    }
  });
});

describe('stopping', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`exits 0 on ${signal} and kills the live scripts still running`, async () => {
      // The last test ends the server the tests above shared (no test after it uses it).
      const server = signal === 'SIGINT' ? projectServer : await HttpServe.start([project]);
      if (server !== projectServer) servers.push(server);
      const session = await openSession(server.port);
      const label = `stop-${signal}`;
      const pending = post(
        server.port,
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow', arguments: { label } } },
        { 'mcp-session-id': session, 'mcp-protocol-version': LATEST },
      ).catch(() => undefined);
      const pid = await waitUntil(() => pidOf(label), 15_000, 'the slow script to start');
      expect(await server.stop(signal)).toBe(0);
      await pending;
      await waitUntil(() => !isAlive(pid), 5_000, 'the script to be killed');
    });
  }
});

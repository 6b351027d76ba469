// What `serve --http` does with requests it must refuse (issue 9, "Bad input"): each answered with
// the status the spec asks for and a JSON-RPC error body without an id, nothing of the machine in
// it, and the server goes on serving everyone else. Also the command-line refusals (exit 2, never
// listening) and a client that sends its headers one byte at a time.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { HttpServe, LATEST, openSession, post, type RawAnswer, rawRequest } from '../helpers/http-serve.js';
import { buildFixtureProject } from '../helpers/projects.js';

let project: string;
let server: HttpServe;
let session: string;
const answers: RawAnswer[] = [];

function sessionHeaders(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return { 'mcp-session-id': session, 'mcp-protocol-version': LATEST, ...extra };
}

/** Keeps every answer, so the last test can check none of them shows the machine. */
function kept(answer: RawAnswer): RawAnswer {
  answers.push(answer);
  return answer;
}

function expectRpcError(answer: RawAnswer, status: number, code: number, message: RegExp): void {
  expect(answer.status).toBe(status);
  expect(answer.headers['content-type']).toBe('application/json');
  const body = answer.json();
  expect(body.jsonrpc).toBe('2.0');
  expect(body.id).toBeNull();
  expect(body.error?.code).toBe(code);
  expect(body.error?.message).toMatch(message);
}

beforeAll(async () => {
  project = buildFixtureProject('fixtures/example');
  server = await HttpServe.start([project]);
  session = await openSession(server.port);
});

afterAll(async () => {
  await server?.stop();
});

describe('refused requests', () => {
  it('malformed JSON → 400 with -32700', async () => {
    expectRpcError(
      kept(await post(server.port, '{"jsonrpc": "2.0", "id": 1, "method": ', sessionHeaders())),
      400,
      -32700,
      /Parse error/,
    );
  });

  it('bytes that are not UTF-8 → 400 with -32700', async () => {
    const body = Buffer.from([0x7b, 0xff, 0xfe, 0x7d]);
    expectRpcError(
      kept(
        await rawRequest(server.port, {
          method: 'POST',
          body,
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...sessionHeaders(),
          } as Record<string, string>,
        }),
      ),
      400,
      -32700,
      /Parse error/,
    );
  });

  it('a body that is not JSON by content type → 415', async () => {
    expectRpcError(
      kept(
        await post(
          server.port,
          { jsonrpc: '2.0', id: 1, method: 'ping' },
          sessionHeaders({ 'content-type': 'text/plain' }),
        ),
      ),
      415,
      -32000,
      /Unsupported Media Type/,
    );
    expectRpcError(
      kept(
        await post(
          server.port,
          { jsonrpc: '2.0', id: 1, method: 'ping' },
          sessionHeaders({ 'content-type': undefined }),
        ),
      ),
      415,
      -32000,
      /Unsupported Media Type/,
    );
  });

  it('a body over 4 MiB → 413, whether its length is announced or streamed', async () => {
    const big = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${'x'.repeat(4 * 1024 * 1024)}"}}`;
    expectRpcError(kept(await post(server.port, big, sessionHeaders())), 413, -32000, /Payload Too Large/);
    expectRpcError(
      kept(await post(server.port, big, sessionHeaders({ 'transfer-encoding': 'chunked' }))),
      413,
      -32000,
      /Payload Too Large/,
    );
  });

  it('an unknown session → 404 with -32001; no session → 400', async () => {
    expectRpcError(
      kept(
        await post(
          server.port,
          { jsonrpc: '2.0', id: 1, method: 'ping' },
          sessionHeaders({ 'mcp-session-id': 'not-a-session' }),
        ),
      ),
      404,
      -32001,
      /Session not found/,
    );
    expectRpcError(
      kept(
        await post(
          server.port,
          { jsonrpc: '2.0', id: 1, method: 'ping' },
          sessionHeaders({ 'mcp-session-id': undefined }),
        ),
      ),
      400,
      -32000,
      /Mcp-Session-Id/,
    );
    expectRpcError(
      kept(await rawRequest(server.port, { method: 'DELETE', headers: { 'mcp-session-id': 'not-a-session' } })),
      404,
      -32001,
      /Session not found/,
    );
  });

  it('a method /mcp does not answer → 405 with Allow', async () => {
    const answer = kept(
      await rawRequest(server.port, { method: 'PUT', body: '{}', headers: sessionHeaders() as Record<string, string> }),
    );
    expectRpcError(answer, 405, -32000, /Method Not Allowed/);
    expect(answer.headers.allow).toBe('GET, POST, DELETE');
  });

  it('a foreign Host → 403, on /mcp and on the site', async () => {
    expectRpcError(
      kept(
        await post(
          server.port,
          { jsonrpc: '2.0', id: 1, method: 'ping' },
          sessionHeaders({ host: `evil.example:${server.port}` }),
        ),
      ),
      403,
      -32000,
      /Host/,
    );
    expect((await rawRequest(server.port, { path: '/mcp.json', headers: { host: 'evil.example' } })).status).toBe(403);
  });

  it('a foreign Origin → 403; a page on this machine passes with CORS headers', async () => {
    expectRpcError(
      kept(
        await post(
          server.port,
          { jsonrpc: '2.0', id: 1, method: 'ping' },
          sessionHeaders({ origin: 'https://evil.example' }),
        ),
      ),
      403,
      -32000,
      /Origin/,
    );
    expectRpcError(
      kept(await post(server.port, { jsonrpc: '2.0', id: 1, method: 'ping' }, sessionHeaders({ origin: 'null' }))),
      403,
      -32000,
      /Origin/,
    );
    const local = await post(
      server.port,
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      sessionHeaders({ origin: 'http://localhost:6274' }),
    );
    expect(local.json()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    expect(local.headers['access-control-allow-origin']).toBe('http://localhost:6274');
    expect(local.headers['access-control-expose-headers']).toMatch(/mcp-session-id/);
    const preflight = await rawRequest(server.port, {
      method: 'OPTIONS',
      headers: { origin: 'http://127.0.0.1:3000', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('http://127.0.0.1:3000');
    expect(preflight.headers['access-control-allow-headers']).toMatch(/mcp-protocol-version/);
    expect(
      (await rawRequest(server.port, { method: 'OPTIONS', headers: { origin: 'https://evil.example' } })).status,
    ).toBe(403);
  });

  it('an unsupported MCP-Protocol-Version → 400; none means 2025-03-26', async () => {
    expectRpcError(
      kept(
        await post(
          server.port,
          { jsonrpc: '2.0', id: 1, method: 'ping' },
          sessionHeaders({ 'mcp-protocol-version': '1999-01-01' }),
        ),
      ),
      400,
      -32000,
      /MCP-Protocol-Version/,
    );
    const answer = await post(
      server.port,
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      sessionHeaders({ 'mcp-protocol-version': undefined }),
    );
    expect(answer.json()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  it('a client that accepts neither JSON nor SSE → 406', async () => {
    expectRpcError(
      kept(await post(server.port, { jsonrpc: '2.0', id: 1, method: 'ping' }, sessionHeaders({ accept: 'text/html' }))),
      406,
      -32000,
      /Not Acceptable/,
    );
    expectRpcError(
      kept(
        await rawRequest(server.port, {
          headers: { accept: 'application/json', ...sessionHeaders() } as Record<string, string>,
        }),
      ),
      406,
      -32000,
      /text\/event-stream/,
    );
  });

  it('batches only under 2025-03-26', async () => {
    const batch = [
      { jsonrpc: '2.0', id: 'a', method: 'ping' },
      { jsonrpc: '2.0', id: 'b', method: 'tools/call', params: { name: 'greet', arguments: { language: 'de' } } },
    ];
    expectRpcError(kept(await post(server.port, batch, sessionHeaders())), 400, -32600, /batches/);
    const old = await openSession(server.port, '2025-03-26');
    const answer = await post(server.port, batch, { 'mcp-session-id': old, 'mcp-protocol-version': '2025-03-26' });
    expect(answer.status).toBe(200);
    const responses = answer.json() as unknown as { id: string; result: unknown }[];
    expect(responses.map((response) => response.id).sort()).toEqual(['a', 'b']);
    expect(responses.find((response) => response.id === 'b')?.result).toEqual({
      content: [{ type: 'text', text: 'Hallo!\n' }],
    });
    expectRpcError(
      kept(await post(server.port, [{ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }])),
      400,
      -32600,
      /initialize/,
    );
  });

  it('notifications alone → 202 with no body; an invalid message alone → 400 with its error', async () => {
    const accepted = await post(server.port, { jsonrpc: '2.0', method: 'notifications/whatever' }, sessionHeaders());
    expect(accepted.status).toBe(202);
    expect(accepted.text).toBe('');
    const invalid = kept(await post(server.port, { jsonrpc: '1.0', method: 'ping' }, sessionHeaders()));
    expect(invalid.status).toBe(400);
    expect(invalid.json().error?.code).toBe(-32600);
  });

  it('never shows the machine (paths, stack traces) in an answer, and still serves', async () => {
    const miss = await post(
      server.port,
      { jsonrpc: '2.0', id: 9, method: 'resources/read', params: { uri: 'file:///etc/passwd' } },
      sessionHeaders(),
    );
    answers.push(miss);
    for (const answer of answers) {
      expect(answer.text).not.toContain(project);
      expect(answer.text).not.toMatch(/\bat .*\.js:\d+|\/tmp\/|node_modules/);
    }
    const ping = await post(server.port, { jsonrpc: '2.0', id: 10, method: 'ping' }, sessionHeaders());
    expect(ping.json()).toEqual({ jsonrpc: '2.0', id: 10, result: {} });
    expect(server.child.exitCode).toBeNull();
  });
});

describe('slow clients', () => {
  it('drops a client that sends its headers one byte at a time, while serving others', async () => {
    const started = Date.now();
    const socket = net.connect(server.port, '127.0.0.1');
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.on('error', () => {});
    let said = '';
    socket.on('data', (chunk: Buffer) => {
      said += chunk.toString('utf8');
    });
    const request = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nX-Slow: ${'a'.repeat(200)}`;
    let index = 0;
    const drip = setInterval(() => {
      if (index < request.length && !socket.destroyed) socket.write(request.charAt(index++));
    }, 200);
    const ping = await post(server.port, { jsonrpc: '2.0', id: 1, method: 'ping' }, sessionHeaders());
    expect(ping.status).toBe(200);
    await closed;
    clearInterval(drip);
    // Headers get 10 s (checked every second); the drip alone would take 40 s.
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(said).toMatch(/^HTTP\/1\.1 408 Request Timeout/);
  }, 30_000);
});

describe('command-line refusals', () => {
  it('refuses live scripts on a non-loopback address without --allow-remote-live', async () => {
    const result = await runCli(['serve', project, '--http', '--host', '0.0.0.0', '--port', '0'], {
      timeoutMs: 20_000,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/not a loopback address.*run them/);
    expect(result.stderr).toContain('--allow-remote-live');
    expect(result.stderr).not.toContain('MCP endpoint');
    expect(result.stdout).toBe('');
  });

  it('refuses HTTP options without --http, and a bad port', async () => {
    const stray = await runCli(['serve', project, '--port', '8080'], { timeoutMs: 20_000 });
    expect(stray.code).toBe(2);
    expect(stray.stderr).toMatch(/--port only applies with --http/);
    const badPort = await runCli(['serve', project, '--http', '--port', '70000'], { timeoutMs: 20_000 });
    expect(badPort.code).toBe(2);
    expect(badPort.stderr).toMatch(/--port 70000 is not a port number/);
    const noSessions = await runCli(['serve', project, '--http', '--client-sessions', '0'], { timeoutMs: 20_000 });
    expect(noSessions.code).toBe(2);
    expect(noSessions.stderr).toMatch(/--client-sessions 0 is not a whole number above 0/);
    const strayQuota = await runCli(['serve', project, '--client-live-runs', '2'], { timeoutMs: 20_000 });
    expect(strayQuota.code).toBe(2);
    expect(strayQuota.stderr).toMatch(/--client-live-runs only applies with --http/);
  });

  it('says so when the port is taken (exit 1)', async () => {
    const result = await runCli(['serve', project, '--http', '--port', String(server.port)], { timeoutMs: 20_000 });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`port ${server.port} on 127\\.0\\.0\\.1 is already in use`));
    // The hint is about the port: nothing is wrong with the tree.
    expect(result.stderr).toContain('pick another --port (0 picks a free one), or stop the program that holds it');
    expect(result.stderr).not.toContain('tree');
  });
});

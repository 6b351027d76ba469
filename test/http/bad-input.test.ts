// What the MCP endpoint does with requests it must refuse (issue 9, "Bad input"): the table in
// bad-input-cases.ts replayed through `serve --http` and the edge worker in workerd, each refusal
// answered with the status the spec asks for and a JSON-RPC error body, nothing of the machine in
// it, and the server going on serving everyone else. Also what only serve --http has: the static
// site's Host check, pages on this machine passing with CORS, 2025-03-26 batches, the command-line
// refusals (exit 2, never listening) and a client that sends its headers one byte at a time.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { HttpServe, LATEST, openSession, post, type RawAnswer, rawRequest } from '../helpers/http-serve.js';
import { runRefusedInProcess } from '../helpers/in-process-cli.js';
import { buildFixtureProject } from '../helpers/projects.js';
import { sharedHost } from '../helpers/shared-hosts.js';
import { BAD_INPUT_CASES, type BadInputCase, type ExpectedRefusal, PING } from './bad-input-cases.js';

let project: string;
let server: HttpServe;
/** The workerd the tier shares over the built example (test/shared-hosts.ts): never closed here. */
let site: { url: URL };
let session: string;
const answers: RawAnswer[] = [];

function sessionHeaders(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return { 'mcp-session-id': session, 'mcp-protocol-version': LATEST, ...extra };
}

beforeAll(async () => {
  project = buildFixtureProject('fixtures/example');
  server = await HttpServe.start([project]);
  session = await openSession(server.port);
  site = { url: await sharedHost('workerd') };
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

interface Host {
  name: string;
  port(): number;
  /** The headers every request carries unless its row removes them. */
  usualHeaders(): Record<string, string | undefined>;
  expectedOf(row: BadInputCase): ExpectedRefusal | 'not applicable';
}

const HOSTS: Host[] = [
  {
    name: 'serve --http',
    port: () => server.port,
    usualHeaders: () => sessionHeaders(),
    expectedOf: (row) => row.expected,
  },
  {
    name: 'the edge worker in workerd',
    port: () => Number(site.url.port),
    usualHeaders: () => ({ 'mcp-protocol-version': LATEST }),
    expectedOf: (row) => row.onWorker ?? row.expected,
  },
];

function send(host: Host, row: BadInputCase): Promise<RawAnswer> {
  const method = row.method ?? 'POST';
  return rawRequest(host.port(), {
    method,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...host.usualHeaders(),
      ...row.headers,
    },
    body: row.body ?? (method === 'POST' ? PING : undefined),
  });
}

function expectRefusal(answer: RawAnswer, expected: ExpectedRefusal): void {
  expect(answer.status).toBe(expected.status);
  expect(answer.headers['content-type']).toBe('application/json');
  const body = answer.json();
  expect(body.jsonrpc).toBe('2.0');
  expect(body.id).toBe(expected.id ?? null);
  expect(body.error?.code).toBe(expected.code);
  expect(body.error?.message).toMatch(expected.message);
  for (const [name, value] of Object.entries(expected.headers ?? {})) expect(answer.headers[name]).toBe(value);
}

for (const host of HOSTS) {
  describe(`${host.name} refuses`, () => {
    for (const row of BAD_INPUT_CASES) {
      const expected = host.expectedOf(row);
      if (expected === 'not applicable') continue;
      it(row.name, async () => {
        const answer = await send(host, row);
        answers.push(answer);
        expectRefusal(answer, expected);
      });
    }

    it('never shows the machine (paths, stack traces) in an answer, and still serves', async () => {
      const miss = await send(host, {
        name: 'a read outside the tree',
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 9,
          method: 'resources/read',
          params: { uri: 'file:///etc/passwd' },
        }),
        expected: { status: 200, code: 0, message: /./ },
      });
      answers.push(miss);
      for (const answer of answers) {
        expect(answer.text).not.toContain(project);
        expect(answer.text).not.toMatch(/\bat .*\.js:\d+|\/tmp\/|node_modules/);
      }
      const ping = await send(host, { name: 'ping', expected: { status: 200, code: 0, message: /./ } });
      expect(ping.json()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
      if (host.name === 'serve --http') expect(server.child.exitCode).toBeNull();
    });
  });
}

describe('what serve --http lets through', () => {
  it('serves its static site only to its own Host too', async () => {
    expect((await rawRequest(server.port, { path: '/mcp.json', headers: { host: 'evil.example' } })).status).toBe(403);
    expect((await rawRequest(server.port, { path: '/mcp.json' })).status).toBe(200);
  });

  it('lets a page on this machine call, with CORS headers, and answers its preflight', async () => {
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
  });

  it('takes a request without MCP-Protocol-Version as 2025-03-26', async () => {
    const answer = await post(
      server.port,
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      sessionHeaders({ 'mcp-protocol-version': undefined }),
    );
    expect(answer.json()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  it('answers batches under 2025-03-26', async () => {
    const batch = [
      { jsonrpc: '2.0', id: 'a', method: 'ping' },
      { jsonrpc: '2.0', id: 'b', method: 'tools/call', params: { name: 'greet', arguments: { language: 'de' } } },
    ];
    const old = await openSession(server.port, '2025-03-26');
    const answer = await post(server.port, batch, { 'mcp-session-id': old, 'mcp-protocol-version': '2025-03-26' });
    expect(answer.status).toBe(200);
    const responses = answer.json() as unknown as { id: string; result: unknown }[];
    expect(responses.map((response) => response.id).sort()).toEqual(['a', 'b']);
    expect(responses.find((response) => response.id === 'b')?.result).toEqual({
      content: [{ type: 'text', text: 'Hallo!\n' }],
    });
  });

  it('accepts notifications alone with 202 and no body', async () => {
    const accepted = await post(server.port, { jsonrpc: '2.0', method: 'notifications/whatever' }, sessionHeaders());
    expect(accepted.status).toBe(202);
    expect(accepted.text).toBe('');
  });
});

describe('slow clients', () => {
  it('drops a client that sends its headers one byte at a time, while serving others', async () => {
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
    // Headers get 10 s (checked every second); the drip alone would take 40 s. Counted in bytes
    // dripped, not in wall time: a busy machine slows the drip as much as the server's clock.
    expect(index).toBeLessThan(request.length);
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
    expect(stray.stdout).toBe('');
    // The other refusals in-process: the serve command the CLI runs for these lines
    // (serve-command-line.ts), refusing before it reads the tree or listens.
    const badPort = await runRefusedInProcess(['serve', project, '--http', '--port', '70000']);
    expect(badPort.code).toBe(2);
    expect(badPort.stderr).toMatch(/--port 70000 is not a port number/);
    const noSessions = await runRefusedInProcess(['serve', project, '--http', '--client-sessions', '0']);
    expect(noSessions.code).toBe(2);
    expect(noSessions.stderr).toMatch(/--client-sessions 0 is not a whole number above 0/);
    const strayQuota = await runRefusedInProcess(['serve', project, '--client-live-runs', '2']);
    expect(strayQuota.code).toBe(2);
    expect(strayQuota.stderr).toMatch(/--client-live-runs only applies with --http/);
    for (const refused of [badPort, noSessions, strayQuota]) expect(refused.stderr).not.toContain('MCP endpoint');
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

// The caps a long-running `serve --http` relies on, through the portable handler in-process with
// the real live runner: at most `maxSessions` sessions (the least recently used idle one makes
// room; none idle → 503), and at most `maxLiveRunsPerSession` live scripts at once per session
// (the next waits, and starts when a slot frees). Per client (the peer address the host hands in,
// plus the Origin): a client at its session quota ends only its own sessions (all busy → 429), and
// a full table ends a session of the address holding the most, not the least recently used one.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpHttpHandler, type McpHttpHandler } from '../../src/core/mcp/http/streamable-http.js';
import type { ServerContext } from '../../src/core/mcp/server-context.js';
import { createNodeServerContext } from '../../src/hosts/node/node-server-context.js';
import { FolderSource } from '../../src/hosts/node/folder-source.js';
import { LATEST } from '../helpers/http-serve.js';
import { isAlive, waitUntil } from '../helpers/processes.js';
import { buildFixtureInProcess } from '../helpers/in-process-build.js';

let project: string;
let context: ServerContext;
const handlers: McpHttpHandler[] = [];

beforeAll(async () => {
  project = await buildFixtureInProcess('bridge-project');
  context = await createNodeServerContext({
    source: new FolderSource(path.join(project, 'dist'), 'dist'),
    projectRoot: project,
    logProblem: () => {},
  });
});

afterAll(async () => {
  await Promise.all(handlers.map((handler) => handler.close()));
});

function open(options: {
  maxSessions?: number;
  maxLiveRunsPerSession?: number;
  maxSessionsPerClient?: number;
}): McpHttpHandler {
  const handler = createMcpHttpHandler({
    server: () => context,
    sessions: true,
    isAllowedOrigin: () => false,
    ...options,
  });
  handlers.push(handler);
  return handler;
}

function post(
  handler: McpHttpHandler,
  body: unknown,
  session?: string,
  signal?: AbortSignal,
  peerAddress = '127.0.0.1',
): Promise<Response> {
  return handler.handle(
    new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      body: JSON.stringify(body),
      signal,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': LATEST,
        ...(session ? { 'mcp-session-id': session } : {}),
      },
    }),
    { peerAddress },
  );
}

async function initialize(handler: McpHttpHandler, peerAddress?: string): Promise<Response> {
  return post(
    handler,
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: LATEST, capabilities: {}, clientInfo: { name: 't', version: '1' } },
    },
    undefined,
    undefined,
    peerAddress,
  );
}

const sessionOf = (response: Response): string => response.headers.get('mcp-session-id')!;
const ping = (handler: McpHttpHandler, session: string) =>
  post(handler, { jsonrpc: '2.0', id: 1, method: 'ping' }, session).then((answer) => answer.status);

function pidOf(label: string): number | undefined {
  const file = path.join(project, `slow-${label}.pid`);
  const text = existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
  return text ? Number(text) : undefined;
}

describe('session cap', () => {
  it('ends the least recently used idle session to make room, and refuses when none is idle', async () => {
    const handler = open({ maxSessions: 2 });
    const first = (await initialize(handler)).headers.get('mcp-session-id')!;
    const second = (await initialize(handler)).headers.get('mcp-session-id')!;
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await post(handler, { jsonrpc: '2.0', id: 1, method: 'ping' }, first)).status).toBe(200);
    const third = (await initialize(handler)).headers.get('mcp-session-id')!;
    // `second` was the least recently used.
    expect((await post(handler, { jsonrpc: '2.0', id: 2, method: 'ping' }, second)).status).toBe(404);
    expect((await post(handler, { jsonrpc: '2.0', id: 3, method: 'ping' }, first)).status).toBe(200);
    expect((await post(handler, { jsonrpc: '2.0', id: 4, method: 'ping' }, third)).status).toBe(200);

    // Both sessions busy with a live call: a new one is refused instead of breaking one.
    const aborts = [new AbortController(), new AbortController()];
    const calls = [first, third].map((session, index) =>
      post(
        handler,
        {
          jsonrpc: '2.0',
          id: 5,
          method: 'tools/call',
          params: { name: 'slow', arguments: { label: `busy-${index}` } },
        },
        session,
        aborts[index]?.signal,
      ),
    );
    await waitUntil(() => pidOf('busy-0') && pidOf('busy-1'), 15_000, 'both scripts to start');
    const refused = await initialize(handler);
    expect(refused.status).toBe(503);
    for (const abort of aborts) abort.abort();
    await Promise.all(calls);
    await waitUntil(() => !isAlive(pidOf('busy-0')!) && !isAlive(pidOf('busy-1')!), 10_000, 'the scripts to be killed');
  });
});

describe('live runs per session', () => {
  it('runs one script at a time in a session limited to 1; the next starts when the first ends', async () => {
    const handler = open({ maxLiveRunsPerSession: 1 });
    const session = (await initialize(handler)).headers.get('mcp-session-id')!;
    const firstAbort = new AbortController();
    const secondAbort = new AbortController();
    const first = post(
      handler,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow', arguments: { label: 'gate-1' } } },
      session,
      firstAbort.signal,
    );
    await waitUntil(() => pidOf('gate-1'), 15_000, 'the first script to start');
    const second = post(
      handler,
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'slow', arguments: { label: 'gate-2' } } },
      session,
      secondAbort.signal,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(pidOf('gate-2')).toBeUndefined();
    firstAbort.abort();
    await first;
    await waitUntil(() => pidOf('gate-2'), 15_000, 'the second script to start');
    secondAbort.abort();
    await second;
    await waitUntil(() => !isAlive(pidOf('gate-2')!), 10_000, 'the second script to be killed');
  });
});

describe('sessions per client', () => {
  it("ends a client's own oldest session at its quota, never another's, and answers 429 when all its are busy", async () => {
    const handler = open({ maxSessions: 10, maxSessionsPerClient: 2 });
    const other = sessionOf(await initialize(handler, '10.0.0.2'));
    const first = sessionOf(await initialize(handler, '10.0.0.1'));
    const second = sessionOf(await initialize(handler, '10.0.0.1'));
    const third = sessionOf(await initialize(handler, '10.0.0.1'));
    expect(await ping(handler, first)).toBe(404);
    expect(await ping(handler, other)).toBe(200);
    expect(await ping(handler, second)).toBe(200);

    // Both of its sessions busy with a live call: its next initialize is refused, another client's is not.
    const aborts = [new AbortController(), new AbortController()];
    const calls = [second, third].map((session, index) =>
      post(
        handler,
        {
          jsonrpc: '2.0',
          id: 5,
          method: 'tools/call',
          params: { name: 'slow', arguments: { label: `quota-${index}` } },
        },
        session,
        aborts[index]?.signal,
        '10.0.0.1',
      ),
    );
    await waitUntil(() => pidOf('quota-0') && pidOf('quota-1'), 15_000, 'both scripts to start');
    const refused = await initialize(handler, '10.0.0.1');
    expect(refused.status).toBe(429);
    expect(await refused.text()).toMatch(/this client already has 2 sessions/);
    expect((await initialize(handler, '10.0.0.2')).status).toBe(200);
    for (const abort of aborts) abort.abort();
    await Promise.all(calls);
    await waitUntil(
      () => !isAlive(pidOf('quota-0')!) && !isAlive(pidOf('quota-1')!),
      10_000,
      'the scripts to be killed',
    );
  });

  it('makes room in a full table from the address holding the most sessions, not the oldest session', async () => {
    const handler = open({ maxSessions: 4 });
    const lone = sessionOf(await initialize(handler, '10.0.0.9'));
    const crowd = [];
    for (let index = 0; index < 3; index++) crowd.push(sessionOf(await initialize(handler, '10.0.0.8')));
    // A new client: the table is full; the lone client's session is the least recently used, but
    // the crowd's address holds three.
    expect((await initialize(handler, '10.0.0.7')).status).toBe(200);
    expect(await ping(handler, lone)).toBe(200);
    expect(await ping(handler, crowd[0]!)).toBe(404);
  });
});

// Thousands of random and mutated requests against /mcp of a real `serve --http` (127.0.0.1
// only), bounded in time: the server never crashes, answers every request exactly once with a
// status the spec allows (never 500), every JSON answer is a JSON-RPC message, and afterwards it
// still serves a normal client. Seeded: a failure prints the seed to replay it (FUZZ_SEED=…).
import http from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { HttpServe, LATEST, openSession, post } from '../helpers/http-serve.js';
import { buildFixtureProject } from '../helpers/projects.js';
import { pick, random } from '../helpers/random.js';

const REQUESTS = 3_000;
const CONCURRENCY = 8;
const DEADLINE_MS = 60_000;
const ALLOWED_STATUSES = new Set([200, 202, 204, 400, 403, 404, 405, 406, 413, 415]);

let server: HttpServe;
let session: string;

beforeAll(async () => {
  const project = buildFixtureProject('fixtures/example');
  // The tree alone: no live scripts, so a random call cannot start a slow process.
  server = await HttpServe.start([`${project}/dist`]);
  session = await openSession(server.port);
});

afterAll(async () => {
  await server?.stop();
});

const SEEDS: unknown[] = [
  {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: LATEST, capabilities: {}, clientInfo: { name: 'f', version: '1' } },
  },
  { jsonrpc: '2.0', id: 2, method: 'ping' },
  { jsonrpc: '2.0', id: 3, method: 'tools/list', params: { cursor: 'x' } },
  {
    jsonrpc: '2.0',
    id: 4,
    method: 'tools/call',
    params: { name: 'greet', arguments: { language: 'de' }, _meta: { progressToken: 1 } },
  },
  { jsonrpc: '2.0', id: 5, method: 'resources/read', params: { uri: 'resource://guide.md' } },
  { jsonrpc: '2.0', id: 6, method: 'prompts/get', params: { name: 'explain-product', arguments: { a: '1', b: '2' } } },
  {
    jsonrpc: '2.0',
    id: 7,
    method: 'completion/complete',
    params: { ref: { type: 'ref/prompt', name: 'explain-product' }, argument: { name: 'audience', value: 's' } },
  },
  { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 4 } },
  { jsonrpc: '2.0', id: 8, result: {} },
  [
    { jsonrpc: '2.0', id: 9, method: 'ping' },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
  ],
];

function randomJson(next: () => number, depth = 0): unknown {
  const roll = next();
  if (depth > 6 || roll < 0.3)
    return pick(next, [
      null,
      true,
      false,
      0,
      -1,
      1e308,
      2 ** 53 + 1,
      '',
      'x'.repeat(Math.floor(next() * 5000)),
      '\u0000\ud800',
      '__proto__',
    ]);
  if (roll < 0.65) return Array.from({ length: Math.floor(next() * 5) }, () => randomJson(next, depth + 1));
  const object: Record<string, unknown> = {};
  for (let index = Math.floor(next() * 5); index > 0; index -= 1)
    object[pick(next, ['jsonrpc', 'id', 'method', 'params', 'result', 'error', 'constructor', 'k'])] = randomJson(
      next,
      depth + 1,
    );
  return object;
}

function mutate(next: () => number, text: string): Buffer {
  const bytes = Buffer.from(text);
  const roll = next();
  if (roll < 0.25) return bytes.subarray(0, Math.floor(next() * bytes.length));
  if (roll < 0.5) {
    const copy = Buffer.from(bytes);
    for (let flips = 1 + Math.floor(next() * 4); flips > 0; flips -= 1)
      copy[Math.floor(next() * copy.length)] = Math.floor(next() * 256);
    return copy;
  }
  if (roll < 0.6) return Buffer.from(`${'['.repeat(5000)}${']'.repeat(5000)}`);
  if (roll < 0.7) return Buffer.concat([bytes, bytes]);
  return bytes;
}

interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

function makeRequest(next: () => number): FuzzRequest {
  const seed = pick(next, SEEDS);
  const roll = next();
  const body =
    roll < 0.3
      ? Buffer.from(JSON.stringify(seed))
      : roll < 0.5
        ? Buffer.from(JSON.stringify(randomJson(next)))
        : mutate(next, JSON.stringify(seed));
  const headers: Record<string, string> = {
    host:
      next() < 0.95
        ? `127.0.0.1:${server.port}`
        : pick(next, ['evil.example', `localhost:${server.port}`, `[::1]:${server.port}`, 'x:1']),
  };
  const contentType = pick(next, [
    'application/json',
    'application/json',
    'application/json; charset=utf-8',
    'text/plain',
    'application/jsonx',
    '',
    undefined,
  ]);
  if (contentType !== undefined) headers['content-type'] = contentType;
  const accept = pick(next, [
    'application/json, text/event-stream',
    'application/json, text/event-stream',
    'application/json',
    'text/event-stream',
    '*/*',
    'text/html',
    undefined,
  ]);
  if (accept !== undefined) headers.accept = accept;
  const sessionId = pick(next, [session, session, session, 'nope', '', 'x'.repeat(300), undefined]);
  if (sessionId !== undefined) headers['mcp-session-id'] = sessionId;
  const version = pick(next, [LATEST, '2025-03-26', '2024-11-05', '2025-06-18', '1999-01-01', 'garbage', undefined]);
  if (version !== undefined) headers['mcp-protocol-version'] = version;
  const origin = pick(next, [
    undefined,
    undefined,
    undefined,
    'http://localhost:3000',
    'https://evil.example',
    'null',
    'not a url',
  ]);
  if (origin !== undefined) headers.origin = origin;
  const method = next() < 0.85 ? 'POST' : pick(next, ['GET', 'DELETE', 'PUT', 'OPTIONS', 'PATCH', 'HEAD']);
  return {
    method,
    path: next() < 0.95 ? '/mcp' : '/mcp?x=1',
    headers,
    body: method === 'GET' || method === 'HEAD' ? undefined : body,
  };
}

/** Resolves with the status of the one response (or throws when there was none); SSE streams are cut after their headers. */
function send(
  port: number,
  request: FuzzRequest,
): Promise<{ status: number; contentType: string; text: string; responses: number }> {
  return new Promise((resolve, reject) => {
    let responses = 0;
    const outgoing = http.request(
      {
        host: '127.0.0.1',
        port,
        method: request.method,
        path: request.path,
        headers: request.headers,
        setHost: false,
        agent: false,
      },
      (incoming) => {
        responses += 1;
        const contentType = String(incoming.headers['content-type'] ?? '');
        let text = '';
        if (contentType === 'text/event-stream') {
          incoming.destroy();
          resolve({ status: incoming.statusCode ?? 0, contentType, text, responses });
          return;
        }
        incoming.setEncoding('utf8');
        incoming.on('data', (chunk: string) => {
          text += chunk;
        });
        incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, contentType, text, responses }));
        incoming.on('error', () => resolve({ status: incoming.statusCode ?? 0, contentType, text, responses }));
      },
    );
    outgoing.on('error', (error) => reject(error));
    outgoing.end(request.body);
  });
}

it('survives thousands of random and mutated requests, answering each exactly once', async () => {
  const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);
  const next = random(seed);
  const started = Date.now();
  let sent = 0;
  const problems: string[] = [];
  async function worker(): Promise<void> {
    while (sent < REQUESTS && Date.now() - started < DEADLINE_MS && problems.length === 0) {
      sent += 1;
      const request = makeRequest(next);
      try {
        const answer = await send(server.port, request);
        if (answer.responses !== 1) problems.push(`${answer.responses} responses`);
        if (!ALLOWED_STATUSES.has(answer.status))
          problems.push(
            `status ${answer.status} for ${request.method} ${JSON.stringify(request.headers)} ${request.body?.toString('utf8').slice(0, 200)}: ${answer.text.slice(0, 300)}`,
          );
        if (answer.contentType === 'application/json' && request.method !== 'HEAD') {
          const parsed = JSON.parse(answer.text) as { jsonrpc?: unknown } | { jsonrpc?: unknown }[];
          for (const message of Array.isArray(parsed) ? parsed : [parsed])
            if (message.jsonrpc !== '2.0') problems.push(`not JSON-RPC: ${answer.text.slice(0, 200)}`);
        }
      } catch (error) {
        problems.push(`no answer to ${request.method} ${JSON.stringify(request.headers)}: ${(error as Error).message}`);
      }
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  expect(problems, `FUZZ_SEED=${seed}`).toEqual([]);
  expect(sent).toBeGreaterThanOrEqual(1_000);
  expect(server.child.exitCode).toBeNull();
  expect(server.stderr).not.toMatch(/failed|Error:|at .*\.js:\d+/);
  // Still a working server for a normal client.
  const ping = await post(
    server.port,
    { jsonrpc: '2.0', id: 'after', method: 'ping' },
    { 'mcp-session-id': await openSession(server.port), 'mcp-protocol-version': LATEST },
  );
  expect(ping.json()).toEqual({ jsonrpc: '2.0', id: 'after', result: {} });
}, 120_000);

// A named pipe where a tree has a file: reading it used to wait for a writer that never comes,
// synchronously, so one call to that tool froze `serve` (stdio) and `serve --http` for every
// client, and a GET of it on the static site held a thread-pool thread forever. Now the pipe is
// answered at once as unreadable (or, on the static site, missing), and other clients keep going.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  HttpServe,
  LATEST,
  openSession,
  post,
  type RawAnswer,
  rawRequest,
  sseMessages,
} from '../helpers/http-serve.js';
import { buildFixtureProject } from '../helpers/projects.js';
import { RawBridge } from '../helpers/raw-bridge.js';

/** The pipe's answer, and then a probe's, each within this (a frozen server answers neither, ever). */
const ANSWER_BOUND_MS = 5_000;

let tree: string;
let bridge: RawBridge | undefined;
let http: HttpServe | undefined;

beforeAll(() => {
  tree = path.join(buildFixtureProject('fixtures/example'), 'dist');
  const callFile = path.join(tree, 'tools', 'capital', 'japan.json');
  rmSync(callFile);
  execFileSync('mkfifo', [callFile]);
});

afterAll(async () => {
  // SIGKILL: a server frozen in a read (the old behaviour) never runs its SIGTERM handler.
  bridge?.child.kill('SIGKILL');
  http?.child.kill('SIGKILL');
});

function withinBound<T>(promise: Promise<T>, what: string): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_resolve, reject) =>
      setTimeout(() => reject(new Error(`${what}: no answer within ${ANSWER_BOUND_MS} ms`)), ANSWER_BOUND_MS),
    ),
  ]);
}

const callCapital = (country: string) => ({ name: 'capital', arguments: { country } });

describe('a named pipe in a served tree', () => {
  it('serve (stdio): the call answers at once that the file is not a regular file; the next call is answered', async () => {
    bridge = new RawBridge([tree]);
    await bridge.initialize();
    const piped = await withinBound(bridge.request('tools/call', callCapital('Japan')), 'the piped call');
    expect(JSON.stringify(piped.result ?? piped.error)).toMatch(/tools\/capital\/japan\.json is not a regular file/);
    const probe = await withinBound(bridge.request('tools/call', callCapital('France')), 'the probe');
    expect(JSON.stringify(probe.result)).toMatch(/Paris/);
  });

  it('serve --http: /mcp and the static site answer at once, and a probe is answered', async () => {
    http = await HttpServe.start([tree]);
    const port = http.port;
    const session = await openSession(port);
    const headers = { 'mcp-session-id': session, 'mcp-protocol-version': LATEST };
    const messageOf = (answer: RawAnswer): unknown =>
      answer.headers['content-type']?.startsWith('text/event-stream') ? sseMessages(answer.text)[0] : answer.json();

    const piped = await withinBound(
      post(port, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: callCapital('Japan') }, headers),
      'the piped call over /mcp',
    );
    expect(JSON.stringify(messageOf(piped))).toMatch(/tools\/capital\/japan\.json is not a regular file/);

    // More GETs of the pipe than libuv has threads (4): none may hold one.
    const gets = await withinBound(
      Promise.all(Array.from({ length: 6 }, () => rawRequest(port, { path: '/tools/capital/japan.json' }))),
      'GETs of the pipe',
    );
    expect(gets.map((answer) => answer.status)).toEqual([404, 404, 404, 404, 404, 404]);

    const probe = await withinBound(
      post(port, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: callCapital('France') }, headers),
      'the probe over /mcp',
    );
    expect(JSON.stringify(messageOf(probe))).toMatch(/Paris/);
    const page = await withinBound(rawRequest(port, { path: '/tools/capital/france.json' }), 'a static probe');
    expect(page.status).toBe(200);
  });
});

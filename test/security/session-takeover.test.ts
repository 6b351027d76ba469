// A flood cannot take the session table from a real client (issue 21, item 6): `serve --http`
// keeps 256 sessions, and before per-client quotas one client's 256 `initialize` requests ended
// every idle session of every other client (their next request got 404), and 256 held GET streams
// made every new client get 503. Both attacks run from one client (an allowed Origin; another
// loopback address as the peer) against the default caps, while a probe client keeps working.
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpServe, LATEST, openSession, post, rawRequest } from '../helpers/http-serve.js';
import { buildFixtureProject } from '../helpers/projects.js';
import { modernHeaders } from '../protocol-table/drivers.js';
import { MODERN_META } from '../protocol-table/modern-cases.js';

/** The table's default cap: the flood needs at least this many to fill it. */
const TABLE_SIZE = 256;
/** Requests the flooder keeps in flight at once. */
const FLOOD_PARALLEL = 16;
/**
 * "Answered, not blocked": a probe request may take this long while the flood runs (2 shared cores,
 * a full test suite beside it; a blocked server would not answer before the flood ends).
 */
const PROBE_BOUND_MS = 5_000;

let server: HttpServe | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

const initialize = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: LATEST, capabilities: {}, clientInfo: { name: 'flood', version: '1' } },
};

function ping(port: number, session: string) {
  return post(
    port,
    { jsonrpc: '2.0', id: 1, method: 'ping' },
    { 'mcp-session-id': session, 'mcp-protocol-version': LATEST },
  );
}

/** Runs `count` jobs, `FLOOD_PARALLEL` at a time. */
async function flood<T>(count: number, job: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: FLOOD_PARALLEL }, async () => {
      while (next < count) {
        const index = next++;
        results[index] = await job(index);
      }
    }),
  );
  return results;
}

/**
 * A probe timed while the flood runs: a 2026-07-28 tools/list (sessionless, so it does not touch the
 * victim's session, whose being idle is what the flood used to exploit), or a ping on `session`.
 */
async function probe(port: number, session?: string): Promise<{ status: number; ms: number }> {
  const startedAt = Date.now();
  const params = { _meta: MODERN_META };
  const answer = session
    ? await ping(port, session)
    : await post(port, { jsonrpc: '2.0', id: 2, method: 'tools/list', params }, modernHeaders('tools/list', params));
  return { status: answer.status, ms: Date.now() - startedAt };
}

/** Opens a GET stream on a session from `localAddress` and keeps it open until `close`. */
function holdStream(
  port: number,
  session: string,
  localAddress: string,
): Promise<{ status: number; close: () => void }> {
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'GET',
        path: '/mcp',
        localAddress,
        agent: false,
        headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': LATEST },
      },
      (incoming) => {
        incoming.resume();
        incoming.on('error', () => {});
        resolve({ status: incoming.statusCode ?? 0, close: () => outgoing.destroy() });
      },
    );
    outgoing.on('error', reject);
    outgoing.end();
  });
}

describe('session table under a flood from one client', () => {
  it('keeps the session of a client that initialized before 300 initialize requests from one Origin', async () => {
    server = await HttpServe.start([buildFixtureProject('fixtures/example')]);
    const port = server.port;
    // The real client: an agent on this machine (no Origin).
    const victim = await openSession(port);
    // The flood: a web page on an allowed Origin (any loopback page may call /mcp).
    const origin = `http://localhost:${port + 1}`;
    const probes: Promise<{ status: number; ms: number }>[] = [];
    const startedAt = Date.now();
    const answers = await flood(TABLE_SIZE + 44, async (index) => {
      if (index % 50 === 25) probes.push(probe(port));
      const answer = await post(port, initialize, { origin });
      return { status: answer.status, session: answer.headers['mcp-session-id'] as string | undefined };
    });
    const floodMs = Date.now() - startedAt;
    // The flooder is still served (its own oldest sessions make room for its new ones) …
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    expect((await ping(port, answers[0]!.session!)).status).toBe(404);
    expect((await ping(port, answers.at(-1)!.session!)).status).toBe(200);
    // … and never at the victim's expense: the server answered others during the flood, and the
    // victim, idle all along, still has its session after it.
    for (const { status, ms } of await Promise.all(probes)) {
      expect(status).toBe(200);
      expect(ms).toBeLessThan(PROBE_BOUND_MS);
    }
    expect((await ping(port, victim)).status, `flood took ${floodMs} ms`).toBe(200);
  });

  it('lets a new client in while another address holds a GET stream on 256 sessions', async () => {
    server = await HttpServe.start([buildFixtureProject('fixtures/example')]);
    const port = server.port;
    const victim = await openSession(port);
    const flooder = '127.0.0.2';
    const held = await flood(TABLE_SIZE, async () => {
      const answer = await rawRequest(port, {
        method: 'POST',
        localAddress: flooder,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(initialize),
      });
      const session = answer.headers['mcp-session-id'] as string | undefined;
      return session ? holdStream(port, session, flooder) : { status: answer.status, close: () => {} };
    });
    try {
      // The flooder got its streams (beyond its quota, each new session ended one of its own).
      expect(held.filter((stream) => stream.status === 200).length).toBeGreaterThanOrEqual(32);
      // A client arriving now gets a session (was 503: every session held a stream), and the
      // client that was there first is still answered.
      const newcomer = await post(port, initialize);
      expect(newcomer.status, newcomer.text).toBe(200);
      const { status, ms } = await probe(port, newcomer.headers['mcp-session-id'] as string);
      expect(status).toBe(200);
      expect(ms).toBeLessThan(PROBE_BOUND_MS);
      expect((await ping(port, victim)).status).toBe(200);
    } finally {
      for (const stream of held) stream.close();
    }
  });
});

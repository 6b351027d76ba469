// The edge worker reading a hostile or verbose origin (issue 37): the tree's `_worker.js` in
// workerd (miniflare) forwards a miss to an origin that answers one 12 MB line, 11 MB in 512-byte
// writes, endless log lines, or what `serve --origin` sends for a run that logged a 3 MiB line; each
// call ends in time while another client's precomputed calls go on (a real `serve --origin` answers
// the calls that need a script). A busy origin's absurd Retry-After reaches the
// client clamped, and a client cannot choose its per-client key through CF-Connecting-IP where no
// Cloudflare front vouches for it; the bounds come from the worker's bindings when set.
import { promises as fs } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import worker from '../../src/hosts/edge/worker.js';
import { runCli } from '../helpers/cli.js';
import { ECHO_SCRIPT, type OriginProcess, startOrigin } from '../helpers/live-origin.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { waitUntil } from '../helpers/processes.js';
import { removeTemporaryFolders, temporaryFolder } from '../helpers/temp-folders.js';
import { startWorkerdSitesOnPorts, type WorkerdSite } from './workerd-site.js';

const KEY = 'kkkkkkkkkkkkkkkk0123456789abcdef0123456789abcdef';
const EDGE_TIMEOUT_MS = 3_000;
/**
 * The deadline of the sites whose calls are not about it (the real origin's, and the healthy
 * origin's big log line): on a loaded machine a run at the origin, or a held answer while another
 * client's calls go on, outlasts 3 s. It stays below the test's own timeout, so a call left
 * hanging still fails here.
 */
const PATIENT_TIMEOUT_MS = 30_000;
const MIB = 1024 * 1024;
const FORGED_CALL_LABELS = ['elsewhere', 'netlify', 'cloudflare'] as const;

type Mode = 'one-line' | 'small-writes' | 'endless-logs' | 'big-log' | 'busy-absurd' | 'busy-date';
/** What `serve --origin` answers for a run that logged one 3 MiB line and printed "ok". */
const BIG_LOG_ANSWER = [
  JSON.stringify({ log: { level: 'info', message: 'x'.repeat(3 * MIB) } }),
  JSON.stringify({ outcome: { run: { exitCode: 0, failed: false, message: '', stdout: 'b2sK', stderr: '' } } }),
  '',
].join('\n');
let mode: Mode = 'one-line';
/**
 * The fake origin stops at a point of its answer until the test lets it go on: the test asks the
 * other client there, so "answered while the edge holds the hostile answer" is an order of events,
 * not a race with the machine's load.
 */
let hold: { reached: () => void; released: Promise<void> } | undefined;
let origin: OriginProcess;
let fake: http.Server;
let site: WorkerdSite;
let fakeSite: WorkerdSite;
/** The fake origin behind the patient deadline. */
let patientFakeSite: WorkerdSite;
let tree: string;

/** Waits at the test's hold (once per answer), if one is set. */
async function waitAtHold(): Promise<void> {
  const reached = hold;
  hold = undefined;
  reached?.reached();
  await reached?.released;
}

/**
 * Writes `piece` until `total` bytes are out (or forever), as fast as the connection drains,
 * stopping at the test's hold once `holdAtBytes` are out.
 */
function writeRepeatedly(response: http.ServerResponse, piece: string, total: number, holdAtBytes: number): void {
  let sent = 0;
  let held = false;
  const more = (): void => {
    while (sent < total && !response.destroyed) {
      if (!held && sent >= holdAtBytes) {
        held = true;
        return void waitAtHold().then(more);
      }
      sent += piece.length;
      if (!response.write(piece)) return void response.once('drain', more);
    }
  };
  response.on('close', () => {
    sent = total;
  });
  more();
}

async function buildTree(project: string, liveOrigin: string, out: string, timeoutMs: number): Promise<void> {
  await fs.writeFile(
    path.join(project, 'staticmcp.json'),
    JSON.stringify({ name: 'edge-stream', liveOrigin, limits: { originTimeoutMs: timeoutMs } }),
  );
  const build = await runCli(['build', project, '--out', out]);
  expect(build.code, build.stderr).toBe(0);
}

async function connect(target: WorkerdSite): Promise<Client> {
  const client = new Client({ name: 'edge-stream-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('mcp', target.url)));
  return client;
}

function textOf(result: unknown): string {
  return ((result as { content: { text: string }[] }).content ?? []).map((item) => item.text).join('');
}

/**
 * Calls `name` on `target`; once the fake origin is at its hold, a second client calls the
 * precomputed greet, then the origin goes on while the second client keeps calling until the call
 * ends. Resolves with the call's result, how long it took, and whether the greeting at the hold
 * came back before the call ended (a stalled edge answers it only after the call's deadline).
 */
async function callWhileAnotherWaits(
  target: WorkerdSite,
  name: string,
): Promise<{ result: unknown; tookMs: number; answeredWhileHeld: boolean; otherCalls: number }> {
  const [caller, other] = await Promise.all([connect(target), connect(target)]);
  let release = (): void => {};
  const reached = new Promise<void>((resolve) => {
    hold = { reached: resolve, released: new Promise<void>((go) => (release = go)) };
  });
  try {
    let ended = false;
    const startedAt = Date.now();
    const call = caller.callTool({ name, arguments: { text: 'a' } }).finally(() => {
      ended = true;
    });
    await Promise.race([reached, call]);
    const greet = async (): Promise<void> => {
      const greeting = await other.callTool({ name: 'greet', arguments: { language: 'fr' } });
      expect(textOf(greeting)).toContain('Bonjour');
    };
    await greet();
    const answeredWhileHeld = !ended;
    release();
    let otherCalls = 1;
    while (!ended) {
      await greet();
      otherCalls += 1;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const result = await call;
    return { result, tookMs: Date.now() - startedAt, answeredWhileHeld, otherCalls };
  } finally {
    hold = undefined;
    release();
    await Promise.all([caller.close(), other.close()]);
  }
}

beforeAll(async () => {
  const project = path.join(await temporaryFolder(), 'project');
  await fs.mkdir(path.join(project, 'tools'), { recursive: true });
  await fs.copyFile(
    path.join(REPO_ROOT, 'fixtures', 'example', 'tools', 'greet'),
    path.join(project, 'tools', 'greet'),
  );
  await fs.writeFile(path.join(project, 'tools', 'echo'), ECHO_SCRIPT, { mode: 0o755 });
  // One tool per forged call, so the origin's log line names the run it is about.
  for (const label of FORGED_CALL_LABELS)
    await fs.writeFile(path.join(project, 'tools', `keyed-${label}`), ECHO_SCRIPT, { mode: 0o755 });
  origin = await startOrigin(project, { STATICMCP_ORIGIN_KEY: KEY });
  fake = http.createServer((request, response) => {
    request.resume();
    if (mode === 'busy-absurd' || mode === 'busy-date') {
      response.writeHead(503, {
        'content-type': 'application/json',
        'retry-after': mode === 'busy-absurd' ? '100000000000000000000' : 'Wed, 21 Oct 2099 07:28:00 GMT',
      });
      return void response.end('{"error":"busy"}');
    }
    response.writeHead(200, { 'content-type': 'application/x-ndjson' });
    // The 3 MiB log line, then the hold, then the outcome.
    if (mode === 'big-log') {
      const logEnd = BIG_LOG_ANSWER.indexOf('\n') + 1;
      response.write(BIG_LOG_ANSWER.slice(0, logEnd), () =>
        waitAtHold().then(() => response.end(BIG_LOG_ANSWER.slice(logEnd))),
      );
      return;
    }
    // Each other answer holds its connection open afterwards: only the edge's own bounds end the
    // call. Each holds after its first MB (or quarter of the line bound): well before a bound.
    if (mode === 'one-line') writeRepeatedly(response, 'x'.repeat(64 * 1024), 12 * 1000 * 1000, MIB);
    else if (mode === 'small-writes') writeRepeatedly(response, 'y'.repeat(512), 11 * 1000 * 1000, MIB);
    else {
      const lines = `${JSON.stringify({ log: { level: 'debug', message: 'tick' } })}\n`.repeat(200);
      writeRepeatedly(response, lines, Infinity, lines.length * 12);
    }
  });
  await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
  // The origin runs only what the project's own built tree (its default output, dist/) declares.
  tree = path.join(project, 'dist');
  await buildTree(project, origin.url, tree, PATIENT_TIMEOUT_MS);
  const fakeUrl = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
  const fakeTree = path.join(await temporaryFolder(), 'fake-tree');
  await buildTree(project, fakeUrl, fakeTree, EDGE_TIMEOUT_MS);
  const patientFakeTree = path.join(await temporaryFolder(), 'patient-fake-tree');
  await buildTree(project, fakeUrl, patientFakeTree, PATIENT_TIMEOUT_MS);
  // One workerd for all; `site` first, through miniflare's front (its requests carry request.cf).
  [site, fakeSite, patientFakeSite] = await startWorkerdSitesOnPorts([
    { treeDir: tree, bindings: { STATICMCP_ORIGIN_KEY: KEY } },
    { treeDir: fakeTree, bindings: { STATICMCP_ORIGIN_KEY: KEY } },
    { treeDir: patientFakeTree, bindings: { STATICMCP_ORIGIN_KEY: KEY } },
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([site?.close(), fakeSite?.close(), patientFakeSite?.close()]);
  origin?.child.kill('SIGTERM');
  fake?.closeAllConnections();
  fake?.close();
  await removeTemporaryFolders();
});

describe('the edge reading an origin answer', () => {
  // An origin on a busy machine may send less than the cap before the deadline: then the
  // deadline ends the call (origin-line-splitter.test.ts holds each bound exactly). The log lines
  // are debug, which a client does not hear unless it asks: the bound on lines ends that call,
  // not the cost of relaying each line.
  it.each([
    [
      'one 12 MB line without a newline',
      'one-line',
      /answered with a line longer than the 10 MB|did not answer within 3000 ms/,
    ],
    [
      '11 MB in 512-byte writes',
      'small-writes',
      /answered with a line longer than the 10 MB|did not answer within 3000 ms/,
    ],
    ['endless small log lines', 'endless-logs', /answered with more than the 10000 lines the edge accepts of one run/],
  ] as const)(
    'ends a call whose origin answers %s in time, while another client is answered',
    async (_, next, message) => {
      mode = next;
      const { result, tookMs, answeredWhileHeld, otherCalls } = await callWhileAnotherWaits(fakeSite, 'echo');
      expect((result as { isError?: boolean }).isError).toBe(true);
      expect(textOf(result)).toMatch(message);
      expect(textOf(result)).toMatch(/the site's owner/);
      // Ten times the deadline: only an edge that never ends the call fails this.
      expect(tookMs).toBeLessThan(EDGE_TIMEOUT_MS * 10);
      expect(answeredWhileHeld).toBe(true);
      expect(otherCalls).toBeGreaterThan(0);
    },
  );

  it("passes a healthy origin's 3 MiB log line on, and its outcome, without stalling another client", async () => {
    mode = 'big-log';
    const { result, answeredWhileHeld } = await callWhileAnotherWaits(patientFakeSite, 'echo');
    // The outcome, not the edge's deadline, ended the call.
    expect((result as { isError?: boolean }).isError).toBeFalsy();
    expect(textOf(result)).toBe('ok\n');
    expect(answeredWhileHeld).toBe(true);
  });

  it.each([
    ['an absurd Retry-After clamped', 'busy-absurd', /is busy; try again in 3600 s/],
    ['a Retry-After date as "shortly"', 'busy-date', /is busy; try again shortly/],
  ] as const)("passes a busy origin's %s", async (_, next, message) => {
    mode = next;
    const client = await connect(fakeSite);
    const result = await client.callTool({ name: 'echo', arguments: { text: 'a' } });
    await client.close();
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(message);
  });
});

/** The tree's files for the worker run in this process (a host that is not Cloudflare). */
function treeFiles(): { fetch: (request: Request) => Promise<Response> } {
  return {
    fetch: async (request) => {
      const relative = decodeURIComponent(new URL(request.url).pathname).replace(/^\/+/, '');
      try {
        return new Response(await fs.readFile(path.join(tree, relative)));
      } catch {
        return new Response('not found', { status: 404 });
      }
    },
  };
}

/** One echo call through the worker run in this process with `bindings`; resolves with its text. */
async function echoThroughWorker(bindings: Record<string, string>): Promise<string> {
  const answer = await worker.fetch(
    new Request('http://edge.test/mcp', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: 'bound' } },
      }),
    }),
    { ASSETS: treeFiles(), STATICMCP_ORIGIN_KEY: KEY, ...bindings },
  );
  return answer.text();
}

describe("the worker's bounds on an origin answer", () => {
  it('takes them from its bindings, and says what is wrong with one that is not a number', async () => {
    const before = origin.log().length;
    // The origin's answer to echo is two lines: the script's log line, then the outcome.
    expect(await echoThroughWorker({ STATICMCP_ORIGIN_MAX_LINES: '2' })).toContain('echo: bound');
    expect(await echoThroughWorker({ STATICMCP_ORIGIN_MAX_LINES: '1' })).toMatch(
      /more than the 1 lines the edge accepts of one run; .*raises the worker's STATICMCP_ORIGIN_MAX_LINES/,
    );
    expect(await echoThroughWorker({ STATICMCP_ORIGIN_MAX_LINE_BYTES: '20' })).toMatch(
      /a line longer than the 20 bytes the edge accepts/,
    );
    expect(await echoThroughWorker({ STATICMCP_ORIGIN_MAX_ANSWER_BYTES: 'lots' })).toMatch(
      /the worker's STATICMCP_ORIGIN_MAX_ANSWER_BYTES=\\"lots\\" is not a whole number above 0; the site's owner fixes or unsets it/,
    );
    // Three runs reached the origin (not the last); their log lines are in before the next test's.
    await waitUntil(
      () =>
        (
          origin
            .log()
            .slice(before)
            .match(/live run of echo/g) ?? []
        ).length >= 3 || undefined,
      5_000,
      'the origin to log the runs',
    );
  });
});

describe('the client key the origin limits by', () => {
  /**
   * One call of `keyed-<label>` (an echo) through `fetchMcp` with a forged CF-Connecting-IP; resolves
   * with the key the origin logged for that run. The tool's name, not the log's order, picks the
   * line: a late line of an earlier run must not be taken for this one's.
   */
  async function keyOfForgedCall(
    fetchMcp: (request: Request) => Promise<Response>,
    label: (typeof FORGED_CALL_LABELS)[number],
    endpoint = 'http://edge.test/mcp',
  ): Promise<string> {
    const answer = await fetchMcp(
      new Request(endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
          'cf-connecting-ip': '198.51.100.7',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: `keyed-${label}`, arguments: { text: label } },
        }),
      }),
    );
    expect(await answer.text()).toContain(`echo: ${label}`);
    const line = new RegExp(`live run of keyed-${label} for client (\\S+):`);
    const logged = await waitUntil(() => line.exec(origin.log())?.[1], 5_000, 'the origin to log the run');
    return logged;
  }

  it('ignores a CF-Connecting-IP no Cloudflare front vouches for: every such client shares one key', async () => {
    // The worker on a host that is not Cloudflare (no request.cf, no Netlify context).
    const env = { ASSETS: treeFiles(), STATICMCP_ORIGIN_KEY: KEY };
    expect(await keyOfForgedCall((request) => worker.fetch(request, env), 'elsewhere')).toBe('unknown');
    // Netlify's context is what vouches there.
    expect(await keyOfForgedCall((request) => worker.fetch(request, env, { ip: '203.0.113.9' }), 'netlify')).toBe(
      '203.0.113.9',
    );
  });

  it("keys on CF-Connecting-IP where the request carries Cloudflare's request.cf (workerd behind miniflare)", async () => {
    const key = await keyOfForgedCall((request) => fetch(request), 'cloudflare', new URL('mcp', site.url).href);
    expect(key).toBe('198.51.100.7');
  });
});

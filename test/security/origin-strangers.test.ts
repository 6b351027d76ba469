// `serve --origin` spends nothing on strangers (issue 37): a real origin process, attacked over raw
// sockets. Unsigned requests are answered 401 before their body is read and their connections
// closed, 100 of them stalling after 4 MiB − 16 announced bytes cost little memory and are all gone
// at once, a body or headers dripped a byte a second are dropped at their (short, configured)
// deadline, refusals are logged as one count per interval, and a signed request runs only what the
// built tree declares, its timeout clamped to the configured one.
import { promises as fs } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { buildTreeInProcess } from '../helpers/in-process-build.js';
import {
  ECHO_SCRIPT,
  type OriginProcess,
  postSignedRun,
  residentBytesOf,
  startOrigin,
} from '../helpers/live-origin.js';
import { removeTemporaryFolders, temporaryFolder } from '../helpers/temp-folders.js';

const KEY = 'stranger-test-key-0123456789abcdef0123456789';
const BODY_TIMEOUT_MS = 1500;
const HEADERS_TIMEOUT_MS = 1500;
const TOOL_TIMEOUT_MS = 1500;
const ANNOUNCED_BYTES = 4 * 1024 * 1024 - 16;

const SLEEPY = `#!/bin/sh
if [ "$1" = "--help" ]; then
  echo '{"description": "Takes its time"}'
  echo '{"text": {"description": "Anything", "required": true, "value_type": "string"}}' >&2
  exit 0
fi
sleep 20
`;

/** A tool declared `state: true`: its `--state` run is the state resource. */
const GAUGE = `#!/bin/sh
if [ "$1" = "--help" ]; then
  echo '{"description": "A gauge", "state": true}'
  echo '{"by": {"description": "Step", "required": true, "value_type": "string"}}' >&2
  exit 0
fi
if [ "$1" = "--state" ]; then echo '{"level": 7}'; exit 0; fi
echo moved
`;

let project: string;
let origin: OriginProcess;

beforeAll(async () => {
  project = path.join(await temporaryFolder(), 'project');
  await fs.mkdir(path.join(project, 'tools'), { recursive: true });
  await fs.mkdir(path.join(project, 'providers'));
  await fs.writeFile(path.join(project, 'tools', 'echo'), ECHO_SCRIPT, { mode: 0o755 });
  await fs.writeFile(path.join(project, 'tools', 'sleepy'), SLEEPY, { mode: 0o755 });
  await fs.writeFile(path.join(project, 'tools', 'gauge'), GAUGE, { mode: 0o755 });
  // An executable of the project that the tree declares as nothing: it must never run.
  await fs.writeFile(path.join(project, 'providers', 'file'), `#!/bin/sh\ntouch "${project}/ran"\necho ran\n`, {
    mode: 0o755,
  });
  await fs.writeFile(
    path.join(project, 'staticmcp.json'),
    JSON.stringify({ name: 'strangers', limits: { timeoutMs: TOOL_TIMEOUT_MS } }),
  );
  // Built in-process (the build command's decision): the origin process is what is under test.
  await buildTreeInProcess(project);
  origin = await startOrigin(project, {
    STATICMCP_ORIGIN_KEY: KEY,
    STATICMCP_ORIGIN_BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS),
    STATICMCP_ORIGIN_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
    STATICMCP_ORIGIN_REFUSED_LOG_MS: '1000',
  });
}, 60_000);

afterAll(async () => {
  origin?.child.kill('SIGTERM');
  await removeTemporaryFolders();
});

/** A raw connection to the origin: what it answered, and when it was closed (ms after opening). */
interface RawPeer {
  socket: net.Socket;
  answer: () => string;
  closed: Promise<number>;
}

function openPeer(head: string, firstBytes = ''): RawPeer {
  const { port } = new URL(origin.url);
  const openedAt = Date.now();
  const socket = net.connect(Number(port), '127.0.0.1');
  let text = '';
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('latin1');
  });
  socket.on('error', () => {});
  const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now() - openedAt)));
  socket.write(head + firstBytes);
  return { socket, answer: () => text, closed };
}

function requestHead(headers: Record<string, string>, contentLength = ANNOUNCED_BYTES): string {
  const lines = Object.entries({ host: 'origin', 'content-length': String(contentLength), ...headers }).map(
    ([name, value]) => `${name}: ${value}`,
  );
  return `POST /live-run HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`;
}

/** Signature headers that look right and are fresh, but sign nothing: the best a stranger can do. */
function forgedHeaders(): Record<string, string> {
  return {
    'x-staticmcp-timestamp': String(Math.floor(Date.now() / 1000)),
    'x-staticmcp-nonce': crypto.randomUUID().replaceAll('-', ''),
    'x-staticmcp-client': 'stranger',
    'x-staticmcp-signature': `v1=${'ab'.repeat(32)}`,
  };
}

describe('a stranger at the origin', () => {
  it('gets 401 before its body is read, and its connection closed', async () => {
    const peer = openPeer(requestHead({}), 'x'.repeat(100));
    const closedAfterMs = await peer.closed;
    expect(peer.answer()).toMatch(/^HTTP\/1\.1 401/);
    expect(peer.answer()).toMatch(/only requests signed by its edge worker/);
    // The 401 (not the body deadline's 408) shows the body was not waited for; the close comes
    // within ten times that deadline, however busy the machine.
    expect(closedAfterMs).toBeLessThan(BODY_TIMEOUT_MS * 10);
  });

  it('holds 100 unsigned connections that announce 4 MiB − 16 bytes and stall for little memory, and drops them all', async () => {
    const before = await residentBytesOf(origin.child.pid!);
    let peakBytes = before;
    const sampler = setInterval(async () => {
      peakBytes = Math.max(peakBytes, await residentBytesOf(origin.child.pid!));
    }, 50);
    const peers = Array.from({ length: 100 }, () => openPeer(requestHead({}), 'x'.repeat(64)));
    const closedAfterMs = await Promise.all(peers.map((peer) => peer.closed));
    clearInterval(sampler);
    expect(Math.max(...closedAfterMs)).toBeLessThan(20_000);
    expect(peakBytes - before).toBeLessThan(100 * 1024 * 1024);
    expect(peers.filter((peer) => /^HTTP\/1\.1 401/.test(peer.answer())).length).toBeGreaterThan(0);
  });

  it('drops a well-formed but unsigned body dripped a byte a second at the body deadline', async () => {
    const peer = openPeer(requestHead(forgedHeaders(), 1000));
    const drip = setInterval(() => peer.socket.write('x'), 1000);
    const closedAfterMs = await peer.closed;
    clearInterval(drip);
    // Not before the deadline; after it, within ten times it (a busy machine stretches the rest).
    expect(closedAfterMs).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS - 100);
    expect(closedAfterMs).toBeLessThan(BODY_TIMEOUT_MS * 10);
    expect(peer.answer()).toMatch(/^HTTP\/1\.1 408/);
  });

  it('drops headers dripped a byte a second at the headers deadline', async () => {
    const peer = openPeer('POST /live-run HTTP/1.1\r\n');
    const drip = setInterval(() => peer.socket.write('x'), 1000);
    const closedAfterMs = await peer.closed;
    clearInterval(drip);
    // Node checks the headers deadline about once a second: twenty times the deadline is over ten
    // times what that takes on a quiet machine.
    expect(closedAfterMs).toBeLessThan(HEADERS_TIMEOUT_MS * 20);
  });

  it('logs refusals as one count per interval, not one line each', async () => {
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const lines = origin.log().split('\n');
    const counts = lines.filter((line) =>
      /^staticmcp serve --origin: refused [\d,]+ requests? in the last 1 s \(/.test(line),
    );
    expect(counts.length).toBeGreaterThan(0);
    const total = counts.reduce((sum, line) => sum + Number(/refused ([\d,]+)/.exec(line)![1]!.replace(',', '')), 0);
    expect(total).toBeGreaterThanOrEqual(100);
    expect(lines.filter((line) => /refused/.test(line)).length).toBe(counts.length);
    expect(counts.join('\n')).toMatch(/unsigned/);
  });
});

it('refuses to start with a limit that is not a whole number, naming the variable', async () => {
  const started = await runCli(['serve', project, '--origin', '--port', '0'], {
    env: { STATICMCP_ORIGIN_KEY: KEY, STATICMCP_ORIGIN_BODY_TIMEOUT_MS: '10s' },
    timeoutMs: 10_000,
  });
  expect(started.code).toBe(2);
  expect(started.stderr).toMatch(/STATICMCP_ORIGIN_BODY_TIMEOUT_MS="10s" is not a whole number/);
});

describe('a signed request at the origin', () => {
  it('runs a declared tool', async () => {
    const response = await postSignedRun(origin.url, KEY, {
      scriptPath: 'tools/echo',
      phase: 'live',
      toolName: 'echo',
      args: { text: 'hi' },
      declaredOptions: ['text'],
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain(Buffer.from('echo: hi\n').toString('base64'));
  });

  it('runs the --state of a tool declared state: true', async () => {
    const response = await postSignedRun(origin.url, KEY, { scriptPath: 'tools/gauge', phase: 'state' });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain(Buffer.from('{"level": 7}\n').toString('base64'));
  });

  it.each([
    [
      'an executable the tree does not declare',
      { scriptPath: 'providers/file', phase: 'live', toolName: 'file' },
      /providers\/file.*no such tool/,
    ],
    [
      'it as a provider',
      { scriptPath: 'providers/file', phase: 'live' },
      /providers\/file.*no tool, template provider or completion provider/,
    ],
    [
      'a tool under another script',
      { scriptPath: 'providers/file', phase: 'live', toolName: 'echo' },
      /runs that tool with tools\/echo/,
    ],
    [
      '--state of a plain tool',
      { scriptPath: 'tools/echo', phase: 'state' },
      /state run of tools\/echo.*no state resource/,
    ],
  ])('refuses %s with 400 naming it', async (_what, run, message) => {
    const response = await postSignedRun(origin.url, KEY, run);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toMatch(message);
    await expect(fs.access(path.join(project, 'ran'))).rejects.toThrow();
  });

  it('clamps a huge timeoutMs to the configured one', async () => {
    const startedAt = Date.now();
    const response = await postSignedRun(origin.url, KEY, {
      scriptPath: 'tools/sleepy',
      phase: 'live',
      toolName: 'sleepy',
      args: { text: 'a' },
      timeoutMs: 2 ** 31,
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    // Ten times the configured limit, still before the script's own end: only a run the clamp did
    // not end fails this; the message names the limit.
    expect(Date.now() - startedAt).toBeLessThan(TOOL_TIMEOUT_MS * 10);
    expect(text).toMatch(/"failed":true/);
    expect(text).toMatch(new RegExp(`${TOOL_TIMEOUT_MS}`));
  });
});

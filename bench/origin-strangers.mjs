// What strangers cost `staticmcp serve --origin` (issue 37), measured on this machine: 150
// connections that announce a 4 MiB body, send all of it but its last 16 bytes, and stall, from
// another loopback address (127.0.0.2, as an attacker is another peer than the edge). Two kinds:
// unsigned (no signature headers), and forged (well-formed, fresh signature headers that sign
// nothing: the best a stranger without the key can do). For each: the origin's peak RSS above its
// rest, when the connections were dropped, and a signed call's latency meanwhile, against the
// same call with no attack in the same run.
// Run: npm run build && node bench/origin-strangers.mjs
//   (STATICMCP_CLI=<other>/dist/cli/main.js measures another build, e.g. before the change).
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { signOriginRequest } from '../dist/core/origin/origin-signature.js';
import { cliPath, median, tempDir } from './lib/common.mjs';

const CONNECTIONS = Number(process.env.CONNECTIONS ?? 150);
const CALLS = Number(process.env.CALLS ?? 20);
/** How long to wait for the attack's connections to be dropped before counting them as held. */
const WAIT_MS = Number(process.env.WAIT_MS ?? 70_000);
const ATTACKER_ADDRESS = process.env.ATTACKER_ADDRESS ?? '127.0.0.2';
const KEY = 'bench-strangers-key-0123456789abcdef0123456789';
const ANNOUNCED = 4 * 1024 * 1024;
const SENT = ANNOUNCED - 16;

const project = path.join(tempDir('staticmcp-bench-strangers-'), 'project');
mkdirSync(path.join(project, 'tools'), { recursive: true });
writeFileSync(
  path.join(project, 'tools', 'echo'),
  `#!/bin/sh
if [ "$1" = "--help" ]; then
  echo '{"description": "Echo a text"}'
  echo '{"text": {"description": "What to echo", "required": true, "value_type": "string"}}' >&2
  exit 0
fi
printf 'echo: %s\\n' "$text"
`,
  { mode: 0o755 },
);
writeFileSync(path.join(project, 'staticmcp.json'), JSON.stringify({ name: 'strangers' }));
execFileSync(process.execPath, [cliPath, 'build', project], { stdio: 'ignore' });

const child = spawn(process.execPath, [cliPath, 'serve', project, '--origin', '--host', '0.0.0.0', '--port', '0'], {
  stdio: ['ignore', 'ignore', 'pipe'],
  env: { ...process.env, STATICMCP_ORIGIN_KEY: KEY },
});
let log = '';
child.stderr.setEncoding('utf8');
const port = await new Promise((resolve, reject) => {
  child.stderr.on('data', (text) => {
    log += text;
    const match = /Live origin: http:\/\/0\.0\.0\.0:(\d+)\//.exec(log);
    if (match) resolve(Number(match[1]));
  });
  child.on('exit', () => reject(new Error(`the origin exited: ${log}`)));
});
const originUrl = `http://127.0.0.1:${port}`;

function residentMb() {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) / 1024;
}

async function signedCallMs() {
  const body = new TextEncoder().encode(
    JSON.stringify({ scriptPath: 'tools/echo', phase: 'live', toolName: 'echo', args: { text: 'hi' } }),
  );
  const headers = await signOriginRequest(KEY, { method: 'POST', path: '/live-run', body, client: 'bench' });
  const startedAt = performance.now();
  const response = await fetch(`${originUrl}/live-run`, { method: 'POST', headers, body });
  const text = await response.text();
  if (response.status !== 200 || !text.includes('"outcome"'))
    throw new Error(`call failed: ${response.status} ${text}`);
  return performance.now() - startedAt;
}

async function callLatencies() {
  const times = [];
  for (let index = 0; index < CALLS; index += 1) times.push(await signedCallMs());
  const sorted = [...times].sort((a, b) => a - b);
  return { p50: median(times), p95: sorted[Math.floor(sorted.length * 0.95)] ?? sorted.at(-1) };
}

function headersFor(kind) {
  if (kind === 'unsigned') return {};
  return {
    'x-staticmcp-timestamp': String(Math.floor(Date.now() / 1000)),
    'x-staticmcp-nonce': crypto.randomUUID().replaceAll('-', ''),
    'x-staticmcp-client': 'stranger',
    'x-staticmcp-signature': `v1=${'ab'.repeat(32)}`,
  };
}

/** Opens one stalling connection; resolves with when it was dropped (ms after opening), or undefined. */
function stall(kind) {
  const fields = { host: 'origin', 'content-length': String(ANNOUNCED), ...headersFor(kind) };
  const head = `POST /live-run HTTP/1.1\r\n${Object.entries(fields)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\r\n')}\r\n\r\n`;
  const socket = net.connect({ port, host: '127.0.0.1', localAddress: ATTACKER_ADDRESS });
  const openedAt = performance.now();
  socket.on('error', () => {});
  socket.write(head);
  const chunk = Buffer.alloc(64 * 1024, 120);
  let sent = 0;
  const more = () => {
    while (sent < SENT && !socket.destroyed) {
      const size = Math.min(chunk.length, SENT - sent);
      sent += size;
      if (!socket.write(size === chunk.length ? chunk : chunk.subarray(0, size))) return socket.once('drain', more);
    }
  };
  socket.once('connect', more);
  return {
    socket,
    dropped: new Promise((resolve) => {
      const timer = setTimeout(() => resolve(undefined), WAIT_MS);
      socket.on('close', () => {
        clearTimeout(timer);
        resolve(performance.now() - openedAt);
      });
    }),
  };
}

async function attack(kind) {
  await new Promise((resolve) => setTimeout(resolve, 500));
  const restMb = residentMb();
  let peakMb = restMb;
  const sampler = setInterval(() => {
    peakMb = Math.max(peakMb, residentMb());
  }, 100);
  const peers = Array.from({ length: CONNECTIONS }, () => stall(kind));
  // Let the attack get its bytes in before the calls are timed.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const during = await callLatencies();
  const dropTimes = await Promise.all(peers.map((peer) => peer.dropped));
  clearInterval(sampler);
  for (const peer of peers) peer.socket.destroy();
  const dropped = dropTimes.filter((time) => time !== undefined);
  return {
    restMb,
    peakAboveRestMb: peakMb - restMb,
    dropped: dropped.length,
    lastDropS: dropped.length ? Math.max(...dropped) / 1000 : undefined,
    medianDropS: dropped.length ? median(dropped) / 1000 : undefined,
    during,
  };
}

const round = (value) => (value === undefined ? '-' : Math.round(value * 10) / 10);
console.log(
  `origin: ${cliPath}; ${CONNECTIONS} stalling connections from ${ATTACKER_ADDRESS}, ${CALLS} signed calls each phase`,
);
await callLatencies(); // warm-up
const quiet = await callLatencies();
console.log(`no attack: signed call p50 ${round(quiet.p50)} ms, p95 ${round(quiet.p95)} ms`);
for (const kind of ['unsigned', 'forged']) {
  const result = await attack(kind);
  console.log(
    `${kind}: RSS rest ${round(result.restMb)} MB, peak +${round(result.peakAboveRestMb)} MB; dropped ${result.dropped}/${CONNECTIONS} within ${WAIT_MS / 1000} s (median ${round(result.medianDropS)} s, last ${round(result.lastDropS)} s); signed call p50 ${round(result.during.p50)} ms (x${round(result.during.p50 / quiet.p50)}), p95 ${round(result.during.p95)} ms (x${round(result.during.p95 / quiet.p95)})`,
  );
}
const refusedLines = log.split('\n').filter((line) => /refused/.test(line)).length;
console.log(`origin log: ${log.split('\n').length - 1} lines, ${refusedLines} about refused requests`);
if (process.env.SHOW_LOG) console.log(log);
child.kill('SIGTERM');

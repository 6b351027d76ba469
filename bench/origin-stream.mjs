// What reading an origin's answer costs the edge worker (issue 37), measured in workerd on this
// machine against baselines taken in the same run:
//   1. workerd CPU per forwarded call whose origin answer carries one log line of 256 KiB, 1 MiB
//      and 3 MiB (then its outcome), against a forwarded call with no log line and a precomputed
//      call answered at the edge (medians);
//   2. a hostile origin answering 12 MB without a newline (then holding the connection open):
//      how long that call takes to end and what it answers, and the worst wait of another
//      client's precomputed calls made meanwhile, against their wait at rest.
// The origin is a small HTTP server in this process (the edge does not check who answers, only
// what); the tree is fixtures/example built with liveOrigin pointing at it.
// Run: npm run build && node bench/origin-stream.mjs
import { execFileSync } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { cliPath, median, repoRoot, tempDir } from './lib/common.mjs';
import { startWorkerdSite } from './lib/edge-lib.mjs';
import { initialize, toolCallBody } from './lib/mcp-http-client.mjs';
import { childPid, cpuNs } from './lib/process-cpu.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 5);
const TIMEOUT_MS = 8_000;
const KEY = 'bench-origin-key-0123456789abcdef0123456789';
const KIB = 1024;
const OUTCOME = `${JSON.stringify({ outcome: { run: { exitCode: 0, failed: false, message: '', stdout: 'b2sK', stderr: '' } } })}\n`;

/** What the origin answers next: a log line of `logBytes` then the outcome, or a newline-free flood. */
let mode = { logBytes: 0 };
const origin = http.createServer((request, response) => {
  request.resume();
  response.writeHead(200, { 'content-type': 'application/x-ndjson' });
  if (mode.flood) {
    // Then holds the connection open: only the edge's own bounds end the call.
    const { piece, total } = mode.flood;
    let sent = 0;
    const more = () => {
      while (sent < total && !response.destroyed) {
        sent += piece.length;
        if (!response.write(piece)) return void response.once('drain', more);
      }
    };
    response.on('close', () => {
      sent = total;
    });
    more();
    return;
  }
  if (mode.logBytes > 0)
    response.write(`${JSON.stringify({ log: { level: 'info', message: 'x'.repeat(mode.logBytes) } })}\n`);
  response.end(OUTCOME);
});
await new Promise((resolve) => origin.listen(0, '127.0.0.1', resolve));
const originUrl = `http://127.0.0.1:${origin.address().port}`;

const project = path.join(tempDir('staticmcp-bench-stream-'), 'example');
cpSync(path.join(repoRoot, 'fixtures', 'example'), project, {
  recursive: true,
  filter: (source) => !/[/\\](dist|\.staticmcp)([/\\]|$)/.test(path.relative(repoRoot, source)),
});
const configFile = path.join(project, 'staticmcp.json');
const config = JSON.parse(readFileSync(configFile, 'utf8'));
writeFileSync(
  configFile,
  JSON.stringify({ ...config, liveOrigin: originUrl, limits: { ...config.limits, originTimeoutMs: TIMEOUT_MS } }),
);
const tree = path.join(tempDir('staticmcp-bench-stream-tree-'), 'tree');
execFileSync(process.execPath, [cliPath, 'build', project, '--out', tree], { stdio: 'ignore' });
const site = await startWorkerdSite(tree, { bindings: { STATICMCP_ORIGIN_KEY: KEY } });
const edge = new URL('mcp', site.url);
const pid = childPid(process.pid, 'workerd');

/** One tools/call; its answer may come as SSE (log lines become notifications first): the last message. */
async function timeToolCall(endpoint, headers, name, args) {
  const startedAt = performance.now();
  const response = await fetch(endpoint, { method: 'POST', headers, body: toolCallBody(name, args) });
  const text = await response.text();
  const messages = text.startsWith('{')
    ? [text]
    : text
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6));
  return { answer: JSON.parse(messages.at(-1) ?? '{}'), elapsedMs: performance.now() - startedAt };
}

/** workerd CPU (ms) and wall time of one call. */
async function measure(name, args, headers) {
  const before = cpuNs(pid);
  const { answer, elapsedMs } = await timeToolCall(edge, headers, name, args);
  return { cpuMs: (cpuNs(pid) - before) / 1e6, elapsedMs, answer };
}

const miss = ['capital', { country: 'Peru' }];
const precomputed = ['greet', { language: 'fr' }];

try {
  const headers = await initialize(edge);
  const other = await initialize(edge);
  for (let index = 0; index < 3; index += 1) {
    mode = { logBytes: 0 };
    await measure(...miss, headers);
    await measure(...precomputed, headers);
  }
  const rows = [
    ['precomputed call (at the edge)', () => ({ logBytes: 0 }), precomputed],
    ['forwarded, no log line', () => ({ logBytes: 0 }), miss],
    ['forwarded, 256 KiB log line', () => ({ logBytes: 256 * KIB }), miss],
    ['forwarded, 1 MiB log line', () => ({ logBytes: 1024 * KIB }), miss],
    ['forwarded, 3 MiB log line', () => ({ logBytes: 3 * 1024 * KIB }), miss],
  ];
  const results = [];
  for (const [label, next, call] of rows) {
    mode = next();
    const samples = [];
    for (let round = 0; round < ROUNDS; round += 1) samples.push(await measure(...call, headers));
    const failed = samples.find((sample) => sample.answer.result?.isError || sample.answer.error);
    results.push({
      label,
      cpuMs: median(samples.map((sample) => sample.cpuMs)),
      wallMs: median(samples.map((sample) => sample.elapsedMs)),
      failed,
    });
  }
  const baseCpu = results[0].cpuMs;
  console.log(`1. workerd CPU per call, median of ${ROUNDS} (ratio to the precomputed call):`);
  for (const row of results)
    console.log(
      `   ${row.label.padEnd(34)} ${row.cpuMs.toFixed(1).padStart(8)} ms CPU  ${(row.cpuMs / baseCpu).toFixed(1).padStart(7)}x  wall ${row.wallMs.toFixed(0)} ms${row.failed ? `  (isError: ${JSON.stringify(row.failed.answer).slice(0, 120)})` : ''}`,
    );

  // 2. The other client's precomputed calls, at rest and during each hostile answer.
  mode = { logBytes: 0 };
  const rest = [];
  for (let index = 0; index < 20; index += 1) rest.push((await timeToolCall(edge, other, ...precomputed)).elapsedMs);
  console.log(
    `2. hostile origin answers (deadline ${TIMEOUT_MS} ms); another client's precomputed calls at rest: worst ${Math.max(...rest).toFixed(1)} ms, median ${median(rest).toFixed(1)} ms`,
  );
  const hostileAnswers = [
    ['12 MB without a newline', { piece: 'x'.repeat(64 * KIB), total: 12 * 1000 * 1000 }],
    ['11 MB in 512-byte writes', { piece: 'y'.repeat(512), total: 11 * 1000 * 1000 }],
    [
      'endless small log lines',
      { piece: `${JSON.stringify({ log: { level: 'info', message: 'tick' } })}\n`, total: Infinity },
    ],
  ];
  for (const [label, flood] of hostileAnswers) {
    mode = { flood };
    const startedAt = performance.now();
    let ended = false;
    const hostile = measure(...miss, headers).finally(() => {
      ended = true;
    });
    const waits = [];
    let dropped = 0;
    while (!ended && performance.now() - startedAt < 70_000) {
      const callStartedAt = performance.now();
      try {
        waits.push((await timeToolCall(edge, other, ...precomputed)).elapsedMs);
      } catch {
        // workerd dropped the connection: counted, and its wait still counts.
        dropped += 1;
        waits.push(performance.now() - callStartedAt);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const { answer, cpuMs } = await hostile.catch((error) => ({
      answer: { error: String(error.cause ?? error) },
      cpuMs: NaN,
    }));
    const tookMs = performance.now() - startedAt;
    const text = JSON.stringify(answer.result?.content?.[0]?.text ?? answer.error ?? answer).slice(0, 160);
    console.log(
      `   ${label}: the call ended after ${tookMs.toFixed(0)} ms, ${cpuMs.toFixed(0)} ms of workerd CPU: ${text}`,
    );
    console.log(
      `     another client: worst wait ${Math.max(...waits).toFixed(0)} ms over ${waits.length} calls (median ${median(waits).toFixed(1)} ms)${dropped ? ` (${dropped} dropped by workerd)` : ''}; ratio of worst to worst at rest ${(Math.max(...waits) / Math.max(...rest)).toFixed(1)}`,
    );
  }
} finally {
  await site.close();
  origin.closeAllConnections();
  origin.close();
}

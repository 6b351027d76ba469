// Packed trees (issue #24), the skeleton: today's unpacked column of every figure the issue asks
// for, on the generated bench projects (lib/packed-tree-projects.mjs), so the packed column can be
// added beside it and read as same-run ratios once the build writes packs.
//   1. the generator's trees are byte-identical to `staticmcp build`'s (checked on small projects);
//   2. writing the trees: several tools at CALLS (50,000) and Wikipedia's shape at WIKIPEDIA_CALLS
//      (650,000; 0 skips it): time, files, call files, bytes, largest file, peak RSS, and whether
//      the tree fits Cloudflare's free plan (20,000 files, 25 MiB a file);
//   3. build time and peak RSS of the buildable project variant (BUILD_CALLS, 5,000), and its
//      no-op rebuild;
//   4. a precomputed tools/call at random over the CALLS tree, p50/p99, cold (each call's first
//      time) and warm (the same calls again), through the worker in workerd (miniflare, the tree
//      as static assets), `serve <folder> --http` and `serve <URL> --http` (the tree fetched from
//      workerd's assets).
// Not yet: the packed column (the build does not write packs), worker memory after 10,000 calls.
// Run: npm run build && node bench/packed-trees.mjs   (LATENCY_CALLS=1000 calls per pass)
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { cliPath, repoRoot, tempDir } from './lib/common.mjs';
import { startWorkerdSite } from './lib/edge-lib.mjs';
import {
  sampleCalls,
  seededRandom,
  verifyAgainstBuild,
  writeBenchProject,
  writeTreeDirectly,
} from './lib/packed-tree-projects.mjs';

const CALLS = Number(process.env.CALLS ?? 50_000);
const WIKIPEDIA_CALLS = Number(process.env.WIKIPEDIA_CALLS ?? 650_000);
const BUILD_CALLS = Number(process.env.BUILD_CALLS ?? 5_000);
const LATENCY_CALLS = Number(process.env.LATENCY_CALLS ?? 1_000);
/** Calls (another sample) each server answers before the timed ones: its start and JIT are not a call's cost. */
const WARMUP_CALLS = 50;
const FREE_PLAN_FILES = 20_000;
const MAX_FILE_BYTES = 25 * 1024 * 1024;
// Records the child's own peak RSS (not its scripts') when it exits (as build-scale.mjs does).
const PEAK_RSS_HOOK = `data:text/javascript,${encodeURIComponent(
  'import{writeFileSync}from"node:fs";process.on("exit",()=>writeFileSync(process.env.BENCH_RSS_FILE,String(process.resourceUsage().maxRSS)))',
)}`;

function percentile(values, fraction) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))];
}

const megabytes = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

// What each stage cost the bench itself (workerd's start over tens of thousands of assets is slow).
const benchStartedAt = performance.now();
const stageTime = () => `(at ${((performance.now() - benchStartedAt) / 1000).toFixed(0)} s of the bench)`;

// 1. The generator writes what the build writes.
for (const shape of ['wikipedia', 'several-tools']) {
  const root = tempDir('staticmcp-bench-packed-verify-');
  const project = path.join(root, 'project');
  writeBenchProject(project, shape, 300);
  await writeTreeDirectly(project, path.join(root, 'written'), shape, 300);
  const differing = verifyAgainstBuild(project, path.join(root, 'written'), path.join(root, 'built'));
  if (differing.length > 0)
    throw new Error(`the ${shape} tree written directly differs from staticmcp build's: ${differing.join(', ')}`);
}
console.log(
  `generated trees: byte-identical to staticmcp build at 300 calls (wikipedia, several-tools) ${stageTime()}`,
);

// 2. Writing the trees, each in its own process (its peak RSS is the writing's alone).
function writeTree(shape, calls) {
  const folder = tempDir(`staticmcp-bench-packed-${shape}-`);
  const written = spawnSync(
    process.execPath,
    [path.join(repoRoot, 'bench/lib/write-bench-tree.mjs'), shape, String(calls), folder],
    { encoding: 'utf8', maxBuffer: 1 << 24 },
  );
  if (written.status !== 0) throw new Error(`writing the ${shape} tree failed: ${written.stderr}`);
  return { ...JSON.parse(written.stdout), tree: path.join(folder, 'tree') };
}

console.log(`\nunpacked trees, written directly (packed: to come) ${stageTime()}`);
console.log('shape           calls     files  call files      bytes  largest file  fits free plan   write s  peak RSS');
const trees = {};
for (const [shape, calls] of [
  ['several-tools', CALLS],
  ['wikipedia', WIKIPEDIA_CALLS],
]) {
  if (calls === 0) continue;
  const tree = writeTree(shape, calls);
  trees[shape] = tree;
  const fits = tree.files <= FREE_PLAN_FILES && tree.largestFileBytes <= MAX_FILE_BYTES;
  console.log(
    `${shape.padEnd(14)} ${String(tree.calls).padStart(6)} ${String(tree.files).padStart(9)} ${String(tree.callFiles).padStart(11)} ${megabytes(tree.bytes).padStart(10)} ${megabytes(tree.largestFileBytes).padStart(13)} ${(fits ? 'yes' : 'no').padStart(15)} ${(tree.ms / 1000).toFixed(1).padStart(9)} ${`${tree.peakRssMb.toFixed(0)} MB`.padStart(9)}`,
  );
}

// 3. Build time and peak RSS of a project small enough to build through its scripts.
function build(project, out, extra = []) {
  const rssFile = path.join(path.dirname(out), 'rss');
  const startedAt = performance.now();
  const result = spawnSync(
    process.execPath,
    ['--import', PEAK_RSS_HOOK, cliPath, 'build', project, '--out', out, ...extra],
    { env: { ...process.env, BENCH_RSS_FILE: rssFile }, encoding: 'utf8' },
  );
  const ms = performance.now() - startedAt;
  if (result.status !== 0) throw new Error(`staticmcp build failed: ${result.stderr}`);
  return { ms, rssMb: Number(readFileSync(rssFile, 'utf8')) / 1024 };
}
{
  const root = tempDir('staticmcp-bench-packed-build-');
  const project = path.join(root, 'project');
  const { calls } = writeBenchProject(project, 'several-tools', BUILD_CALLS);
  const cold = build(project, path.join(root, 'tree'), ['--force']);
  const noop = build(project, path.join(root, 'tree'));
  console.log(
    `\nbuild of the several-tools project, ${calls} calls through its scripts (packed: to come) ${stageTime()}`,
  );
  console.log(
    `  unpacked: ${cold.ms.toFixed(0)} ms, peak RSS ${cold.rssMb.toFixed(0)} MB; no-op rebuild ${noop.ms.toFixed(0)} ms`,
  );
}

// 4. Call latency over the several-tools tree.
let nextId = 1;
const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
};

/** initialize (+ initialized); returns the headers later calls send (with Mcp-Session-Id when one was issued). */
async function initialize(endpoint) {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
    }),
  });
  await response.text();
  const session = response.headers.get('mcp-session-id');
  const headers = session ? { ...HEADERS, 'mcp-session-id': session } : HEADERS;
  await (
    await fetch(endpoint, { method: 'POST', headers, body: '{"jsonrpc":"2.0","method":"notifications/initialized"}' })
  ).text();
  return headers;
}

async function timeCall(endpoint, headers, call) {
  const startedAt = performance.now();
  const response = await fetch(endpoint, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method: 'tools/call',
      params: { name: call.tool, arguments: call.args },
    }),
  });
  const answer = await response.json();
  const elapsed = performance.now() - startedAt;
  if (answer.result?.content?.[0]?.text !== call.text)
    throw new Error(`${endpoint} answered ${JSON.stringify(answer).slice(0, 300)} to ${JSON.stringify(call)}`);
  return elapsed;
}

/** `staticmcp serve <source> --http` on a free port; resolves with `{ endpoint, close }`. */
function startServe(source) {
  const child = spawn(process.execPath, [cliPath, 'serve', source, '--http', '--port', '0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  return new Promise((resolve, reject) => {
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text) => {
      stderr += text;
      const match = /MCP endpoint: (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
      if (match) resolve({ endpoint: new URL(match[1]), close: async () => child.kill() });
    });
    child.on('exit', () => reject(new Error(`serve ${source} exited: ${stderr}`)));
  });
}

const latencyTree = trees['several-tools'];
if (latencyTree) {
  const calls = sampleCalls('several-tools', CALLS, LATENCY_CALLS);
  const warmup = sampleCalls('several-tools', CALLS, WARMUP_CALLS, seededRandom(7));
  const site = await startWorkerdSite(latencyTree.tree);
  const servers = [
    { label: 'worker in workerd', endpoint: new URL('mcp', site.url), close: async () => {} },
    { label: 'serve <folder>', ...(await startServe(latencyTree.tree)) },
    { label: 'serve <URL>', ...(await startServe(site.url.href)) },
  ];
  try {
    for (const server of servers) {
      server.headers = await initialize(server.endpoint);
      for (const call of warmup) await timeCall(server.endpoint, server.headers, call);
      // Cold: each sampled call's first time through this server; warm: the same calls again.
      server.cold = [];
      for (const call of calls) server.cold.push(await timeCall(server.endpoint, server.headers, call));
      server.warm = [];
      for (const call of calls) server.warm.push(await timeCall(server.endpoint, server.headers, call));
    }
  } finally {
    for (const server of servers) await server.close();
    await site.close();
  }
  console.log(
    `\nprecomputed tools/call over Streamable HTTP, ${LATENCY_CALLS} random calls of the ${CALLS}-call tree, unpacked (packed: to come; target packed/unpacked ≤ 1.2) ${stageTime()}`,
  );
  console.log('server               cold p50   cold p99   warm p50   warm p99');
  for (const server of servers) {
    const cells = [server.cold, server.warm].flatMap((times) => [percentile(times, 0.5), percentile(times, 0.99)]);
    console.log(`${server.label.padEnd(18)} ${cells.map((ms) => `${ms.toFixed(2)} ms`.padStart(10)).join(' ')}`);
  }
}

// Packed trees (issue #24): every figure of the issue's "Measure" section, packed against unpacked
// in the same run, on the generated bench projects (lib/packed-tree-projects.mjs):
//   1. the generator's trees are byte-identical to `staticmcp build`'s (small projects, unpacked
//      and packed through --max-call-files);
//   2. the trees, written by the build's own stages (the pack step included): several tools at
//      CALLS (50,000) unpacked and packed (budget MAX_CALL_FILES, the default 19,000), and
//      Wikipedia's shape (one tool, one argument, ~2 KB answers) at WIKIPEDIA_CALLS (650,000; 0
//      skips it) packed (and unpacked with WIKIPEDIA_UNPACKED=1: 650,000 files, ~10 minutes more):
//      files, call files, pack files, bytes, largest file, completions.json and mcp.json, whether
//      the tree fits Cloudflare's free plan (20,000 files, 25 MiB a file), write time, peak RSS;
//   3. build time and peak RSS of the buildable several-tools project (BUILD_CALLS, 5,000) through
//      its scripts, unpacked and packed (budget BUILD_CALLS / 4), and each one's no-op rebuild;
//   4. a precomputed tools/call at random, p50/p99, cold (each sampled call's first time through
//      that server) and warm (the same calls again), over Streamable HTTP: the worker in workerd
//      (miniflare, the tree as static assets), `serve <folder> --http` and `serve <URL> --http`
//      (the tree fetched from workerd's assets); packed against unpacked at CALLS (interleaved in
//      chunks, so the machine's noise hits both alike), packed alone at WIKIPEDIA_CALLS;
//   5. memory after MEMORY_CALLS (10,000) more random calls: each server process's RSS (VmRSS,
//      /proc/<pid>/status; for the worker, the workerd process miniflare started) before and after
//      them, beside the bound the readers keep (the worker's PackIndexCache: 8 MiB, 1,024 indexes);
//   6. what a worker call reads: the bundled _worker.js run in this process over an ASSETS binding
//      that reads the tree folder and counts the files fetched (pack indexes, packs, plain files)
//      and their bytes, per call, over the latency sample twice (cold, then warm); then the live
//      memory the worker keeps after MEMORY_CALLS more calls (V8 heap + array buffers after a full
//      GC, against before them): workerd's RSS also counts garbage not yet collected (each call's
//      whole pack) and the assets service, so this is the figure the index cache bounds.
// Run: npm run build && node bench/packed-trees.mjs      (the full run: ~25 minutes, ~4 GB in /tmp)
// Smaller: CALLS=5000 WIKIPEDIA_CALLS=0 BUILD_CALLS=1000 LATENCY_CALLS=200 MEMORY_CALLS=1000 node bench/packed-trees.mjs
// (a tree within MAX_CALL_FILES is packed with a budget of a quarter of its calls instead, and says so).
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import { cliPath, repoRoot, tempDir } from './lib/common.mjs';
import { startWorkerdSite, workerBundle } from './lib/edge-lib.mjs';
import { HEADERS, initialize, timeToolCall, toolCallBody } from './lib/mcp-http-client.mjs';
import {
  sampleCalls,
  seededRandom,
  verifyAgainstBuild,
  writeBenchProject,
  writeTreeDirectly,
} from './lib/packed-tree-projects.mjs';

const CALLS = Number(process.env.CALLS ?? 50_000);
const WIKIPEDIA_CALLS = Number(process.env.WIKIPEDIA_CALLS ?? 650_000);
const WIKIPEDIA_UNPACKED = process.env.WIKIPEDIA_UNPACKED === '1';
const MAX_CALL_FILES = Number(process.env.MAX_CALL_FILES ?? 19_000);
const BUILD_CALLS = Number(process.env.BUILD_CALLS ?? 5_000);
const LATENCY_CALLS = Number(process.env.LATENCY_CALLS ?? 1_000);
const MEMORY_CALLS = Number(process.env.MEMORY_CALLS ?? 10_000);
/** Calls (another sample) each server answers before the timed ones: its start and JIT are not a call's cost. */
const WARMUP_CALLS = 50;
/** Packed and unpacked take turns every LATENCY_CALLS / CHUNKS calls. */
const CHUNKS = 10;
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
const kilobytes = (bytes) => `${(bytes / 1024).toFixed(0)} KB`;
/** A tree path as the table shows it: packs and indexes by kind (their names are hashes). */
const kindOf = (treePath) =>
  treePath.endsWith('.pack') ? 'a pack' : treePath.endsWith('.idx') ? 'an index' : treePath;
const ratio = (packed, unpacked) => {
  if (!(unpacked > 0)) return '-';
  const value = packed / unpacked;
  return `${value < 0.1 ? value.toPrecision(2) : value.toFixed(2)}×`;
};

/** The budget a tree of `calls` is packed with: MAX_CALL_FILES, or a quarter of its calls when it is within that. */
function budgetFor(calls) {
  return calls > MAX_CALL_FILES ? MAX_CALL_FILES : Math.max(1, Math.floor(calls / 4));
}

// What each stage cost the bench itself (workerd's start over tens of thousands of assets is slow).
const benchStartedAt = performance.now();
const stageTime = () => `(at ${((performance.now() - benchStartedAt) / 1000).toFixed(0)} s of the bench)`;

// 1. The generator writes what the build writes, unpacked and packed.
for (const [shape, maxCallFiles] of [
  ['wikipedia', undefined],
  ['several-tools', undefined],
  ['several-tools', 100],
]) {
  const root = tempDir('staticmcp-bench-packed-verify-');
  const project = path.join(root, 'project');
  writeBenchProject(project, shape, 300);
  const written = await writeTreeDirectly(project, path.join(root, 'written'), shape, 300, { maxCallFiles });
  if (written.packFiles > 0 !== (maxCallFiles !== undefined))
    throw new Error(`the ${shape} tree with a budget of ${maxCallFiles} has ${written.packFiles} pack files`);
  const differing = verifyAgainstBuild(project, path.join(root, 'written'), path.join(root, 'built'), { maxCallFiles });
  if (differing.length > 0)
    throw new Error(`the ${shape} tree written directly differs from staticmcp build's: ${differing.join(', ')}`);
}
console.log(
  `generated trees: byte-identical to staticmcp build at 300 calls (wikipedia, several-tools unpacked; several-tools packed, --max-call-files 100) ${stageTime()}`,
);

// 2. Writing the trees, each in its own process (its peak RSS is the writing's alone).
function writeTree(shape, calls, maxCallFiles) {
  const folder = tempDir(`staticmcp-bench-packed-${shape}-`);
  const written = spawnSync(
    process.execPath,
    [path.join(repoRoot, 'bench/lib/write-bench-tree.mjs'), shape, String(calls), folder, String(maxCallFiles)],
    { encoding: 'utf8', maxBuffer: 1 << 24 },
  );
  if (written.status !== 0) throw new Error(`writing the ${shape} tree failed: ${written.stderr}`);
  return { ...JSON.parse(written.stdout), maxCallFiles, tree: path.join(folder, 'tree') };
}

/** The pack indexes of a tree: how many, and their total and largest size. */
function indexFiles(tree) {
  const packs = path.join(tree, 'packs');
  let count = 0;
  let bytes = 0;
  let largest = 0;
  let packFiles = 0;
  let packBytes = 0;
  for (const entry of readdirSync(packs, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const size = statSync(path.join(entry.parentPath, entry.name)).size;
    if (entry.name.endsWith('.idx')) {
      count += 1;
      bytes += size;
      largest = Math.max(largest, size);
    } else {
      packFiles += 1;
      packBytes += size;
    }
  }
  return { count, bytes, largest, packFiles, packBytes };
}

console.log(`\ntrees, written by the build's stages (one process each; packed: the build's pack step) ${stageTime()}`);
console.log(
  'shape          layout    budget    calls    files  call files  pack files      bytes   largest file                 fits free plan  write s  peak RSS  completions.json  mcp.json',
);
const trees = {};
for (const [shape, calls, layouts] of [
  ['several-tools', CALLS, ['unpacked', 'packed']],
  ['wikipedia', WIKIPEDIA_CALLS, WIKIPEDIA_UNPACKED ? ['unpacked', 'packed'] : ['packed']],
]) {
  if (calls === 0) continue;
  trees[shape] = {};
  for (const layout of layouts) {
    const tree = writeTree(shape, calls, layout === 'packed' ? budgetFor(calls) : 0);
    trees[shape][layout] = tree;
    const fits = tree.files <= FREE_PLAN_FILES && tree.largestFileBytes <= MAX_FILE_BYTES;
    console.log(
      `${shape.padEnd(14)} ${layout.padEnd(8)} ${String(tree.maxCallFiles).padStart(7)} ${String(tree.calls).padStart(8)} ${String(tree.files).padStart(8)} ${String(tree.callFilesLeft).padStart(11)} ${String(tree.packFiles).padStart(11)} ${megabytes(tree.bytes).padStart(10)} ${`${megabytes(tree.largestFileBytes)} ${kindOf(tree.largestFile)}`.padStart(28)} ${(fits ? 'yes' : 'no').padStart(15)} ${(tree.ms / 1000).toFixed(1).padStart(8)} ${`${tree.peakRssMb.toFixed(0)} MB`.padStart(9)} ${kilobytes(tree.completionsBytes).padStart(17)} ${kilobytes(tree.manifestBytes).padStart(9)}`,
    );
  }
  const { unpacked, packed } = trees[shape];
  if (packed.packFiles === 0) throw new Error(`the packed ${shape} tree holds no pack (budget ${packed.maxCallFiles})`);
  if (calls <= MAX_CALL_FILES)
    console.log(
      `  ${shape}: ${calls} calls are within ${MAX_CALL_FILES}; packed with a budget of ${packed.maxCallFiles}`,
    );
  const indexes = indexFiles(packed.tree);
  console.log(
    `  ${shape} packed: ${indexes.packFiles} packs (${kilobytes(indexes.packBytes / Math.max(1, indexes.packFiles))} average, target ${kilobytes(packed.targetPackBytes ?? 0)}), ${indexes.count} indexes (${kilobytes(indexes.bytes / Math.max(1, indexes.count))} average, ${kilobytes(indexes.largest)} largest)`,
  );
  trees[shape].indexes = indexes;
  if (unpacked) {
    console.log(
      `  ${shape} packed/unpacked: files ${ratio(packed.files, unpacked.files)}, bytes ${ratio(packed.bytes, unpacked.bytes)}, write time ${ratio(packed.ms, unpacked.ms)}, peak RSS ${ratio(packed.peakRssMb, unpacked.peakRssMb)}`,
    );
  }
}
console.log(
  '  what grows with the calls besides the call files: completions.json (every enumerated value, whatever the layout) and, packed, mcp.json (the pack table: a row per index)',
);

// 3. Build time and peak RSS of a project small enough to build through its scripts.
function build(project, out, extra = []) {
  const rssFile = path.join(path.dirname(out), `rss-${path.basename(out)}`);
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
  const buildBudget = Math.max(1, Math.floor(BUILD_CALLS / 4));
  const figures = {};
  let calls = 0;
  // A project each (its own build cache), the two built in turn.
  for (const [layout, budget] of [
    ['unpacked', 0],
    ['packed', buildBudget],
  ]) {
    const root = tempDir(`staticmcp-bench-packed-build-${layout}-`);
    const project = path.join(root, 'project');
    calls = writeBenchProject(project, 'several-tools', BUILD_CALLS).calls;
    const flags = ['--max-call-files', String(budget)];
    const cold = build(project, path.join(root, 'tree'), ['--force', ...flags]);
    const noop = build(project, path.join(root, 'tree'), flags);
    figures[layout] = { cold, noop };
  }
  const { unpacked, packed } = figures;
  console.log(
    `\nbuild of the several-tools project, ${calls} calls through its scripts (packed: --max-call-files ${buildBudget}) ${stageTime()}`,
  );
  for (const layout of ['unpacked', 'packed']) {
    const { cold, noop } = figures[layout];
    console.log(
      `  ${layout.padEnd(8)} ${cold.ms.toFixed(0).padStart(6)} ms, peak RSS ${cold.rssMb.toFixed(0)} MB; no-op rebuild ${noop.ms.toFixed(0)} ms`,
    );
  }
  console.log(
    `  packed/unpacked: build time ${ratio(packed.cold.ms, unpacked.cold.ms)} (target ≤ 1.1), peak RSS ${ratio(packed.cold.rssMb, unpacked.cold.rssMb)}, no-op rebuild ${ratio(packed.noop.ms, unpacked.noop.ms)}`,
  );
}

// 4. and 5. Call latency and memory.

async function timeCall(server, call) {
  const { answer, elapsedMs } = await timeToolCall(server.endpoint, server.headers, call.tool, call.args);
  if (answer.result?.content?.[0]?.text !== call.text)
    throw new Error(`${server.label} answered ${JSON.stringify(answer).slice(0, 300)} to ${JSON.stringify(call)}`);
  return elapsedMs;
}

/** `staticmcp serve <source> --http` on a free port; resolves with `{ endpoint, pid, close }`. */
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
      if (match) resolve({ endpoint: new URL(match[1]), pid: child.pid, close: async () => child.kill() });
    });
    child.on('exit', () => reject(new Error(`serve ${source} exited: ${stderr}`)));
  });
}

/** Pids of this process's children named `name` (miniflare starts workerd as one). */
function childPidsNamed(name) {
  const pids = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid …: comm may hold spaces, so split after its closing parenthesis.
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid && comm === name) pids.push(Number(entry));
    } catch {
      // The process ended while listed.
    }
  }
  return pids;
}

/** The workerd site over `tree`, with the pid of the workerd process it started (for its RSS). */
async function startWorkerd(tree) {
  const before = new Set(childPidsNamed('workerd'));
  const startedAt = performance.now();
  const site = await startWorkerdSite(tree);
  const pid = childPidsNamed('workerd').find((candidate) => !before.has(candidate));
  return { ...site, pid, startMs: performance.now() - startedAt };
}

function rssMb(pid) {
  if (pid === undefined) return Number.NaN;
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) / 1024;
}

/**
 * The three hosts over one tree (its workerd site also serves `serve <URL>`); each initialized
 * and warmed up with WARMUP_CALLS calls of another sample.
 */
async function startHosts(layout, tree, warmup) {
  const site = await startWorkerd(tree);
  const folder = await startServe(tree);
  const url = await startServe(site.url.href);
  const hosts = {
    worker: { label: `worker in workerd, ${layout}`, endpoint: new URL('mcp', site.url), pid: site.pid },
    folder: { label: `serve <folder>, ${layout}`, ...folder },
    url: { label: `serve <URL>, ${layout}`, ...url },
  };
  for (const host of Object.values(hosts)) {
    host.headers = await initialize(host.endpoint);
    for (const call of warmup) await timeCall(host, call);
  }
  return {
    hosts,
    startMs: site.startMs,
    close: async () => {
      await folder.close();
      await url.close();
      await site.close();
    },
  };
}

/**
 * Times `calls` through each server of `servers` (the hosts to compare), cold then warm, the
 * servers taking turns every chunk of calls; then MEMORY_CALLS more calls each, with the RSS of
 * each server's process before and after.
 */
async function measure(servers, calls, memoryCalls) {
  const chunk = Math.max(1, Math.ceil(calls.length / CHUNKS));
  for (const server of servers) {
    server.cold = [];
    server.warm = [];
  }
  for (const pass of ['cold', 'warm']) {
    for (let start = 0; start < calls.length; start += chunk) {
      for (const server of servers) {
        for (const call of calls.slice(start, start + chunk)) server[pass].push(await timeCall(server, call));
      }
    }
  }
  for (const server of servers) {
    server.rssBeforeMb = rssMb(server.pid);
    for (const call of memoryCalls) await timeCall(server, call);
    server.rssAfterMb = rssMb(server.pid);
  }
}

function printLatency(servers) {
  console.log(
    'server                          cold p50   cold p99   warm p50   warm p99   RSS before → after the memory calls',
  );
  for (const server of servers) {
    const cells = [server.cold, server.warm].flatMap((times) => [percentile(times, 0.5), percentile(times, 0.99)]);
    server.cells = cells;
    console.log(
      `${server.label.padEnd(30)} ${cells.map((ms) => `${ms.toFixed(2)} ms`.padStart(10)).join(' ')}   ${server.rssBeforeMb.toFixed(0)} → ${server.rssAfterMb.toFixed(0)} MB`,
    );
  }
}

const several = trees['several-tools'];
if (several) {
  const calls = sampleCalls('several-tools', CALLS, LATENCY_CALLS);
  const warmup = sampleCalls('several-tools', CALLS, WARMUP_CALLS, seededRandom(7));
  const memoryCalls = sampleCalls('several-tools', CALLS, MEMORY_CALLS, seededRandom(10_000));
  const unpacked = await startHosts('unpacked', several.unpacked.tree, warmup);
  const packed = await startHosts('packed', several.packed.tree, warmup);
  const pairs = ['worker', 'folder', 'url'].map((host) => [unpacked.hosts[host], packed.hosts[host]]);
  try {
    for (const pair of pairs) await measure(pair, calls, memoryCalls);
  } finally {
    await unpacked.close();
    await packed.close();
  }
  console.log(
    `\nprecomputed tools/call over Streamable HTTP, ${calls.length} random calls of the ${CALLS}-call several-tools tree, packed against unpacked in turns of ${Math.ceil(calls.length / CHUNKS)}; then ${MEMORY_CALLS} more random calls each for the RSS (workerd started in ${(unpacked.startMs / 1000).toFixed(1)} s over the unpacked tree, ${(packed.startMs / 1000).toFixed(1)} s over the packed one) ${stageTime()}`,
  );
  printLatency(pairs.flat());
  console.log('packed/unpacked (target ≤ 1.2)');
  for (const [unpackedServer, packedServer] of pairs) {
    console.log(
      `${packedServer.label.replace(', packed', '').padEnd(30)} ${packedServer.cells.map((ms, index) => ratio(ms, unpackedServer.cells[index]).padStart(10)).join(' ')}   RSS after ${ratio(packedServer.rssAfterMb, unpackedServer.rssAfterMb)}`,
    );
  }
}

const wikipedia = trees.wikipedia?.packed;
if (wikipedia) {
  const calls = sampleCalls('wikipedia', WIKIPEDIA_CALLS, LATENCY_CALLS);
  const warmup = sampleCalls('wikipedia', WIKIPEDIA_CALLS, WARMUP_CALLS, seededRandom(7));
  const memoryCalls = sampleCalls('wikipedia', WIKIPEDIA_CALLS, MEMORY_CALLS, seededRandom(10_000));
  const packed = await startHosts('packed', wikipedia.tree, warmup);
  const servers = Object.values(packed.hosts);
  try {
    for (const server of servers) await measure([server], calls, memoryCalls);
  } finally {
    await packed.close();
  }
  const { indexes } = trees.wikipedia;
  // DEFAULT_PACK_CACHE_LIMITS (core/packs/pack-reader.ts).
  const averageIndexBytes = indexes.bytes / Math.max(1, indexes.count);
  const cachedIndexes = Math.min(indexes.count, 1024, Math.floor((8 * 1024 * 1024) / Math.max(1, averageIndexBytes)));
  console.log(
    `\nthe same over the ${WIKIPEDIA_CALLS}-call wikipedia tree, packed alone (workerd started in ${(packed.startMs / 1000).toFixed(1)} s; ${indexes.count} indexes of ${kilobytes(indexes.bytes / Math.max(1, indexes.count))} average, so the worker's cache of 8 MiB (and at most 1,024 indexes) holds ${cachedIndexes} of them, ~${megabytes(cachedIndexes * averageIndexBytes)}) ${stageTime()}`,
  );
  printLatency(servers);
}

// 6. What a worker call reads, counted in this process.
/**
 * The bundled worker (a module instance of its own: its isolate cache is module state) over an
 * ASSETS binding reading `tree`; `counts` tallies each fetch as an index, a pack or a plain file.
 */
async function countingWorker(tree, instance) {
  const worker = (await import(`${pathToFileURL(workerBundle).href}?instance=${instance}`)).default;
  const counts = { index: 0, pack: 0, plain: 0, bytes: 0 };
  const ASSETS = {
    async fetch(request) {
      const relative = decodeURIComponent(new URL(request.url).pathname.slice(1));
      const kind = relative.endsWith('.idx') ? 'index' : relative.endsWith('.pack') ? 'pack' : 'plain';
      counts[kind] += 1;
      let body;
      try {
        body = readFileSync(path.join(tree, ...relative.split('/')));
      } catch {
        return new Response('not found', { status: 404 });
      }
      counts.bytes += body.length;
      const type = relative.endsWith('.json') ? 'application/json' : 'application/octet-stream';
      return new Response(body, { headers: { 'content-type': type } });
    },
  };
  const call = async (toolCall) => {
    const response = await worker.fetch(
      new Request('http://site.test/mcp', {
        method: 'POST',
        headers: HEADERS,
        body: toolCallBody(toolCall.tool, toolCall.args),
      }),
      { ASSETS },
    );
    const answer = await response.json();
    if (answer.result?.content?.[0]?.text !== toolCall.text)
      throw new Error(`the worker in this process answered ${JSON.stringify(answer).slice(0, 300)}`);
  };
  return { counts, call };
}

const counted = [
  ['several-tools', 'unpacked', CALLS],
  ['several-tools', 'packed', CALLS],
  ['wikipedia', 'packed', WIKIPEDIA_CALLS],
].filter(([shape, layout]) => trees[shape]?.[layout]);
if (counted.length > 0) {
  console.log(
    `\nwhat a worker call reads (the bundled worker in this process, its ASSETS counted; ${LATENCY_CALLS} random calls after one that loads the manifest, then the same again) ${stageTime()}`,
  );
  v8.setFlagsFromString('--expose-gc');
  const collectGarbage = vm.runInNewContext('gc');
  const liveMb = () => {
    collectGarbage();
    collectGarbage();
    const { heapUsed, arrayBuffers } = process.memoryUsage();
    return (heapUsed + arrayBuffers) / 1024 / 1024;
  };
  console.log(
    `tree                      pass   indexes/call  packs/call  plain files/call  KB/call  ms/call (this process)   kept after ${MEMORY_CALLS} more calls`,
  );
  for (const [shape, layout, calls] of counted) {
    const sample = sampleCalls(shape, calls, LATENCY_CALLS);
    const worker = await countingWorker(trees[shape][layout].tree, `${shape}-${layout}`);
    await worker.call(sampleCalls(shape, calls, 1, seededRandom(3))[0]);
    for (const pass of ['cold', 'warm']) {
      for (const key of Object.keys(worker.counts)) worker.counts[key] = 0;
      const startedAt = performance.now();
      for (const toolCall of sample) await worker.call(toolCall);
      const ms = (performance.now() - startedAt) / sample.length;
      const { index, pack, plain, bytes } = worker.counts;
      const per = (count) => (count / sample.length).toFixed(2).padStart(12);
      let kept = '';
      if (pass === 'warm') {
        const memoryCalls = sampleCalls(shape, calls, MEMORY_CALLS, seededRandom(10_000));
        // Expected texts flattened now, so the sample's own strings are not counted as the worker's.
        for (const toolCall of memoryCalls) toolCall.text.charCodeAt(toolCall.text.length - 1);
        const before = liveMb();
        for (const toolCall of memoryCalls) await worker.call(toolCall);
        // Each stateless request leaves its session's close timer (CLOSE_WAIT_MS, 3 s) pending.
        await new Promise((resolve) => setTimeout(resolve, 3_500));
        kept = `${(liveMb() - before).toFixed(1)} MB`;
      }
      console.log(
        `${`${shape} ${layout}`.padEnd(25)} ${pass.padEnd(5)} ${per(index)} ${per(pack)} ${per(plain).padStart(17)} ${(bytes / sample.length / 1024).toFixed(1).padStart(8)} ${ms.toFixed(2).padStart(8)} ${kept.padStart(28)}`,
      );
    }
  }
}

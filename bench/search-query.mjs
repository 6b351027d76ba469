// What a search costs where it runs (issue #25): two-word queries (two distinct terms of a random
// document) against a tree's search index, through
//   - the tree's _worker.js in workerd (miniflare, the tree as its assets, as Cloudflare runs it),
//   - the same worker with its files from workerd's native file service instead of miniflare's
//     JavaScript asset router and asset worker (on Cloudflare those run outside the worker's
//     isolate, unbilled; each asset read costs ~1 ms of their CPU here, a native read ~0.1 ms),
//   - `staticmcp serve <tree> --http` (Node),
//   - MiniSearch with the whole corpus indexed in memory (the in-memory baseline), in a child
//     process of its own;
// each cold (a new process, so a new isolate: initialize, then one search) and warm (QUERIES
// queries in a row on one process), p50/p99 of wall time and of CPU per query, and the server's
// memory after QUERIES queries.
// CPU per request: workerd does not report it locally (miniflare has no CPU-time API, and
// performance.now() in an isolate only advances on I/O), so it is the server process's on-CPU time
// from /proc/<pid>/task/*/schedstat (nanoseconds, every thread: the isolate, the asset router and
// the asset worker that serves the index files, GC) before and after each request, the request
// sent by this process over loopback; a ping's CPU (the HTTP and JSON-RPC round trip alone) is
// printed beside it. Memory: the process's RSS (/proc/<pid>/status VmRSS) after initialize and after
// the queries, and for workerd the isolate's V8 heap in use, asked through workerd's inspector
// (miniflare's inspectorPort; Runtime.getHeapUsage on the worker's own target, core:user:; it
// does not answer HeapProfiler.collectGarbage, so garbage not yet collected counts too), plus the
// ArrayBuffers' backing stores and the embedder's heap it reports beside it (the packs a host sent
// whole live there) — what counts against an isolate's 128 MB.
// Ratios are against MiniSearch in the same run.
// Run: npm run build && node bench/search-query.mjs
//   CORPUS=debian (Debian's package descriptions, ~63,000) or wiki (search-query-corpus.mjs;
//   COUNT=650000; TEXT_SCALE shortens texts where the in-memory writer lacks memory),
//   TERM_INDEX_BYTES=16384,65536 (one tree per size), QUERIES=1000, COLD=15, MINISEARCH=1.
//   SERVERS=workerd,workerd-files,serve (any of them),
//   TREE=<folder>: measure that built tree instead (e.g. the one `BENCH_KEEP_TREE=… node
//   bench/search-build.mjs` kept: its index is the build's own); MiniSearch is left out then.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cliPath, median, repoRoot, tempDir } from './lib/common.mjs';
import { startWorkerdSite } from './lib/edge-lib.mjs';
import { childPid, cpuNs } from './lib/process-cpu.mjs';
import { initialize, timeToolCall } from './lib/mcp-http-client.mjs';
import { seededRandom } from './lib/search-query-corpus.mjs';
import { searchTree } from './lib/search-query-tree.mjs';
import { connectWorkerInspector } from './lib/workerd-inspector.mjs';

const dist = (file) => import(path.join(repoRoot, 'dist', file));
const { FolderPackFiles } = await dist('hosts/node/folder-pack-files.js');
const { PackReader, textOfBody } = await dist('core/packs/pack-reader.js');
const { KEY_KIND } = await dist('core/packs/pack-format.js');
const { parseSearchIndexManifest, parseSearchTableFile, parseTitleBlock, titleBlockKeyOf } = await dist(
  'core/search/search-index-format.js',
);
const { tokenize } = await dist('core/search/tokenize.js');
const { callDocumentText, toolOfCallFile } = await dist('core/search/call-text.js');
const { parsePackTable } = await dist('core/packs/pack-table.js');
const { callKeyOf } = await dist('core/packs/pack-format.js');
const { readStoredDocument } = await dist('core/search/stored-documents.js');

const CORPUS = process.env.CORPUS ?? 'debian';
const COUNT = Number(process.env.COUNT ?? (CORPUS === 'wiki' ? 650_000 : 1_000_000));
const QUERIES = Number(process.env.QUERIES ?? 1000);
const COLD = Number(process.env.COLD ?? 15);
const TERM_INDEX_SIZES = (process.env.TERM_INDEX_BYTES ?? '16384').split(',').map(Number);
const TREE = process.env.TREE;
const SERVERS = (process.env.SERVERS ?? 'workerd,workerd-files,serve').split(',');
const MINISEARCH = process.env.MINISEARCH !== '0' && TREE === undefined;

function percentile(values, fraction) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))];
}
const f = (value, digits = 2) => value.toFixed(digits);
const stats = (values) => `p50 ${f(median(values))} p99 ${f(percentile(values, 0.99))}`;

function rssMiB(pid) {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
}
/**
 * The memory (MiB) of the workerd worker the inspector at `port` lists as core:user:: its V8 heap in
 * use and the ArrayBuffer backing stores and embedder heap beside it, as found (garbage not yet
 * collected included: V8 collects ArrayBuffers only once ~64 MB more were made since the last
 * collection, so this is an upper bound that swings with where that cycle stands) and, with
 * `collect`, after a full collection (workerd's inspector does not answer
 * HeapProfiler.collectGarbage, but a heap snapshot collects first): what the isolate holds.
 */
async function isolateHeapMiB(port, collect = false) {
  const inspector = await connectWorkerInspector(port);
  const send = (method) => inspector.send(method);
  const inMiB = (usage) =>
    usage && {
      heap: usage.usedSize / 1048576,
      outside: ((usage.backingStorageSize ?? 0) + (usage.embedderHeapUsedSize ?? 0)) / 1048576,
    };
  const found = inMiB(await send('Runtime.getHeapUsage'));
  let collected;
  if (collect && (await send('HeapProfiler.enable')) && (await send('HeapProfiler.takeHeapSnapshot')) !== undefined)
    collected = inMiB(await send('Runtime.getHeapUsage'));
  inspector.close();
  return { ...found, collected };
}

/** The text a call document points at (index format 2): its call, plain or packed, as fetch derives it. */
async function callTextOf(tree, manifest, packs, id) {
  let body;
  try {
    body = readFileSync(path.join(tree, id), 'utf8');
  } catch {
    const parsed = parsePackTable(manifest.staticmcp.packs ?? {});
    if ('problem' in parsed) throw new Error(parsed.problem);
    const found = await packs.lookup(parsed.table.get(toolOfCallFile(id)), KEY_KIND.call, callKeyOf(id), id);
    if (found.status !== 'ok') throw new Error(`${id}: ${found.reason}`);
    body = textOfBody(found.body);
  }
  const document = callDocumentText(JSON.parse(body));
  if ('problem' in document) throw new Error(`${id}: ${document.problem}`);
  return document.text;
}

/** QUERIES + COLD two-word queries: two distinct terms of a document drawn from the index's title blocks. */
async function queriesOf(tree) {
  const manifest = JSON.parse(readFileSync(path.join(tree, 'mcp.json'), 'utf8'));
  const parsed = parseSearchIndexManifest(manifest.staticmcp.search);
  if ('problem' in parsed) throw new Error(parsed.problem);
  const files = new FolderPackFiles(tree);
  let table = parsed.table;
  if (table === undefined) {
    const read = await files.readBytes(parsed.tableFile);
    const loaded = parseSearchTableFile(read.bytes, parsed.tableFile, parsed.counts);
    if ('problem' in loaded) throw new Error(loaded.problem);
    table = loaded.table;
  }
  const packs = new PackReader(files);
  const random = seededRandom(2025);
  const queries = [];
  while (queries.length < QUERIES + COLD) {
    const number = Math.floor(random() * table.documentCount);
    const blockKey = titleBlockKeyOf(Math.floor(number / table.blockSize));
    const block = await packs.lookup(table.titles, KEY_KIND.term, new TextEncoder().encode(blockKey), blockKey);
    const entries = parseTitleBlock(
      textOfBody(block.body),
      Math.min(table.blockSize, table.documentCount - (number - (number % table.blockSize))),
      table.format,
    );
    const { id } = entries[number % table.blockSize];
    const stored = await readStoredDocument(packs, table.documents, table.format, id);
    if (stored.status !== 'ok') throw new Error(`${id}: ${stored.reason ?? 'missing'}`);
    const document = stored.document;
    const text = document.textFrom === 'call' ? await callTextOf(tree, manifest, packs, id) : document.text;
    const terms = [...new Set(tokenize(text))];
    if (terms.length < 2) continue;
    const first = terms[Math.floor(random() * terms.length)];
    const second = terms[Math.floor(random() * terms.length)];
    if (first !== second) queries.push(`${first} ${second}`);
  }
  return {
    queries: queries.slice(0, QUERIES),
    coldQueries: queries.slice(QUERIES),
    documentCount: table.documentCount,
  };
}

/** One server kind: `start()` → { endpoint, pid, close }. Cold runs, then the warm run. */
async function measureServer(name, start, queries, coldQueries) {
  const cold = { wall: [], cpu: [], initCpu: [] };
  for (const query of coldQueries) {
    const server = await start(false);
    try {
      let before = cpuNs(server.pid);
      const headers = await initialize(server.endpoint);
      cold.initCpu.push((cpuNs(server.pid) - before) / 1e6);
      before = cpuNs(server.pid);
      const { elapsedMs: ms, answer } = await timeToolCall(server.endpoint, headers, 'search', { query });
      cold.cpu.push((cpuNs(server.pid) - before) / 1e6);
      cold.wall.push(ms);
      if (answer.error || answer.result?.isError) throw new Error(`${name}: ${JSON.stringify(answer).slice(0, 300)}`);
    } finally {
      await server.close();
    }
  }
  console.error(`${name}: ${coldQueries.length} cold runs done, warm run…`);
  const server = await start(true);
  const warm = { wall: [], cpu: [], pingCpu: [] };
  let rssBefore;
  let rssAfter;
  let heapBefore;
  let heapAfter;
  try {
    const headers = await initialize(server.endpoint);
    for (let round = 0; round < 50; round += 1) {
      const before = cpuNs(server.pid);
      await (
        await fetch(server.endpoint, {
          method: 'POST',
          headers,
          body: JSON.stringify({ jsonrpc: '2.0', id: round, method: 'ping' }),
        })
      ).text();
      warm.pingCpu.push((cpuNs(server.pid) - before) / 1e6);
    }
    rssBefore = rssMiB(server.pid);
    if (server.inspectorPort) heapBefore = await isolateHeapMiB(server.inspectorPort);
    for (const query of queries) {
      const before = cpuNs(server.pid);
      const { elapsedMs: ms, answer } = await timeToolCall(server.endpoint, headers, 'search', { query });
      warm.cpu.push((cpuNs(server.pid) - before) / 1e6);
      warm.wall.push(ms);
      if (answer.error || answer.result?.isError) throw new Error(`${name}: ${JSON.stringify(answer).slice(0, 300)}`);
    }
    rssAfter = rssMiB(server.pid);
    if (server.inspectorPort) heapAfter = await isolateHeapMiB(server.inspectorPort, true);
  } finally {
    await server.close();
  }
  return { name, cold, warm, rssBefore, rssAfter, heapBefore, heapAfter };
}

let inspectorPort = 9400 + (process.pid % 500);
async function startWorkerd(tree, inspect, options = {}) {
  inspectorPort += 1;
  const site = await startWorkerdSite(tree, inspect ? { ...options, inspectorPort } : options);
  // miniflare runs workerd as a child of this process.
  return {
    endpoint: new URL('mcp', site.url).href,
    pid: childPid(process.pid, 'workerd'),
    close: site.close,
    inspectorPort: inspect ? inspectorPort : undefined,
  };
}

async function startServe(tree) {
  const child = spawn(process.execPath, [cliPath, 'serve', tree, '--http', '--port', '0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  const port = await new Promise((resolve, reject) => {
    child.stderr.on('data', (text) => {
      stderr += text;
      const match = /MCP endpoint: http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(stderr);
      if (match) resolve(Number(match[1]));
    });
    child.on('exit', () => reject(new Error(`serve exited: ${stderr}`)));
  });
  return {
    endpoint: `http://127.0.0.1:${port}/mcp`,
    pid: child.pid,
    close: () =>
      new Promise((resolve) => {
        child.removeAllListeners('exit');
        child.on('exit', resolve);
        child.kill();
      }),
  };
}

/** MiniSearch in a child process: index every document in memory, then the same queries. */
function measureMiniSearch(queries) {
  const folder = tempDir('search-query-minisearch-');
  writeFileSync(path.join(folder, 'queries.json'), JSON.stringify(queries));
  const script = `
import MiniSearch from 'minisearch';
import { readFileSync } from 'node:fs';
import { corpusDocuments } from ${JSON.stringify(path.join(repoRoot, 'bench/lib/search-query-tree.mjs'))};
const documents = corpusDocuments(${JSON.stringify(CORPUS)}, ${COUNT});
const rssBefore = process.memoryUsage().rss;
const started = performance.now();
const cpuStarted = process.cpuUsage();
const index = new MiniSearch({ fields: ['title', 'text'], storeFields: ['title', 'url'], idField: 'id' });
index.addAll(documents);
const indexCpu = process.cpuUsage(cpuStarted);
const indexMs = performance.now() - started;
documents.length = 0;
globalThis.gc?.();
const heapMiB = process.memoryUsage().heapUsed / 1048576;
const wall = [];
const cpu = [];
for (const query of JSON.parse(readFileSync(${JSON.stringify(path.join(folder, 'queries.json'))}, 'utf8'))) {
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  index.search(query).slice(0, 10);
  wall.push(performance.now() - wallBefore);
  const used = process.cpuUsage(cpuBefore);
  cpu.push((used.user + used.system) / 1000);
}
console.log(JSON.stringify({ indexMs, indexCpuMs: (indexCpu.user + indexCpu.system) / 1000, heapMiB, rssMiB: process.memoryUsage().rss / 1048576, rssGrowthMiB: (process.memoryUsage().rss - rssBefore) / 1048576, wall, cpu }));
`;
  writeFileSync(path.join(repoRoot, 'bench', '.search-query-minisearch.mjs'), script);
  try {
    const run = spawnSync(
      process.execPath,
      ['--expose-gc', '--max-old-space-size=16000', path.join(repoRoot, 'bench', '.search-query-minisearch.mjs')],
      { encoding: 'utf8', maxBuffer: 1 << 28, env: process.env },
    );
    if (run.status !== 0) throw new Error(`MiniSearch run failed: ${run.stderr.slice(-2000)}`);
    return JSON.parse(run.stdout);
  } finally {
    spawnSync('rm', ['-f', path.join(repoRoot, 'bench', '.search-query-minisearch.mjs')]);
  }
}

/** A tree built elsewhere, described as searchTree describes its own. */
function describeTree(tree) {
  const search = JSON.parse(readFileSync(path.join(tree, 'mcp.json'), 'utf8')).staticmcp.search;
  const folder = path.join(tree, 'packs', 'search.index');
  const entries = readdirSync(folder, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
  const bytes = (entry) => statSync(path.join(entry.parentPath, entry.name)).size;
  const table = entries.find((entry) => entry.name.endsWith('.table.json'));
  return {
    tree,
    files: entries.length,
    indexBytes: entries.reduce((sum, entry) => sum + bytes(entry), 0),
    tableBytes: table ? bytes(table) : JSON.stringify(search).length,
    tableInline: table === undefined,
    termIndexes: entries.filter((entry) => entry.parentPath.endsWith('terms') && entry.name.endsWith('.idx')).length,
  };
}

for (const termIndexBytes of TREE ? [undefined] : TERM_INDEX_SIZES) {
  const built = TREE ? describeTree(TREE) : await searchTree(CORPUS, COUNT, { targetTermIndexBytes: termIndexBytes });
  const { queries, coldQueries, documentCount } = await queriesOf(built.tree);
  console.log(
    `\n${TREE ?? CORPUS}: ${documentCount} documents, term indexes ${termIndexBytes === undefined ? 'as built' : `${termIndexBytes / 1024} KiB`}: ${built.files} index files, ${f(built.indexBytes / 1e6, 1)} MB; search table ${f(built.tableBytes / 1024, 1)} KiB ${built.tableInline ? 'in mcp.json' : 'in its own file'} (${built.termIndexes} term indexes)${built.buildMs === undefined ? '' : `; index written in ${f(built.buildMs / 1000, 1)} s`}`,
  );
  console.log(`${queries.length} warm queries, ${coldQueries.length} cold (new process each), e.g. "${queries[0]}"`);
  const results = [];
  if (SERVERS.includes('workerd'))
    results.push(
      await measureServer('workerd (_worker.js)', (inspect) => startWorkerd(built.tree, inspect), queries, coldQueries),
    );
  if (SERVERS.includes('workerd-files'))
    results.push(
      await measureServer(
        'workerd, native file service',
        (inspect) => startWorkerd(built.tree, inspect, { nativeFiles: true }),
        queries,
        coldQueries,
      ),
    );
  if (SERVERS.includes('serve'))
    results.push(await measureServer('serve --http', () => startServe(built.tree), queries, coldQueries));
  const mini = MINISEARCH && termIndexBytes === TERM_INDEX_SIZES[0] ? measureMiniSearch(queries) : undefined;
  for (const result of results) {
    const vsMini = mini ? ` (${f(median(result.warm.cpu) / median(mini.cpu), 1)}× MiniSearch's CPU p50)` : '';
    console.log(
      `${result.name}: cold search wall ${stats(result.cold.wall)} ms, CPU ${stats(result.cold.cpu)} ms (initialize CPU p50 ${f(median(result.cold.initCpu))} ms)`,
    );
    console.log(
      `${result.name}: warm search wall ${stats(result.warm.wall)} ms, CPU ${stats(result.warm.cpu)} ms${vsMini} (a ping: CPU p50 ${f(median(result.warm.pingCpu))} ms); ` +
        `two-word queries under 10 ms CPU: ${f((100 * result.warm.cpu.filter((ms) => ms < 10).length) / result.warm.cpu.length, 1)}%`,
    );
    console.log(
      `${result.name}: RSS ${f(result.rssBefore, 0)} MiB after initialize, ${f(result.rssAfter, 0)} MiB after ${queries.length} queries (+${f(result.rssAfter - result.rssBefore, 1)} MiB)` +
        (result.heapAfter === undefined
          ? ''
          : `; isolate memory ${f(result.heapBefore.heap + result.heapBefore.outside, 1)} → ${f(result.heapAfter.heap + result.heapAfter.outside, 1)} MiB (V8 heap in use ${f(result.heapBefore.heap, 1)} → ${f(result.heapAfter.heap, 1)}, ArrayBuffers and embedder ${f(result.heapBefore.outside, 1)} → ${f(result.heapAfter.outside, 1)}), ` +
            (result.heapAfter.collected
              ? `after a full collection ${f(result.heapAfter.collected.heap + result.heapAfter.collected.outside, 1)} MiB (heap ${f(result.heapAfter.collected.heap, 1)}, ArrayBuffers and embedder ${f(result.heapAfter.collected.outside, 1)})`
              : 'no full collection (the heap snapshot was not answered)')),
    );
  }
  if (mini) {
    console.log(
      `MiniSearch (whole index in memory): indexing ${f(mini.indexMs / 1000, 1)} s; heap ${f(mini.heapMiB, 0)} MiB, RSS ${f(mini.rssMiB, 0)} MiB; search wall ${stats(mini.wall)} ms, CPU ${stats(mini.cpu)} ms`,
    );
  }
}

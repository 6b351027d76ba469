// A cold search in workerd (issue #40): per run a new workerd (a new isolate: the site's first
// load, the first run of the request path's code and the index's first reads all fall on it),
// `initialize`, then one two-word search, whose CPU is the workerd process's on-CPU time over that
// request
// (process-cpu.mjs), as bench/search-query.mjs measures it, and the part of it on the main thread
// (the isolate's, which also runs the asset side here) beside V8's background threads (compiles
// of code that got hot, GC); with workerd's native file service
// behind a Range-dropping worker (files) and with miniflare's asset router and asset worker
// (assets, JavaScript in the same process: an outer bound, bench/edge-asset-read.mjs), side by
// side, on the same queries. The tree is the search benches' (search-query-tree.mjs).
// workerd compiles and evaluates the worker's module when it starts, before miniflare is ready:
// that is in neither figure, so it is printed apart, as the process's CPU until ready (workerd's
// own start and miniflare's workers included: compare with another bundle in the same run).
// INITIALIZE=0 sends the search first, as a stateless host's new isolate may get it: the site's
// load (mcp.json, the tree, the handler) and the request path's first run fall on the search then.
// WORKERS=<a>,<b>,… runs each bundle on every query, alternating (old and new in one run, the order
// reversed every other query: a, b, b, a, …): a path to
// a _worker.js (e.g. an earlier build's), `dist` (this build's), or the floor (floor-workers.mjs):
// `trivial` (a fixed answer, workerd's own cost) and `imports` (dist's bundle evaluated, unused).
// Run: npm run build && CORPUS=wiki COUNT=6000 node bench/search-cold-edge.mjs   (RUNS=10;
//   TREE=<built tree> measures that one, TREES=<a>,<b>,… one per worker of WORKERS (an index
//   layout and the reader that wrote it); SERVERS=files,assets; WORKER=<a _worker.js> is WORKERS of one;
//   the floor: WORKERS=trivial,imports,dist SERVERS=files; QUERY=qqqqzzzzxxxx asks a word the
//   index lacks every run instead of two-word queries)
import { readFileSync } from 'node:fs';
import { twoWordQueries } from './lib/cold-search.mjs';
import { median } from './lib/common.mjs';
import { startWorkerdSite, workerBundle } from './lib/edge-lib.mjs';
import { importOnlyWorker, trivialWorker } from './lib/floor-workers.mjs';
import { HEADERS, initialize, timeToolCall } from './lib/mcp-http-client.mjs';
import { childPid, cpuNs, cpuNsByThread } from './lib/process-cpu.mjs';
import { searchTree } from './lib/search-query-tree.mjs';

const CORPUS = process.env.CORPUS ?? 'wiki';
const COUNT = Number(process.env.COUNT ?? 6000);
const RUNS = Number(process.env.RUNS ?? 10);
const SERVERS = (process.env.SERVERS ?? 'files,assets').split(',');
const WORKERS = (process.env.WORKERS ?? process.env.WORKER ?? 'dist').split(',');

/** A worker's module source by its name in WORKERS. */
function workerSource(name) {
  if (name === 'trivial') return trivialWorker;
  if (name === 'imports') return importOnlyWorker(readFileSync(workerBundle, 'utf8'));
  return readFileSync(name === 'dist' ? workerBundle : name, 'utf8');
}
const sources = WORKERS.map(workerSource);
const INITIALIZE = process.env.INITIALIZE !== '0';

const tree = process.env.TREE ?? (process.env.TREES ? undefined : (await searchTree(CORPUS, COUNT)).tree);
const trees = WORKERS.map((_, index) => process.env.TREES?.split(',')[index] ?? tree);
const queries = twoWordQueries(CORPUS, COUNT, RUNS);

const f = (value) => value.toFixed(1);
console.log(
  `${process.env.TREE ?? `${CORPUS}, ${COUNT} documents`}: ${RUNS} cold two-word searches in workerd` +
    (INITIALIZE ? '' : ", each the isolate's first request"),
);
for (const server of SERVERS) {
  const runs = WORKERS.map(() => ({ cpu: [], mainThread: [], init: [], startup: [], failed: 0 }));
  for (const [round, query] of queries.entries()) {
    const order = [...sources.keys()];
    if (round % 2 === 1) order.reverse();
    for (const index of order) {
      const workerScript = sources[index];
      const run = runs[index];
      const site = await startWorkerdSite(trees[index], { nativeFiles: server === 'files', workerScript });
      try {
        const endpoint = new URL('mcp', site.url).href;
        const pid = childPid(process.pid, 'workerd');
        const before = cpuNs(pid);
        run.startup.push(before / 1e6);
        const headers = INITIALIZE ? await initialize(endpoint) : HEADERS;
        run.init.push((cpuNs(pid) - before) / 1e6);
        const threadsBefore = cpuNsByThread(pid);
        const { answer } = await timeToolCall(endpoint, headers, 'search', { query });
        const threadsAfter = cpuNsByThread(pid);
        run.mainThread.push((threadsAfter.main - threadsBefore.main) / 1e6);
        run.cpu.push((threadsAfter.main + threadsAfter.others - threadsBefore.main - threadsBefore.others) / 1e6);
        if (answer.error || answer.result?.isError) throw new Error(JSON.stringify(answer).slice(0, 300));
      } catch (error) {
        run.failed += 1;
        console.error(`${server} ${WORKERS[index]}: "${query}" failed: ${error.message}`);
      } finally {
        await site.close();
      }
    }
  }
  for (const [index, { cpu, mainThread, init, startup, failed }] of runs.entries()) {
    const sorted = [...cpu].sort((a, b) => a - b);
    console.log(
      `${server === 'files' ? 'native file service' : 'miniflare asset worker'}` +
        `${WORKERS.length > 1 ? ` [${WORKERS[index]}]` : ''}: cold search CPU p50 ${f(median(cpu))} ms, ` +
        `min ${f(sorted[0])} max ${f(sorted.at(-1))}, main thread p50 ${f(median(mainThread))} ms (` +
        (INITIALIZE ? `initialize p50 ${f(median(init))} ms; ` : '') +
        `startup before any request p50 ${f(median(startup))} ms)${failed ? `; ${failed} failed` : ''}`,
    );
  }
  // Each query's difference from the first bundle's (the same query, run next to it): the pairs
  // move together with the load, so their median says more than two p50s.
  for (const [index, { cpu }] of runs.entries()) {
    if (index === 0 || cpu.length !== runs[0].cpu.length) continue;
    const differences = cpu.map((ms, round) => ms - runs[0].cpu[round]).sort((a, b) => a - b);
    console.log(
      `  [${WORKERS[index]}] - [${WORKERS[0]}] per query: p50 ${f(median(differences))} ms [${differences.map(f).join(' ')}]`,
    );
  }
}
const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
console.log(`load ${load}`);

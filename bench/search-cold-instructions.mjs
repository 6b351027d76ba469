// A cold search counted in instructions (issue #40), which a loaded machine does not move: the
// CPU figures of search-cold-edge.mjs vary by ±10 ms at load 15-30, more than most changes to the
// query path, while two runs of this one agree to ~1% (the module and `initialize` to 0.1%; the GC
// part moves most, ~10%, as collections fall at other points). Per query and bundle, the edge worker's
// bundle runs in a new Node process under valgrind's callgrind (bench/lib/cold-search-instructions-
// child.mjs: ASSETS reads the tree's files whole, as the Workers binding does; `initialize`, then
// one two-word search, then one of two other words), and the instructions of each phase are
// counted: the worker's module (compile and evaluation), `initialize`, the search, and the later
// search (its reads as cold, its code no longer run for the first time: the same words cost that
// much less once the code has run, RUNS > 1), and of the search what V8's lazy compiles
// (first-run code parsed and compiled), garbage collections, regexp compiles and SHA-256 (the
// whole packs the reader checks by their names) took, inclusive, so the parts overlap a little.
// Node is not workerd: its Response and streams are JavaScript (their first run is kept out of
// the search), and it is V8 of another version; use it to compare bundles in one run, and
// search-cold-edge.mjs for what workerd spends.
// Run: npm run build && CORPUS=wiki COUNT=6000 node bench/search-cold-instructions.mjs   (RUNS=3
//   queries; WORKERS=<a.js>,<b.js> compares bundles, e.g. an earlier build's; TREE=<built tree>;
//   QUERY=<text> asks that query every run, e.g. a word the index lacks; TREES=<a>,<b> one tree
//   per bundle, for an index layout and the reader that wrote it)
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { twoWordQueries } from './lib/cold-search.mjs';
import { median, repoRoot } from './lib/common.mjs';
import { searchTree } from './lib/search-query-tree.mjs';

const CORPUS = process.env.CORPUS ?? 'wiki';
const COUNT = Number(process.env.COUNT ?? 6000);
const RUNS = Number(process.env.RUNS ?? 3);
const WORKERS = (process.env.WORKERS ?? path.join(repoRoot, 'dist/edge/_worker.js')).split(',');
const CHILD = path.join(repoRoot, 'bench/lib/cold-search-instructions-child.mjs');

if (spawnSync('valgrind', ['--version']).status !== 0) {
  console.log('search-cold-instructions: valgrind is not installed (apt-get install valgrind); skipped');
  process.exit(0);
}

/** Inclusive instructions of the functions a part names, in one callgrind dump. */
const PARTS = {
  'lazy compile': /^v8::internal::Runtime_CompileLazy\(/,
  GC: /^v8::internal::Heap::CollectGarbage\(/,
  'regexp compile': /^v8::internal::RegExpImpl::CompileIrregexp\(/,
  'SHA-256': /^sha256_block_data_order/,
};

function totalOf(dump) {
  return Number(/^summary: (\d+)$/m.exec(readFileSync(dump, 'utf8'))?.[1]);
}

function partsOf(dump) {
  const annotated = spawnSync('callgrind_annotate', ['--inclusive=yes', '--threshold=100', dump], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  }).stdout;
  const parts = {};
  for (const [name, pattern] of Object.entries(PARTS)) {
    let most = 0;
    for (const line of annotated.split('\n')) {
      const match = /^\s*([\d,]+) \([^)]*\)\s+\?\?\?:(.*)$/.exec(line);
      if (match && pattern.test(match[2])) most = Math.max(most, Number(match[1].replaceAll(',', '')));
    }
    parts[name] = most;
  }
  return parts;
}

/** One cold search of `query` by `worker`'s bundle: instructions per phase, and the search's parts. */
function countOnce(worker, tree, query, laterQuery) {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'staticmcp-cold-instructions-'));
  try {
    // As an ES module by its name wherever it lies: a .js outside a "type": "module" package is
    // parsed as CommonJS first, then again (a third more instructions for the module and search).
    const module = path.join(folder, 'worker.mjs');
    copyFileSync(worker, module);
    const run = spawnSync(
      'valgrind',
      [
        '--tool=callgrind',
        '--dump-before=uv_os_getpriority',
        `--callgrind-out-file=${path.join(folder, 'cg.out')}`,
        process.execPath,
        '--single-threaded',
        CHILD,
        module,
        tree,
        query,
        laterQuery,
      ],
      { encoding: 'utf8', maxBuffer: 1 << 26 },
    );
    if (run.status !== 0) throw new Error(`${query}: ${run.stderr.split('\n').slice(-5).join('\n')}`);
    // Dumps: .1 Node's start and first reads, .2 the worker's module, .3 initialize, .4 the search,
    // .5 the later search.
    const dump = (part) => path.join(folder, `cg.out.${part}`);
    if (readdirSync(folder).length < 6) throw new Error(`${query}: callgrind wrote no dump per phase`);
    return {
      module: totalOf(dump(2)),
      initialize: totalOf(dump(3)),
      search: totalOf(dump(4)),
      later: totalOf(dump(5)),
      parts: partsOf(dump(4)),
    };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

const tree = process.env.TREE ?? (process.env.TREES ? undefined : (await searchTree(CORPUS, COUNT)).tree);
const trees = WORKERS.map((_, position) => process.env.TREES?.split(',')[position] ?? tree);
const queries = twoWordQueries(CORPUS, COUNT, RUNS);
const millions = (count) => (count / 1e6).toFixed(2);
console.log(
  `${process.env.TREE ?? `${CORPUS}, ${COUNT} documents`}: ${RUNS} cold two-word searches, the worker in Node under callgrind (instructions, millions, p50)`,
);
const results = WORKERS.map(() => []);
// Bundles take turns on each query.
// Each query's later search is the next query's words, the last one's the first's: over the runs,
// the later searches ask the same words as the first searches, only with code that has run.
for (const [run, query] of queries.entries()) {
  for (const [position, worker] of WORKERS.entries())
    results[position].push(countOnce(worker, trees[position], query, queries[(run + 1) % RUNS]));
}
const baseline = median(results[0].map((run) => run.search));
for (const [position, worker] of WORKERS.entries()) {
  const runs = results[position];
  const search = median(runs.map((run) => run.search));
  const sum = (key) => runs.reduce((total, run) => total + run[key], 0);
  const parts = Object.keys(PARTS)
    .map((name) => `${name} ${millions(median(runs.map((run) => run.parts[name])))}`)
    .join(', ');
  console.log(
    `${position}:${path.basename(worker)}: search ${millions(search)}` +
      (position > 0 ? ` (${(search / baseline).toFixed(3)}× bundle 0)` : '') +
      ` [${parts}]; ` +
      (RUNS > 1 ? `the same words searched later cost ${(sum('later') / sum('search')).toFixed(2)}× as much; ` : '') +
      `module ${millions(median(runs.map((run) => run.module)))}, initialize ${millions(median(runs.map((run) => run.initialize)))}`,
  );
}

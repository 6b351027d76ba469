// Where a cold search's CPU goes in workerd, by steps (issue #40): per run a new workerd,
// `initialize`, then ONE search of a kind, the kinds taking turns: `none` (punctuation only: the
// request path and the tool's first run, no index read), `absent` (a word the index lacks: the
// table and one term index too), `one` (one word of the corpus: its postings, title blocks and
// excerpts), `two` (two words, as search-cold-edge.mjs). The differences between kinds say what
// each step of a cold query costs the workerd process (native file service, Range dropped).
// WORKERS=<a.js>,<b.js> takes turns between bundles too (a before/after in one run); SERVERS=
// files,assets between workerd's native file service and miniflare's asset worker (an outer bound).
// Run: npm run build && CORPUS=wiki COUNT=6000 node bench/search-cold-steps.mjs   (RUNS=6 per kind;
//   TREE=; KINDS=none,absent,one,two; TREES=<a>,<b> one tree per bundle)
import { readFileSync } from 'node:fs';
import { median, repoRoot } from './lib/common.mjs';
import { coldSearchCpuMs } from './lib/cold-search.mjs';
import { workerBundle } from './lib/edge-lib.mjs';
import { seededRandom } from './lib/search-query-corpus.mjs';
import { queryDocuments, searchTree } from './lib/search-query-tree.mjs';

const { tokenize } = await import(`${repoRoot}/dist/core/search/tokenize.js`);
const CORPUS = process.env.CORPUS ?? 'wiki';
const COUNT = Number(process.env.COUNT ?? 6000);
const RUNS = Number(process.env.RUNS ?? 6);
const KINDS = (process.env.KINDS ?? 'none,absent,one,two').split(',');
const SERVERS = (process.env.SERVERS ?? 'files').split(',');
const workers = (process.env.WORKERS ?? workerBundle).split(',');
const defaultTree = process.env.TREE ?? (await searchTree(CORPUS, COUNT)).tree;
const trees = process.env.TREES ? process.env.TREES.split(',') : workers.map(() => defaultTree);

const random = seededRandom(42);
const documents = queryDocuments(CORPUS, COUNT);
function words(count) {
  for (;;) {
    const terms = [...new Set(tokenize(documents[Math.floor(random() * documents.length)].text))];
    const picked = new Set(Array.from({ length: count }, () => terms[Math.floor(random() * terms.length)]));
    if (picked.size === count) return [...picked].join(' ');
  }
}
const queryOf = { none: () => '!!! ???', absent: () => 'qqqqzzzzxxxx', one: () => words(1), two: () => words(2) };

const cpu = new Map();
for (let run = 0; run < RUNS; run += 1)
  for (const kind of KINDS) {
    const query = queryOf[kind]();
    for (const server of SERVERS)
      for (const [which, worker] of workers.entries()) {
        // Keyed by position too: two builds' bundles are both named _worker.js.
        const key = `${which}:${worker.split('/').at(-1)} ${server} ${kind}`;
        cpu.set(key, [
          ...(cpu.get(key) ?? []),
          await coldSearchCpuMs(
            trees[which],
            { nativeFiles: server === 'files', workerScript: readFileSync(worker, 'utf8') },
            query,
          ),
        ]);
      }
  }
for (const [key, values] of cpu)
  console.log(`${key}: cold search CPU p50 ${median(values).toFixed(1)} ms (min ${Math.min(...values).toFixed(1)})`);

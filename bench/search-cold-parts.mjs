// Which part of a cold search costs what in workerd (issue #40), by cutting the query short: the
// worker is bundled again from src/ with its search reader stopped at a point (the source edited
// as esbuild loads it, a bench-only bundle), and each cut bundle takes turns with the whole one
// on the same queries, each run in a new workerd (`initialize`, then one two-word search, the
// process's CPU over the search, as search-cold-edge.mjs). The differences between neighbours
// are the parts: `postings` (the request, the table, the term lookups and postings) →
// `ranked` (+ BM25, the count, the excerpt matcher) → `titles` (+ the title blocks: their index
// and packs) → `whole` (+ the excerpt sources and excerpts). A sampling profile (search-cold-
// profile.mjs) attributes badly on a loaded machine; these are CPU differences.
// Run: npm run build && CORPUS=wiki COUNT=6000 node bench/search-cold-parts.mjs   (RUNS=8;
//   TREE=<built tree>; SERVER=files|assets)
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { coldSearchCpuMs, twoWordQueries } from './lib/cold-search.mjs';
import { median, repoRoot, tempDir } from './lib/common.mjs';
import { workerBundle } from './lib/edge-lib.mjs';
import { searchTree } from './lib/search-query-tree.mjs';

const CORPUS = process.env.CORPUS ?? 'wiki';
const COUNT = Number(process.env.COUNT ?? 6000);
const RUNS = Number(process.env.RUNS ?? 8);
const SERVER = process.env.SERVER ?? 'files';

/** Per cut, the reader's source text to find and what it becomes (an early return). */
const CUTS = {
  postings: [
    '      let found = keys.flatMap(',
    "      if (lists.length >= 0) return { status: 'ok', hits: [], total: 0 };\n      let found = keys.flatMap(",
  ],
  ranked: [
    '    const blockSize = this.counts.blockSize;\n    const blockNumbers',
    "    if (best.length >= 0) return best.map((scored) => ({ id: String(scored.document), title: '', url: '' }));\n    const blockSize = this.counts.blockSize;\n    const blockNumbers",
  ],
  titles: [
    'const texts = await readExcerptTexts(reads.packs, table, this.counts.format, best, this.options, blocks);',
    'const texts: undefined[] = best.map(() => undefined); void readExcerptTexts;',
  ],
};

/** The worker bundled from src/ with the search reader cut at `cut`. */
async function cutBundle(cut, outDir) {
  const [find, replace] = CUTS[cut];
  const readerFile = path.join(repoRoot, 'src/core/search/search-reader.ts');
  const outfile = path.join(outDir, `${cut}.js`);
  await build({
    absWorkingDir: repoRoot,
    entryPoints: ['src/hosts/edge/worker.ts'],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    mainFields: ['module', 'main'],
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: 'warning',
    plugins: [
      {
        name: 'cut-search-reader',
        setup(pluginBuild) {
          pluginBuild.onLoad({ filter: /search-reader\.ts$/ }, (args) => {
            const text = readFileSync(args.path, 'utf8');
            if (args.path !== readerFile || !text.includes(find))
              throw new Error(`cut ${cut}: its anchor is not in ${args.path}; update CUTS`);
            return { contents: text.replace(find, replace), loader: 'ts' };
          });
        },
      },
    ],
  });
  return readFileSync(outfile, 'utf8');
}

const outDir = tempDir('search-cold-parts-');
const bundles = { whole: readFileSync(workerBundle, 'utf8') };
for (const cut of Object.keys(CUTS)) bundles[cut] = await cutBundle(cut, outDir);

const tree = process.env.TREE ?? (await searchTree(CORPUS, COUNT)).tree;
const queries = twoWordQueries(CORPUS, COUNT, RUNS);

const cpu = Object.fromEntries(Object.keys(bundles).map((name) => [name, []]));
for (const query of queries)
  for (const [name, workerScript] of Object.entries(bundles)) {
    cpu[name].push(await coldSearchCpuMs(tree, { nativeFiles: SERVER === 'files', workerScript }, query));
  }

const f = (value) => value.toFixed(1);
const order = ['postings', 'ranked', 'titles', 'whole'];
console.log(`${process.env.TREE ?? `${CORPUS}, ${COUNT} documents`}: ${RUNS} cold two-word searches, ${SERVER}`);
order.forEach((name, position) => {
  const previous = order[position - 1];
  // The part is the median of each query's difference: the same query ran under both bundles.
  const part = previous === undefined ? cpu[name] : cpu[name].map((ms, run) => ms - cpu[previous][run]);
  console.log(
    `${name.padEnd(8)} cold search CPU p50 ${f(median(cpu[name]))} ms; ` +
      `${previous === undefined ? 'up to its postings' : `its part beyond ${previous}`} p50 ${f(median(part))} ms`,
  );
});

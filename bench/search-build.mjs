// What the search index costs the build (issue #25), per corpus (search-corpora.mjs: Debian's
// package descriptions, and the generated Wikipedia-shaped corpus), each variant in a child
// process of its own (peak RSS is process.resourceUsage().maxRSS, the child's alone):
//   - plain: the corpus's tree as `staticmcp build` writes it (one tool, one call per document,
//     packed past the default call-file budget) without search: the baseline;
//   - search: the same tree with `search.tools` indexing every call: the index's time is the
//     difference, and its share of the build, with the peak RSS of both;
//   - MiniSearch (minisearch ^7) indexing the same documents in memory (title and text, the
//     title stored): its add time, peak RSS, and its index as JSON (what a static site ships).
// Then index size vs raw text, and files added. Same-run ratios: every variant runs here, now.
//   npm run build && node bench/search-build.mjs
// BENCH_CORPORA=debian,wiki  BENCH_WIKI_DOCS=650000  BENCH_DEBIAN_DOCS (all)  BENCH_MINISEARCH_DOCS
// (the most documents MiniSearch gets per corpus, default 65,000: at 650,000 it runs for hours
// on these machines; its figures are then for that many, said in the table).
// BENCH_KEEP_TREE=<folder>: the search variant's tree is written there and kept (search-query.mjs
// then measures queries on it: TREE=<folder>/tree), so the 650,000-document index is built once.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from './lib/common.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const corpora = (process.env.BENCH_CORPORA ?? 'debian,wiki').split(',').filter(Boolean);
const sizes = {
  debian: Number(process.env.BENCH_DEBIAN_DOCS ?? 1_000_000),
  wiki: Number(process.env.BENCH_WIKI_DOCS ?? 650_000),
};
const miniSearchDocs = Number(process.env.BENCH_MINISEARCH_DOCS ?? 65_000);

function child(script, args) {
  const startedAt = performance.now();
  const result = spawnSync(process.execPath, ['--max-old-space-size=16384', path.join(here, 'lib', script), ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  const wallMs = performance.now() - startedAt;
  if (result.status !== 0)
    return {
      failure: `${script} exited ${result.status ?? result.signal}: ${result.stderr.trim().slice(-400)}`,
      wallMs,
    };
  return { ...JSON.parse(result.stdout.trim().split('\n').at(-1)), wallMs };
}

const mb = (bytes) => (bytes / 1e6).toFixed(1);
const rows = [];
for (const corpus of corpora) {
  const root = tempDir(`search-build-${corpus}-`);
  const count = sizes[corpus];
  const plain = child('write-search-tree.mjs', [corpus, String(count), path.join(root, 'plain'), 'plain']);
  console.error(`${corpus} plain: ${JSON.stringify(plain)}`);
  const searchFolder = process.env.BENCH_KEEP_TREE ?? path.join(root, 'search');
  const search = child('write-search-tree.mjs', [corpus, String(count), searchFolder, 'search']);
  console.error(`${corpus} search: ${JSON.stringify(search)}`);
  const mini = child('minisearch-index.mjs', [corpus, String(Math.min(count, miniSearchDocs))]);
  console.error(`${corpus} minisearch: ${JSON.stringify(mini)}`);
  rows.push({ corpus, plain, search, mini });
}

for (const { corpus, plain, search, mini } of rows) {
  console.log(`\n## ${corpus}: ${search.documents ?? plain.documents} documents`);
  if (plain.failure || search.failure) {
    console.log(`failed: ${plain.failure ?? ''} ${search.failure ?? ''}`);
    continue;
  }
  const indexMs = search.ms - plain.ms;
  const indexCpuMs = search.cpuMs - plain.cpuMs;
  const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
  console.log('| variant | wall | CPU | peak RSS | bytes | files |');
  console.log('|---|---|---|---|---|---|');
  console.log(
    `| build without search | ${seconds(plain.ms)} | ${seconds(plain.cpuMs)} | ${plain.peakRssMb.toFixed(0)} MiB | ${mb(plain.bytes)} MB | ${plain.files} |`,
  );
  console.log(
    `| build with search | ${seconds(search.ms)} (${(search.ms / plain.ms).toFixed(2)}×) | ${seconds(search.cpuMs)} (${(search.cpuMs / plain.cpuMs).toFixed(2)}×) | ${search.peakRssMb.toFixed(0)} MiB (${(search.peakRssMb / plain.peakRssMb).toFixed(2)}×) | ${mb(search.bytes)} MB | ${search.files} |`,
  );
  console.log(
    `| the index (difference) | ${seconds(indexMs)} | ${seconds(indexCpuMs)} (${((100 * indexCpuMs) / search.cpuMs).toFixed(0)}% of the build's CPU) | ${(search.peakRssMb - plain.peakRssMb).toFixed(0)} MiB | ${mb(search.searchBytes)} MB | +${search.files - plain.files} (${search.searchFiles} below packs/search.index) |`,
  );
  if (mini.failure) console.log(`| MiniSearch | failed: ${mini.failure} | | | | |`);
  else {
    const scaled = mini.documents === search.documents ? '' : ` (${mini.documents} documents only)`;
    const perDocument = (mini.indexCpuMs / mini.documents / (indexCpuMs / search.documents)).toFixed(2);
    console.log(
      `| MiniSearch in memory${scaled} | ${seconds(mini.indexMs)} | ${seconds(mini.indexCpuMs)} (${perDocument}× our index's per document) | ${mini.peakRssMb.toFixed(0)} MiB (${mini.rssAfterIndexMb.toFixed(0)} after adding) | JSON ${mini.jsonBytes === undefined ? mini.failure : `${mb(mini.jsonBytes)} MB`} | 1 |`,
    );
    const rawPerDoc = mini.rawBytes / mini.documents;
    const raw = rawPerDoc * search.documents;
    console.log(
      `raw text ≈ ${mb(raw)} MB (${rawPerDoc.toFixed(0)} bytes per document${scaled ? ', from the MiniSearch sample' : ''}); our index ${(search.searchBytes / raw).toFixed(2)}× the raw text${mini.jsonBytes ? `, MiniSearch's JSON ${(mini.jsonBytes / mini.rawBytes).toFixed(2)}× its raw text` : ''}`,
    );
  }
  console.log(`warnings of the search build: ${JSON.stringify(search.warnings)}`);
}

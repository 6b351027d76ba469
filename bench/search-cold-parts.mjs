// Which part of a cold search costs what in workerd (issue #40), by cutting the query short: the
// worker is bundled again (scripts/bundle-edge-worker.mjs, as the build does) with the search
// reader's source edited to return early at a step (a bench-only bundle), and every bundle takes
// turns on the same queries, each run in a new workerd (`initialize`, then one search, the
// process's CPU over the search, as search-cold-edge.mjs). The steps, each one adding to the one
// before; the differences between neighbours are the parts:
//   request   the request, its JSON-RPC and the query's words (no read)
//   termPacks + each key's term pack read whole (a word and its stem: up to four for two words)
//   termRecords + each key's record found in its pack and checked (CRC, or the pack's hash)
//   postings  + each key's postings decoded (a query of missing words stops here)
//   ranked    + the common-term check, BM25 ranking and the total
//   titleRows + the token matcher and the title pack rows' file
//   titlePacks+ the title packs read and each block's record found (its text not parsed)
//   titles    + the title blocks parsed: the page's ids, titles and urls
//   sources   + each result's excerpt source record placed and read (not inflated)
//   inflated  + the sources inflated (no excerpt cut)
//   whole     + the excerpts: the answer a user gets
// Each cut names the source text it replaces: when the code moves, the bench stops and says which
// anchor is gone (a sampling profile, search-cold-profile.mjs, attributes badly on a loaded machine).
// Run: npm run build && CORPUS=wiki COUNT=6000 node bench/search-cold-parts.mjs   (RUNS=8;
//   TREE=<built tree>; SERVER=files|assets; QUERY=<text> for one query RUNS times; UPTO=<step>)
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { bundleEdgeWorker } from '../scripts/bundle-edge-worker.mjs';
import { coldSearchCpuMs, twoWordQueries } from './lib/cold-search.mjs';
import { median, repoRoot, tempDir } from './lib/common.mjs';
import { searchTree } from './lib/search-query-tree.mjs';

const CORPUS = process.env.CORPUS ?? 'wiki';
const COUNT = Number(process.env.COUNT ?? 6000);
const RUNS = Number(process.env.RUNS ?? 8);
const SERVER = process.env.SERVER ?? 'files';

const READER = 'src/core/search/search-reader.ts';
const HITS = 'src/core/search/search-hits.ts';
const EXCERPTS = 'src/core/search/result-excerpts.ts';
const EMPTY = "{ status: 'ok', hits: [], total: 0 }";
const BARE_HITS = 'best.map((scored) => ({ id: String(scored.document), title: "", url: "" }))';

/** One edit of a cut: in `file`, the text `find` (exactly once) becomes `replace`. */
const edit = (file, find, replace) => ({ file, find, replace });
/** Returns before `find`. */
const before = (file, find, early) => edit(file, find, `${early}\n${find}`);

/** Returns once every key's postings are read (the steps up to `postings` stop there too). */
const STOP_AFTER_POSTINGS = before(
  READER,
  '    let found = keys.flatMap((term, position) => {',
  `    if (lists.length >= 0) return ${EMPTY};`,
);

/** The reader's edits that stop it after each step (in the order of the steps). */
const STEPS = {
  request: [
    before(READER, '      const lists = await Promise.all(keys.map(', `      if (keys.length >= 0) return ${EMPTY};`),
  ],
  // Each key's term pack read whole and nothing looked for in it (a key whose pack is over 512 KiB,
  // found through the table and the term index, is looked up in full here already).
  termPacks: [
    edit(
      READER,
      "    const wholePack = wholePackOf(reads.files, termPacks, 'terms', key);",
      "    const wholePack = wholePackOf(reads.files, termPacks, 'terms', key);\n    if (typeof wholePack === 'string' && (await reads.files.readBytes(wholePack))) return null;",
    ),
    STOP_AFTER_POSTINGS,
  ],
  // + each key's record found in its pack and checked (its CRC, or the pack's hash), not decoded.
  termRecords: [
    edit(
      READER,
      '    const list = decodePostingsOnce(found.body, this.counts, this.counts.format);',
      '    if (found.body.length >= 0) return null;\n    const list = decodePostingsOnce(found.body, this.counts, this.counts.format);',
    ),
    STOP_AFTER_POSTINGS,
  ],
  postings: [STOP_AFTER_POSTINGS],
  ranked: [
    before(
      READER,
      '    const matcher = tokenMatcherOf(parsed, stemming);',
      `    if (best.length >= 0) return { status: 'ok', hits: ${BARE_HITS}, total };`,
    ),
  ],
  titleRows: [
    before(HITS, '  const blockNumbers = [...new Set(best.map(', `  if (best.length >= 0) return ${BARE_HITS};`),
  ],
  // Its blocks' entries are blank, so it stops where `titles` stops too: nothing reads them.
  titlePacks: [
    edit(
      HITS,
      '  const text = textOfBody(found.body);\n  const entries = parseTitleBlock(text, count, counts.format);',
      '  const text = "";\n  const entries = Array.from({ length: count }, () => ({ id: "", title: "", url: "" }));',
    ),
    before(
      HITS,
      '  const texts = await readExcerptTexts(',
      '  if (entries.length >= 0) return entries.map((entry) => ({ id: entry.id, title: entry.title, url: entry.url }));',
    ),
  ],
  titles: [
    before(
      HITS,
      '  const texts = await readExcerptTexts(',
      '  if (entries.length >= 0) return entries.map((entry) => ({ id: entry.id, title: entry.title, url: entry.url }));',
    ),
  ],
  sources: [
    before(
      EXCERPTS,
      '  const sources = await inflateExcerptSources(',
      '  if (present.length >= 0) return found.map(() => undefined);',
    ),
  ],
  inflated: [edit(HITS, ': excerptOf(text.text, matchOf, termCount, text.goesOn);', ': undefined;')],
};
const STEP_NAMES = [...Object.keys(STEPS), 'whole'];
// UPTO=<step> measures the steps up to that one only (a 650,000-document run of every step is long).
const ORDER = STEP_NAMES.slice(0, STEP_NAMES.indexOf(process.env.UPTO ?? 'whole') + 1);
if (ORDER.length === 0) throw new Error(`UPTO=${process.env.UPTO}: no such step; one of ${STEP_NAMES.join(', ')}`);

/** The worker bundled as the build bundles it, with the step's edits made to our sources as esbuild loads them. */
async function cutBundle(step, outDir) {
  const edits = STEPS[step] ?? [];
  const made = new Set();
  const editSource = (file, text) => {
    let edited = text;
    for (const [index, { file: wanted, find, replace }] of edits.entries()) {
      if (path.resolve(repoRoot, wanted) !== file) continue;
      const at = edited.indexOf(find);
      if (at < 0 || edited.indexOf(find, at + 1) >= 0)
        throw new Error(`cut ${step}: its anchor ${JSON.stringify(find)} is not once in ${wanted}; update STEPS`);
      edited = edited.slice(0, at) + replace + edited.slice(at + find.length);
      made.add(index);
    }
    return edited;
  };
  const stepDir = path.join(outDir, step);
  const outfile = await bundleEdgeWorker(stepDir, { editSource });
  const missed = edits.filter((_, index) => !made.has(index));
  if (missed.length > 0)
    throw new Error(`cut ${step}: the bundle never loaded ${missed.map((one) => one.file).join(', ')}; update STEPS`);
  return readFileSync(outfile, 'utf8');
}

const outDir = tempDir('search-cold-parts-');
const bundles = {};
for (const step of ORDER) bundles[step] = await cutBundle(step, outDir);

const tree = process.env.TREE ?? (await searchTree(CORPUS, COUNT)).tree;
const queries = twoWordQueries(CORPUS, COUNT, RUNS);

const cpu = Object.fromEntries(ORDER.map((step) => [step, []]));
for (const [run, query] of queries.entries()) {
  // Alternating the order run by run, so a step is not always measured just after the same one.
  const steps = run % 2 === 0 ? ORDER : [...ORDER].reverse();
  for (const step of steps)
    cpu[step].push(
      await coldSearchCpuMs(tree, { nativeFiles: SERVER === 'files', workerScript: bundles[step] }, query),
    );
}

const f = (value) => value.toFixed(1);
const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
console.log(
  `${process.env.TREE ?? `${CORPUS}, ${COUNT} documents`}: ${RUNS} cold searches (${process.env.QUERY === undefined ? 'two words' : JSON.stringify(process.env.QUERY)}), ${SERVER}; load ${load}`,
);
ORDER.forEach((step, position) => {
  const previous = ORDER[position - 1];
  // The part is the median of each query's difference: the same query ran under both bundles.
  const part = previous === undefined ? cpu[step] : cpu[step].map((ms, run) => ms - cpu[previous][run]);
  const parts =
    previous === undefined
      ? ''
      : ` [${[...part]
          .sort((a, b) => a - b)
          .map(f)
          .join(' ')}]`;
  console.log(
    `${step.padEnd(10)} cold search CPU p50 ${f(median(cpu[step]))} ms; ` +
      `${previous === undefined ? 'the whole of it' : `its part beyond ${previous}`} p50 ${f(median(part))} ms${parts}`,
  );
});

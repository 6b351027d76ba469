// Search 2 (issue #40) against SQLite FTS5 on corpora nobody tuned on: the machine's man pages
// rendered to text (groff) and the Markdown files of node_modules. For each corpus, in one run:
//   - before: the format 5 writer of the commit this bench names (BEFORE, default the commit
//     before format 6), bundled from `git archive`: index bytes ÷ raw text, build CPU;
//   - after: format 6 with Porter stems (the default) and without (search.stemming false): the
//     same figures, and the build CPU as a ratio to before's;
//   - ranking: QUERIES two-word queries (two ASCII words of a random document, as typed), our top
//     10 against FTS5's bm25() over the same raw text: the porter index against
//     tokenize='porter unicode61 remove_diacritics 2', the unstemmed one against 'unicode61
//     remove_diacritics 2' (overlap@10: shared results ÷ the longer list);
//   - query CPU p50/p99 (warm reader, folder packs), with and without excerpts' cost (after only).
// Run: node bench/search-overlap.mjs   (MAN=1200 MARKDOWN=6000 QUERIES=200 BEFORE=<commit>)
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { median, repoRoot, tempDir } from './lib/common.mjs';
import { fts5Top, manPages, markdownFiles, overlapOf, queriesOf } from './lib/text-corpora.mjs';

const MAN = Number(process.env.MAN ?? 1200);
const MARKDOWN = Number(process.env.MARKDOWN ?? 6000);
const QUERIES = Number(process.env.QUERIES ?? 200);
const BEFORE = process.env.BEFORE ?? '7caa53d';

function percentile(values, fraction) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))];
}

/** `src` of `root` bundled: the spill writer, the reader and the folder pack source. */
async function bundle(root, name) {
  const entry = path.join(tempDir(`search-overlap-${name}-`), 'entry.ts');
  writeFileSync(
    entry,
    [
      `export { writeSearchIndexSpilling } from '${root}/src/tree-writer/search-index-spill-writer.ts';`,
      `export { SearchReader } from '${root}/src/core/search/search-reader.ts';`,
      `export { parseSearchIndexManifest } from '${root}/src/core/search/search-index-format.ts';`,
      `export { FolderPackFiles } from '${root}/src/hosts/node/folder-pack-files.ts';`,
    ].join('\n'),
  );
  const outfile = path.join(path.dirname(entry), 'bundle.mjs');
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile,
    logLevel: 'error',
    nodePaths: [path.join(repoRoot, 'node_modules')],
  });
  return import(pathToFileURL(outfile).href);
}

async function writeIndex(module, documents, options) {
  const out = tempDir('search-overlap-tree-');
  const files = new Map();
  const startCpu = process.cpuUsage();
  const extension = await module.writeSearchIndexSpilling(
    documents,
    { ...options, scratchFolder: path.join(out, '.scratch') },
    async (filePath, bytes) => {
      const target = path.join(out, filePath);
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileSync(target, bytes);
      files.set(filePath, bytes.length);
    },
  );
  const cpu = process.cpuUsage(startCpu);
  const bytes = [...files.values()].reduce((sum, size) => sum + size, 0);
  return { out, extension, cpuMs: (cpu.user + cpu.system) / 1000, bytes };
}

async function ourTop(module, written, queries) {
  const parsed = module.parseSearchIndexManifest(JSON.parse(JSON.stringify(written.extension)));
  const source = 'table' in parsed ? parsed.table : parsed;
  const reader = new module.SearchReader(new module.FolderPackFiles(written.out), source);
  for (const query of queries) await reader.search({ query }); // warm
  const cpu = [];
  const tops = [];
  for (const query of queries) {
    const start = process.cpuUsage();
    const result = await reader.search({ query });
    const used = process.cpuUsage(start);
    cpu.push((used.user + used.system) / 1000);
    tops.push(result.structuredContent.results.map((hit) => hit.id));
  }
  return { tops, cpu };
}

const beforeRoot = tempDir('search-overlap-before-');
execFileSync('sh', ['-c', `git -C "${repoRoot}" archive ${BEFORE} src | tar -x -C "${beforeRoot}"`]);
const before = await bundle(beforeRoot, 'before');
const after = await bundle(repoRoot, 'after');

for (const [name, documents] of [
  ['man pages', manPages(MAN)],
  ['node_modules Markdown', markdownFiles(MARKDOWN)],
]) {
  if (documents.length === 0) continue;
  const rawBytes = documents.reduce((sum, document) => sum + Buffer.byteLength(document.title + document.text), 0);
  console.log(`\n${name}: ${documents.length} documents, ${(rawBytes / 1e6).toFixed(1)} MB of text`);
  const old = await writeIndex(before, documents, {});
  const porter = await writeIndex(after, documents, { stemming: 'porter' });
  const none = await writeIndex(after, documents, { stemming: 'none' });
  for (const [label, written] of [
    [`before (${BEFORE}, format ${old.extension.format})`, old],
    ['after, porter', porter],
    ['after, no stemming', none],
  ])
    console.log(
      `  ${label}: index ${(written.bytes / 1e6).toFixed(1)} MB = ${(written.bytes / rawBytes).toFixed(2)}× the text; build CPU ${written.cpuMs.toFixed(0)} ms (${(written.cpuMs / old.cpuMs).toFixed(2)}× before)`,
    );
  const queries = queriesOf(documents, QUERIES);
  const sorted = [...documents].sort((a, b) => Buffer.compare(Buffer.from(a.id), Buffer.from(b.id)));
  const numberOf = new Map(sorted.map((document, number) => [document.id, number]));
  const ftsPorter = fts5Top(sorted, queries, 'porter unicode61 remove_diacritics 2');
  const ftsExact = fts5Top(sorted, queries, 'unicode61 remove_diacritics 2');
  const oldRun = await ourTop(before, old, queries);
  const porterRun = await ourTop(after, porter, queries);
  const noneRun = await ourTop(after, none, queries);
  console.log(
    `  overlap@10 (${queries.length} queries): porter vs FTS5 porter ${overlapOf(porterRun.tops, ftsPorter, numberOf).toFixed(3)}; no stemming vs FTS5 unicode61 ${overlapOf(noneRun.tops, ftsExact, numberOf).toFixed(3)}; before vs FTS5 unicode61 ${overlapOf(oldRun.tops, ftsExact, numberOf).toFixed(3)}, vs FTS5 porter ${overlapOf(oldRun.tops, ftsPorter, numberOf).toFixed(3)}`,
  );
  for (const [label, run] of [
    ['before', oldRun],
    ['after, porter (excerpts included)', porterRun],
  ])
    console.log(
      `  warm query CPU ${label}: p50 ${median(run.cpu).toFixed(2)} ms, p99 ${percentile(run.cpu, 0.99).toFixed(2)} ms`,
    );
}

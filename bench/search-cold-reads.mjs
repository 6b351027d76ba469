// What a cold search reads (issue #40): per query, with the reader's caches empty (a new isolate),
// the files it asks the host for, how many distinct ones, and the bytes they bring, read as the
// Workers asset binding answers (Range dropped: every read brings the whole file), from a tree the
// search benches build (search-query-tree.mjs); and the CPU of the search in this Node process
// (caches cold, code warm: what the index costs, without workerd's module evaluation). Of the title
// packs, also the bytes up to the last one the query's results need (each result's block and its
// excerpt source): what a reader that stopped a pack's stream there would take in.
// Run: npm run build && CORPUS=wiki COUNT=6000 node bench/search-cold-reads.mjs   (QUERIES=50;
//   TREE=<built tree> measures that one; PACK_ROWS=0: the reader is not told the host sends whole
//   files, so it goes through the term and title indexes, as before the table named its packs)
import path from 'node:path';
import { searchSourceOf, twoWordQueries } from './lib/cold-search.mjs';
import { median, repoRoot } from './lib/common.mjs';
import { searchTree } from './lib/search-query-tree.mjs';

const dist = (file) => import(path.join(repoRoot, 'dist', file));
const { FolderPackFiles } = await dist('hosts/node/folder-pack-files.js');
const { SearchReader } = await dist('core/search/search-reader.js');
const { parsePack } = await dist('core/packs/pack-format.js');
const { parseTitleBlock } = await dist('core/search/search-index-format.js');
const { sourceRecordsAfter } = await dist('core/search/excerpt-source.js');

const CORPUS = process.env.CORPUS ?? 'wiki';
const COUNT = Number(process.env.COUNT ?? 6000);
const QUERIES = Number(process.env.QUERIES ?? 50);

/** The tree's files as the asset binding sends them: whole, whatever range was asked; each read logged. */
function wholeFiles(tree, log) {
  const folder = new FolderPackFiles(tree);
  return {
    sendsWholeFiles: process.env.PACK_ROWS !== '0',
    async readBytes(relativePath) {
      const read = await folder.readBytes(relativePath);
      log.push({ path: relativePath, bytes: read.status === 'ok' ? read.bytes.length : 0, read });
      return read;
    },
  };
}

const tree = process.env.TREE ?? (await searchTree(CORPUS, COUNT)).tree;
const { parsed, source } = searchSourceOf(tree);
const queries = twoWordQueries(CORPUS, COUNT, QUERIES);

const rows = [];
const counts = source.counts ?? source;
const blockName = /^[0-9a-f]{8}$/;

/** How far into a title pack (its bytes) the blocks and excerpt sources of the results `ids` reach. */
function neededBytesOf(bytes, packPath, ids) {
  const parsed = parsePack(bytes, packPath);
  if ('status' in parsed) return bytes.length;
  let end = 0;
  for (const { record, offset, length } of parsed.records) {
    const name = record.names[0];
    if (!blockName.test(name)) continue;
    const number = Number.parseInt(name, 16);
    const count = Math.min(counts.blockSize, counts.documentCount - number * counts.blockSize);
    const entries = parseTitleBlock(new TextDecoder().decode(record.body), count, counts.format) ?? [];
    const places = sourceRecordsAfter(
      { number, recordOffset: offset, recordLength: length },
      entries,
      counts.blockSize,
    );
    entries.forEach((entry, position) => {
      if (!ids.has(entry.id)) return;
      const place = places[position];
      end = Math.max(end, place === undefined ? offset + length : place.recordOffset + place.recordLength);
    });
  }
  return end === 0 ? bytes.length : end;
}
let titleBytes = 0;
let titleBytesNeeded = 0;
/** Reads and bytes per query, by part of the index and kind of file (the mean over queries). */
const parts = {};
for (const query of queries) {
  const log = [];
  const reader = new SearchReader(wholeFiles(tree, log), source);
  // The table file, when the rows live in one, is read once per tree load, not per query.
  if (!('table' in parsed)) await reader.search({ query: 'warmupword' });
  log.length = 0;
  const before = process.cpuUsage();
  const result = await reader.search({ query });
  const used = process.cpuUsage(before);
  if (result.isError) throw new Error(`${query}: ${result.content[0].text}`);
  const distinct = new Set(log.map((read) => read.path));
  const ids = new Set(result.structuredContent.results.map((hit) => hit.id));
  for (const { path: read, read: outcome } of log) {
    if (!read.includes('/titles/') || !read.endsWith('.pack') || outcome.status !== 'ok') continue;
    titleBytes += outcome.bytes.length;
    titleBytesNeeded += neededBytesOf(outcome.bytes, read, ids);
  }
  for (const read of log) {
    const part = `${/search\.index\/(\w+)\//.exec(read.path)?.[1] ?? 'table'} ${read.path.endsWith('.idx') ? 'indexes' : 'packs'}`;
    parts[part] ??= { reads: 0, bytes: 0 };
    const sum = parts[part];
    sum.reads += 1 / QUERIES;
    sum.bytes += read.bytes / QUERIES;
  }
  rows.push({
    reads: log.length,
    distinct: distinct.size,
    bytes: log.reduce((sum, read) => sum + read.bytes, 0),
    cpuMs: (used.user + used.system) / 1000,
    excerpts: result.structuredContent.results.filter((hit) => hit.excerpt !== undefined).length,
  });
}
const f = (value, digits = 1) => value.toFixed(digits);
const p50 = (key) => median(rows.map((row) => row[key]));
const max = (key) => Math.max(...rows.map((row) => row[key]));
console.log(`${process.env.TREE ?? `${CORPUS}, ${COUNT} documents`}: ${QUERIES} cold two-word searches (empty caches)`);
console.log(
  `reads per query p50 ${p50('reads')} max ${max('reads')}; distinct files p50 ${p50('distinct')} max ${max('distinct')}; ` +
    `bytes read p50 ${f(p50('bytes') / 1024)} KiB max ${f(max('bytes') / 1024)} KiB; excerpts p50 ${p50('excerpts')}`,
);
console.log(`search CPU (Node, caches cold, code warm) p50 ${f(p50('cpuMs'), 2)} ms max ${f(max('cpuMs'), 2)} ms`);
console.log(
  `mean per query by part: ${Object.entries(parts)
    .map(([part, sum]) => `${part} ${f(sum.reads)} reads ${f(sum.bytes / 1024)} KiB`)
    .join('; ')}`,
);
console.log(
  `title packs: ${f(titleBytes / 1024 / QUERIES)} KiB a query read whole, ${f(titleBytesNeeded / 1024 / QUERIES)} KiB ` +
    `up to the last byte its results need (${f((100 * titleBytesNeeded) / Math.max(titleBytes, 1), 0)}%)`,
);

// What a cold search's term lookups read (issue #40), taken apart: per two-word query, the term
// packs a worker reads whole for its keys (each word's and its stem's, query-terms.ts) and their
// bytes, beside the bytes of the records those keys name, and how much of that is a stem's list
// that repeats one word's list byte for byte: a stem of one form other than itself ("gefis" of
// "gefise"), which the writers keep as a record of its own (search-stem-lists.ts leaves out only a
// stem's list that repeats the word that is the stem). Over the whole term part, the same count,
// and whether each such list lies right before its word's (so one record could carry both names).
// search-cold-reads.mjs counts the same term packs as reads; this says what in them a query used.
// Pack bytes "without the repeated lists" are an estimate: those records taken out of the packs
// the query reads, the packs not cut again.
// Run: npm run build && CORPUS=wiki COUNT=6000 node bench/search-term-reads.mjs   (QUERIES=16;
//   TREE=<built tree> measures that one; VERBOSE=1 prints each query's keys)
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { searchSourceOf, twoWordQueries } from './lib/cold-search.mjs';
import { median, repoRoot } from './lib/common.mjs';
import { searchTree } from './lib/search-query-tree.mjs';

const dist = (file) => import(path.join(repoRoot, 'dist', file));
const { parsePack } = await dist('core/packs/pack-format.js');
const { parseQuery, wordLookupsOf } = await dist('core/search/query-terms.js');
const { stemOf, wordOfStemKey, STEM_KEY_SUFFIX } = await dist('core/search/stem.js');
const { SEARCH_FOLDER } = await dist('core/search/search-index-format.js');

const CORPUS = process.env.CORPUS ?? 'wiki';
const COUNT = Number(process.env.COUNT ?? 6000);
const QUERIES = Number(process.env.QUERIES ?? 16);

const tree = process.env.TREE ?? (await searchTree(CORPUS, COUNT)).tree;
const { source } = searchSourceOf(tree);
const stemming = (source.counts ?? source).stemming ?? 'none';

/** Every term record by its names: its pack, its pack's bytes, its own bytes and body, its place in key order. */
const records = new Map();
const ordered = [];
const termFolder = path.join(tree, SEARCH_FOLDER, 'terms');
for (const file of readdirSync(termFolder).sort()) {
  if (!file.endsWith('.pack')) continue;
  const bytes = readFileSync(path.join(termFolder, file));
  const parsed = parsePack(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), file);
  if ('status' in parsed) throw new Error(parsed.reason);
  for (const { record, length } of parsed.records) {
    const entry = { pack: file, packBytes: bytes.length, bytes: length, body: record.body, names: record.names };
    for (const name of record.names) records.set(name, entry);
    ordered.push(entry);
  }
}
const compareNames = (left, right) => Buffer.compare(Buffer.from(left.names[0]), Buffer.from(right.names[0]));
ordered.sort(compareNames);
ordered.forEach((entry, position) => {
  entry.position = position;
});

/** Each stem's forms: the records of words whose stem it is. */
const formsOf = new Map();
for (const entry of ordered)
  for (const name of entry.names) {
    if (name.endsWith(STEM_KEY_SUFFIX)) continue;
    const stem = stemOf(name);
    if (!formsOf.has(stem)) formsOf.set(stem, []);
    formsOf.get(stem).push(entry);
  }
/** The word record whose list a stem's record repeats byte for byte, if one does. */
function repeatedWordOf(stemKey, entry) {
  const forms = formsOf.get(stemKey.slice(0, -STEM_KEY_SUFFIX.length)) ?? [];
  return forms.find((form) => form !== entry && Buffer.compare(form.body, entry.body) === 0);
}

let termBytes = 0;
let stemRecords = 0;
const repeated = { count: 0, bytes: 0, rightBefore: 0, samePack: 0 };
for (const entry of ordered) {
  termBytes += entry.bytes;
  const stemKey = entry.names.find((name) => name.endsWith(STEM_KEY_SUFFIX));
  if (stemKey === undefined) continue;
  stemRecords += 1;
  const word = repeatedWordOf(stemKey, entry);
  if (word === undefined) continue;
  repeated.count += 1;
  repeated.bytes += entry.bytes;
  if (word.position === entry.position + 1) repeated.rightBefore += 1;
  if (word.pack === entry.pack) repeated.samePack += 1;
}

const rows = [];
for (const query of twoWordQueries(CORPUS, COUNT, QUERIES)) {
  const keys = wordLookupsOf(parseQuery(query).words, stemming).map((lookup) => lookup.key);
  const packs = new Map();
  const used = new Set();
  const repeatedUsed = new Set();
  const shown = [];
  for (const key of keys) {
    // A stem's list left out as its word's is read from the word's record (stem.ts).
    const entry = records.get(key) ?? records.get(wordOfStemKey(key));
    if (entry === undefined) {
      shown.push(`${JSON.stringify(key)} missing`);
      continue;
    }
    packs.set(entry.pack, entry.packBytes);
    used.add(entry);
    const repeats = key.endsWith(STEM_KEY_SUFFIX) && records.has(key) && repeatedWordOf(key, entry) !== undefined;
    if (repeats) repeatedUsed.add(entry);
    shown.push(`${JSON.stringify(key)} ${entry.bytes}${repeats ? ' (repeats its word)' : ''}`);
  }
  const sum = (values) => [...values].reduce((total, value) => total + value, 0);
  // The packs again without the repeated lists: a pack left holding only those is not read.
  const packsWithout = new Map(packs);
  for (const entry of repeatedUsed) {
    const left = packsWithout.get(entry.pack) - entry.bytes;
    const stillUsed = [...used].some((other) => other.pack === entry.pack && !repeatedUsed.has(other));
    if (stillUsed) packsWithout.set(entry.pack, left);
    else packsWithout.delete(entry.pack);
  }
  rows.push({
    packs: packs.size,
    packBytes: sum(packs.values()),
    recordBytes: sum([...used].map((entry) => entry.bytes)),
    repeatedBytes: sum([...repeatedUsed].map((entry) => entry.bytes)),
    packsWithout: packsWithout.size,
    packBytesWithout: sum(packsWithout.values()),
  });
  if (process.env.VERBOSE === '1') console.log(`${query}: ${shown.join(', ')}`);
}

const kib = (bytes) => (bytes / 1024).toFixed(1);
const mean = (key) => rows.reduce((total, row) => total + row[key], 0) / rows.length;
const p50 = (key) => median(rows.map((row) => row[key]));
console.log(
  `${process.env.TREE ?? `${CORPUS}, ${COUNT} documents`}: ${rows.length} two-word queries' term lookups (stemming ${stemming})`,
);
console.log(
  `term packs read per query: mean ${mean('packs').toFixed(2)}, ${kib(mean('packBytes'))} KiB (p50 ${kib(p50('packBytes'))}); ` +
    `the records its keys name ${kib(mean('recordBytes'))} KiB (p50 ${kib(p50('recordBytes'))}), ` +
    `of them stem lists repeating a word's ${kib(mean('repeatedBytes'))} KiB`,
);
console.log(
  `without the repeated lists (estimate, packs not cut again): ${mean('packsWithout').toFixed(2)} packs, ` +
    `${kib(mean('packBytesWithout'))} KiB (p50 ${kib(p50('packBytesWithout'))})`,
);
console.log(
  `term part: ${ordered.length} records, ${(termBytes / 1e6).toFixed(1)} MB; ${stemRecords} stem records, of them ` +
    `${repeated.count} repeat one word's list (${(repeated.bytes / 1e6).toFixed(1)} MB, ` +
    `${((100 * repeated.bytes) / termBytes).toFixed(1)}% of the part; ${repeated.rightBefore} lie right before ` +
    `that word's record, ${repeated.samePack} in its pack)`,
);

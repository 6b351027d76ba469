// What the search index costs and how it ranks (issue #25), on Debian's package descriptions
// (`apt-cache dumpavail`, ~63,000 on these machines; LIMIT=N keeps the first N):
//   - build: writeSearchIndex's time and peak RSS growth, against writing every document as its
//     own JSON file (what the tree's call files cost) in the same run; index bytes vs raw text;
//     files added;
//   - query: QUERIES two-word queries (two terms of a random document) through SearchReader over
//     FolderPackFiles, warm (one reader) and cold (a new reader per query: empty caches), p50/p99
//     wall and CPU ms, against reading one document's own file;
//   - ranking: top-10 overlap with SQLite FTS5's bm25() (Python's sqlite3) fed the same terms,
//     each mapped to an ASCII stand-in so FTS5's tokenizer cannot cut them differently; the query
//     is the terms joined by OR.
// Run: npm run build && node bench/search-index.mjs   (LIMIT=63000 QUERIES=200)
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { median, repoRoot, tempDir } from './lib/common.mjs';
import { loadWriteSearchIndex } from './lib/in-memory-search-index.mjs';

const dist = (file) => import(path.join(repoRoot, 'dist', file));
const { FolderPackFiles } = await dist('hosts/node/folder-pack-files.js');
const writeSearchIndex = await loadWriteSearchIndex();
const { SearchReader } = await dist('core/search/search-reader.js');
const { parseSearchIndexManifest } = await dist('core/search/search-index-format.js');
const { tokenize } = await dist('core/search/tokenize.js');

const LIMIT = Number(process.env.LIMIT ?? 1_000_000);
const QUERIES = Number(process.env.QUERIES ?? 200);

function debianDocuments() {
  const dump = spawnSync('apt-cache', ['dumpavail'], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (dump.status !== 0) throw new Error(`apt-cache dumpavail failed (run apt-get update first): ${dump.stderr}`);
  const seen = new Set();
  const documents = [];
  for (const stanza of dump.stdout.split('\n\n')) {
    const name = /^Package: (\S+)$/m.exec(stanza)?.[1];
    const description = /^Description: (.*(?:\n .*)*)/m.exec(stanza)?.[1];
    if (!name || !description || seen.has(name) || documents.length >= LIMIT) continue;
    seen.add(name);
    const text = description.replace(/\n \.?/g, '\n');
    documents.push({ id: `tools/apt/${name}.json`, title: name, text, url: `https://packages.debian.org/${name}` });
  }
  return documents;
}

function percentile(values, fraction) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))];
}

const maxRssMiB = () => process.resourceUsage().maxRSS / 1024;
const documents = debianDocuments();
const rawBytes = documents.reduce((sum, document) => sum + Buffer.byteLength(document.title + document.text), 0);
console.log(`corpus: ${documents.length} Debian package descriptions, ${(rawBytes / 1e6).toFixed(1)} MB of text`);

// Baseline: every document as its own file, as a tree of call files holds them.
const plainRoot = tempDir('search-plain-');
let started = performance.now();
for (const document of documents) {
  const file = path.join(plainRoot, document.id);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify({ content: [{ type: 'text', text: document.text }] }));
}
const plainMs = performance.now() - started;

const rssBefore = maxRssMiB();
started = performance.now();
const written = writeSearchIndex(documents);
const buildMs = performance.now() - started;
const rssGrowth = maxRssMiB() - rssBefore;
const indexRoot = tempDir('search-index-');
let indexBytes = 0;
for (const file of written.files) {
  mkdirSync(path.dirname(path.join(indexRoot, file.path)), { recursive: true });
  writeFileSync(path.join(indexRoot, file.path), file.bytes);
  indexBytes += file.bytes.length;
}
const bytesOf = (folder) =>
  written.files.filter((file) => file.path.includes(`/${folder}/`)).reduce((sum, file) => sum + file.bytes.length, 0);
const tableJson = JSON.stringify(written.extension);
const tableFile = written.files.find((file) => file.path.endsWith('.table.json'));
console.log(
  `build: index ${buildMs.toFixed(0)} ms vs one file per document ${plainMs.toFixed(0)} ms (${(buildMs / plainMs).toFixed(2)}×); peak RSS +${rssGrowth.toFixed(0)} MiB`,
);
console.log(
  `size: ${written.files.length} files (${written.files.filter((file) => file.path.endsWith('.idx')).length} indexes), ${(indexBytes / 1e6).toFixed(1)} MB = ${(indexBytes / rawBytes).toFixed(2)}× the raw text (terms ${(bytesOf('terms') / 1e6).toFixed(1)} MB, titles ${(bytesOf('titles') / 1e6).toFixed(1)} MB, documents ${(bytesOf('documents') / 1e6).toFixed(1)} MB); search table ${((tableFile?.bytes.length ?? tableJson.length) / 1024).toFixed(1)} KiB ${tableFile ? 'in its own file' : 'in mcp.json'}`,
);

// Queries: two distinct terms of a random document (seeded).
let seed = 12345;
const next = () => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed / 2 ** 31;
};
const queries = [];
while (queries.length < QUERIES) {
  const terms = [...new Set(tokenize(documents[Math.floor(next() * documents.length)].text))];
  if (terms.length < 2) continue;
  const first = terms[Math.floor(next() * terms.length)];
  const second = terms[Math.floor(next() * terms.length)];
  if (first !== second) queries.push(`${first} ${second}`);
}

const parsed = parseSearchIndexManifest(JSON.parse(tableJson));
if ('problem' in parsed) throw new Error(parsed.problem);
// The rows inline, or the table file the reader reads on its first search.
const source = 'table' in parsed ? parsed.table : parsed;
const files = new FolderPackFiles(indexRoot);
async function timeQueries(readerFor) {
  const wall = [];
  const cpu = [];
  const hits = [];
  for (const query of queries) {
    const reader = readerFor();
    const cpuStart = process.cpuUsage();
    const wallStart = performance.now();
    const outcome = await reader.searchHits(query);
    wall.push(performance.now() - wallStart);
    const used = process.cpuUsage(cpuStart);
    cpu.push((used.user + used.system) / 1000);
    hits.push(outcome.status === 'ok' ? outcome.hits.map((hit) => hit.id) : []);
  }
  return { wall, cpu, hits };
}
async function timePlainReads() {
  const wall = [];
  for (let round = 0; round < queries.length; round += 1) {
    const document = documents[Math.floor(next() * documents.length)];
    const wallStart = performance.now();
    readFileSync(path.join(plainRoot, document.id));
    wall.push(performance.now() - wallStart);
  }
  return wall;
}
const warmReader = new SearchReader(files, source);
await timeQueries(() => warmReader); // fills the caches
const warm = await timeQueries(() => warmReader);
const cold = await timeQueries(() => new SearchReader(files, source));
const plain = await timePlainReads();
const plainP50 = median(plain);
for (const [name, run] of [
  ['cold', cold],
  ['warm', warm],
]) {
  console.log(
    `query ${name}: p50 ${median(run.wall).toFixed(2)} ms (${(median(run.wall) / plainP50).toFixed(0)}× a plain file read), p99 ${percentile(run.wall, 0.99).toFixed(2)} ms; CPU p50 ${median(run.cpu).toFixed(2)} ms, p99 ${percentile(run.cpu, 0.99).toFixed(2)} ms`,
  );
}
const cache = warmReader.cacheSize();
console.log(
  `warm reader holds ${cache.indexes} indexes (${(cache.indexBytes / 1e6).toFixed(1)} MB), postings ${(cache.postingBytes / 1e6).toFixed(1)} MB, title blocks ${(cache.blockBytes / 1e6).toFixed(2)} MB`,
);

// FTS5 on the same terms (documents numbered by id in UTF-8 order, as the index numbers them).
const sorted = [...documents].sort((a, b) => Buffer.compare(Buffer.from(a.id), Buffer.from(b.id)));
const standIn = new Map();
const standInOf = (term) => {
  let name = standIn.get(term);
  if (name === undefined) {
    name = `x${standIn.size.toString(36)}`;
    standIn.set(term, name);
  }
  return name;
};
const ftsRoot = tempDir('search-fts5-');
writeFileSync(
  path.join(ftsRoot, 'documents.jsonl'),
  sorted
    .map((document) => JSON.stringify(tokenize(`${document.title}\n${document.text}`).map(standInOf).join(' ')))
    .join('\n'),
);
writeFileSync(
  path.join(ftsRoot, 'queries.json'),
  JSON.stringify(
    queries.map((query) =>
      [...new Set(tokenize(query))].filter((term) => standIn.has(term)).map((term) => standIn.get(term)),
    ),
  ),
);
const python = `
import json, sqlite3, sys
root = sys.argv[1]
db = sqlite3.connect(':memory:')
db.execute("CREATE VIRTUAL TABLE t USING fts5(body, tokenize='unicode61')")
with open(root + '/documents.jsonl') as lines:
    db.executemany('INSERT INTO t(rowid, body) VALUES (?, ?)', ((n + 1, json.loads(line)) for n, line in enumerate(lines)))
out = []
for terms in json.load(open(root + '/queries.json')):
    if not terms:
        out.append([]); continue
    rows = db.execute('SELECT rowid - 1 FROM t WHERE t MATCH ? ORDER BY bm25(t), rowid LIMIT 10', (' OR '.join(terms),)).fetchall()
    out.append([r[0] for r in rows])
print(json.dumps(out))
`;
const fts = spawnSync('python3', ['-c', python, ftsRoot], { encoding: 'utf8', maxBuffer: 1 << 28 });
if (fts.status !== 0) throw new Error(fts.stderr);
const ftsTop = JSON.parse(fts.stdout);
const numberOf = new Map(sorted.map((document, number) => [document.id, number]));
let overlap = 0;
let exact = 0;
warm.hits.forEach((ids, position) => {
  const ours = ids.map((id) => numberOf.get(id));
  const theirs = ftsTop[position];
  const shared = ours.filter((number) => theirs.includes(number)).length;
  overlap += Math.max(ours.length, theirs.length) === 0 ? 1 : shared / Math.max(ours.length, theirs.length);
  if (JSON.stringify(ours) === JSON.stringify(theirs)) exact += 1;
});
console.log(
  `ranking vs SQLite FTS5 bm25() over ${queries.length} queries: top-10 overlap ${(overlap / queries.length).toFixed(3)}, identical order ${exact}/${queries.length}`,
);

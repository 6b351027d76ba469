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
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { median, repoRoot, tempDir } from './lib/common.mjs';

const MAN = Number(process.env.MAN ?? 1200);
const MAN_POOL = 3000;
const MARKDOWN = Number(process.env.MARKDOWN ?? 6000);
const QUERIES = Number(process.env.QUERIES ?? 200);
const BEFORE = process.env.BEFORE ?? '7caa53d';
const CACHE = process.env.CORPUS_CACHE ?? '/tmp/staticmcp-search-corpora';

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

/** Man pages as text, rendered once into CACHE (groff, two at a time). */
function manPages(limit) {
  const folder = path.join(CACHE, 'man');
  mkdirSync(folder, { recursive: true });
  const sources = [];
  for (const section of ['1', '2', '3', '5', '7', '8']) {
    const dir = `/usr/share/man/man${section}`;
    if (existsSync(dir)) for (const name of readdirSync(dir).sort()) sources.push(path.join(dir, name));
  }
  // Every k-th page of a pool of MAN_POOL, the first `limit` of them: a smaller run renders
  // (and reuses) the same pages as a larger one began with.
  const chosen = sources.filter((_, index) => index % Math.max(1, Math.floor(sources.length / MAN_POOL)) === 0);
  const missing = chosen
    .slice(0, limit)
    .filter((source) => !existsSync(path.join(folder, `${path.basename(source)}.txt`)));
  if (missing.length > 0) {
    const script = `for f in "$@"; do out="${folder}/$(basename "$f").txt"; (zcat -f "$f" | groff -man -Tutf8 -P-cbou 2>/dev/null) > "$out"; done`;
    const batches = [[], []];
    missing.forEach((source, index) => {
      batches[index % 2].push(source);
    });
    for (const batch of batches) if (batch.length > 0) execFileSync('sh', ['-c', `(${script}) &`, 'sh', ...batch]);
    // Wait for both renderers (they write as they go).
    while (missing.some((source) => !existsSync(path.join(folder, `${path.basename(source)}.txt`))))
      spawnSync('sleep', ['1']);
    spawnSync('sleep', ['2']);
  }
  const seen = new Set();
  const documents = [];
  for (const source of chosen.slice(0, limit)) {
    const name = path.basename(source).replace(/\.gz$/, '');
    const text = readFileSync(path.join(folder, `${path.basename(source)}.txt`), 'utf8').replace(/[ \t]+/g, ' ');
    if (text.length < 200 || seen.has(text)) continue;
    seen.add(text);
    documents.push({ id: `resources/man/${name}.json`, title: name, text, url: '' });
  }
  return documents;
}

/** The Markdown files of node_modules, distinct, at least 500 bytes. */
function markdownFiles(limit) {
  const found = execFileSync('find', ['-L', path.join(repoRoot, 'node_modules'), '-name', '*.md', '-size', '+500c'], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  })
    .split('\n')
    .filter(Boolean)
    .sort();
  const seen = new Set();
  const documents = [];
  for (const file of found) {
    if (documents.length >= limit) break;
    let text;
    try {
      if (statSync(file).size > 2_000_000) continue;
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    if (seen.has(text)) continue;
    seen.add(text);
    const relative = path.relative(path.join(repoRoot, 'node_modules'), file).replaceAll(/[^A-Za-z0-9._/-]/g, '_');
    documents.push({ id: `resources/md/${relative}.json`, title: path.basename(file), text, url: '' });
  }
  return documents;
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

function queriesOf(documents, count) {
  let seed = 17;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const queries = [];
  while (queries.length < count) {
    const document = documents[Math.floor(next() * documents.length)];
    const words = [...new Set(document.text.match(/\b[A-Za-z]{4,}\b/g) ?? [])];
    if (words.length < 2) continue;
    const first = words[Math.floor(next() * words.length)];
    const second = words[Math.floor(next() * words.length)];
    if (first !== second) queries.push(`${first} ${second}`);
  }
  return queries;
}

function fts5Top(documents, queries, tokenizer) {
  const root = tempDir('search-overlap-fts5-');
  writeFileSync(
    path.join(root, 'documents.jsonl'),
    documents.map((document) => JSON.stringify(`${document.title}\n${document.text}`)).join('\n'),
  );
  writeFileSync(path.join(root, 'queries.json'), JSON.stringify(queries));
  const python = `
import json, sqlite3, sys
root, tokenizer = sys.argv[1], sys.argv[2]
db = sqlite3.connect(':memory:')
db.execute("CREATE VIRTUAL TABLE t USING fts5(body, tokenize=\\"" + tokenizer + "\\")")
with open(root + '/documents.jsonl') as lines:
    db.executemany('INSERT INTO t(rowid, body) VALUES (?, ?)', ((n + 1, json.loads(line)) for n, line in enumerate(lines)))
out = []
for query in json.load(open(root + '/queries.json')):
    match = ' OR '.join('"' + word + '"' for word in query.split())
    rows = db.execute('SELECT rowid - 1 FROM t WHERE t MATCH ? ORDER BY bm25(t), rowid LIMIT 10', (match,)).fetchall()
    out.append([r[0] for r in rows])
print(json.dumps(out))
`;
  const run = spawnSync('python3', ['-c', python, root, tokenizer], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout);
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

function overlapOf(ours, theirs, numberOf) {
  let sum = 0;
  ours.forEach((ids, position) => {
    const mine = ids.map((id) => numberOf.get(id));
    const other = theirs[position];
    const longer = Math.max(mine.length, other.length);
    sum += longer === 0 ? 1 : mine.filter((number) => other.includes(number)).length / longer;
  });
  return sum / ours.length;
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

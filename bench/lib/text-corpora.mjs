// The two corpora nobody tuned on that the search comparisons use (issue #40): the machine's man
// pages rendered to text (groff, cached in CORPUS_CACHE) and the Markdown files of node_modules;
// two-word queries as people type them; FTS5's top 10 (Python's sqlite3) and overlap@10. Shared
// by bench/search-overlap.mjs and bench/search-vs-pagefind.mjs.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot, tempDir } from './common.mjs';

const MAN_POOL = 3000;
const CACHE = process.env.CORPUS_CACHE ?? '/tmp/staticmcp-search-corpora';

/** Man pages as text, rendered once into CACHE (groff, two at a time). */
export function manPages(limit) {
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
export function markdownFiles(limit) {
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

/** Two-word queries: two distinct ASCII words of 4+ letters of a random document. */
export function queriesOf(documents, count) {
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

/** FTS5 bm25()'s top 10 document numbers per query (its words ORed), with `tokenizer`. */
export function fts5Top(documents, queries, tokenizer) {
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

/** Shared results ÷ the longer list, averaged over queries (`theirs`: document numbers). */
export function overlapOf(ours, theirs, numberOf) {
  let sum = 0;
  ours.forEach((ids, position) => {
    const mine = ids.map((id) => numberOf.get(id));
    const other = theirs[position];
    const longer = Math.max(mine.length, other.length);
    sum += longer === 0 ? 1 : mine.filter((number) => other.includes(number)).length / longer;
  });
  return sum / ours.length;
}

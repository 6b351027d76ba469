// Shared by the search benches: a built tree (mcp.json, _worker.js, one resource) whose search
// index is replaced by one written from a given corpus with the build's spilling writer (dist/;
// byte for byte the in-memory reference writer's), the corpus streamed into it one document at a
// time, kept in a folder named by the corpus and the writer's options so a second run reuses it
// (the 650,000-document index takes many minutes; its memory stays that of the spilling writer,
// not of the corpus). Debian's package descriptions come from `apt-cache dumpavail`; the
// Wikipedia-shaped corpus from search-query-corpus.mjs.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cliPath, repoRoot } from './common.mjs';
import { wikiDocuments, wikiDocumentStream } from './search-query-corpus.mjs';

/** Debian's package descriptions (short ones: this machine has no Translation files). */
export function debianDocuments(limit = Number.POSITIVE_INFINITY) {
  const dump = spawnSync('apt-cache', ['dumpavail'], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (dump.status !== 0) throw new Error(`apt-cache dumpavail failed (run apt-get update first): ${dump.stderr}`);
  const seen = new Set();
  const documents = [];
  for (const stanza of dump.stdout.split('\n\n')) {
    const name = /^Package: (\S+)$/m.exec(stanza)?.[1];
    const description = /^Description: (.*(?:\n .*)*)/m.exec(stanza)?.[1];
    if (!name || !description || seen.has(name) || documents.length >= limit) continue;
    seen.add(name);
    const text = description.replace(/\n \.?/g, '\n');
    documents.push({ id: `tools/apt/${name}.json`, title: name, text, url: `https://packages.debian.org/${name}` });
  }
  return documents;
}

/** The corpus `name` ("debian" or "wiki"), `count` documents at most. */
export function corpusDocuments(name, count) {
  if (name === 'debian') return debianDocuments(count);
  if (name === 'wiki') return wikiDocuments(count, undefined, Number(process.env.TEXT_SCALE ?? 1));
  throw new Error(`unknown corpus ${name}: debian or wiki`);
}

/** The documents of corpus `name`, `count` at most, one at a time. */
function corpusStream(name, count) {
  if (name === 'wiki') return wikiDocumentStream(count, undefined, Number(process.env.TEXT_SCALE ?? 1));
  return corpusDocuments(name, count);
}

/** Corpora larger than this are sampled for the benches' queries, not held whole. */
const WHOLE_CORPUS_DOCUMENTS = 100_000;

/**
 * Documents to draw the benches' queries from: the whole corpus up to WHOLE_CORPUS_DOCUMENTS,
 * else every k-th document of it (about that many), streamed so the rest is never held.
 */
export function queryDocuments(name, count) {
  if (count <= WHOLE_CORPUS_DOCUMENTS) return corpusDocuments(name, count);
  const every = Math.ceil(count / WHOLE_CORPUS_DOCUMENTS);
  const sample = [];
  let number = 0;
  for (const document of corpusStream(name, count)) if (number++ % every === 0) sample.push(document);
  return sample;
}

/**
 * A digest of the compiled code that writes and reads the index (dist/tree-writer, dist/core), so a
 * tree cached by an earlier build of a different writer or format is built again, not measured stale.
 */
function hashIndexCode() {
  const hash = createHash('sha256');
  for (const folder of ['tree-writer', 'core']) {
    const root = path.join(repoRoot, 'dist', folder);
    for (const file of readdirSync(root, { recursive: true }).sort()) {
      if (!file.endsWith('.js')) continue;
      hash.update(file).update(readFileSync(path.join(root, file)));
    }
  }
  return hash.digest('hex').slice(0, 12);
}

/**
 * The tree of `corpus` (cached below the temp folder, keyed by the corpus, the options and the
 * index code that wrote it); `options` go to writeSearchIndex. Returns
 * { tree, documentCount, buildMs, files, indexBytes, tableBytes, tableInline, termIndexes, peakRssMiB }.
 */
export async function searchTree(corpus, count, options = {}) {
  const scale = corpus === 'wiki' ? `-x${process.env.TEXT_SCALE ?? 1}` : '';
  const tag = `${corpus}-${count}${scale}-${options.targetTermIndexBytes ?? 'default'}-${hashIndexCode()}`;
  const root = path.join(process.env.SEARCH_TREES ?? os.tmpdir(), `staticmcp-search-query-${tag}`);
  const tree = path.join(root, 'dist');
  const done = path.join(root, 'built.json');
  if (existsSync(done)) return { tree, ...JSON.parse(readFileSync(done, 'utf8')) };
  rmSync(root, { recursive: true, force: true });
  mkdirSync(path.join(root, 'resources'), { recursive: true });
  writeFileSync(path.join(root, 'resources', 'about.md'), '# About\n\nA generated corpus for the search benches.\n');
  writeFileSync(path.join(root, 'staticmcp.json'), JSON.stringify({ search: true }));
  const built = spawnSync(process.execPath, [cliPath, 'build', root, '--json'], { encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`build failed: ${built.stderr}`);
  rmSync(path.join(tree, 'packs', 'search.index'), { recursive: true, force: true });

  const { writeSearchIndexSpilling } = await import(
    path.join(repoRoot, 'dist/tree-writer/search-index-spill-writer.js')
  );
  const scratchFolder = path.join(root, 'scratch');
  let documentCount = 0;
  function* counted() {
    for (const document of corpusStream(corpus, count)) {
      documentCount += 1;
      yield document;
    }
  }
  const written = [];
  let indexBytes = 0;
  let tableBytes;
  const started = performance.now();
  const extension = await writeSearchIndexSpilling(counted(), { ...options, scratchFolder }, async (file, bytes) => {
    mkdirSync(path.dirname(path.join(tree, file)), { recursive: true });
    writeFileSync(path.join(tree, file), bytes);
    written.push(file);
    indexBytes += bytes.length;
    if (file.endsWith('.table.json')) tableBytes = bytes.length;
  });
  const buildMs = performance.now() - started;
  rmSync(scratchFolder, { recursive: true, force: true });
  const manifestPath = path.join(tree, 'mcp.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  manifest.staticmcp.search = extension;
  writeFileSync(manifestPath, JSON.stringify(manifest));
  const summary = {
    documentCount,
    buildMs,
    files: written.length,
    indexBytes,
    tableBytes: tableBytes ?? JSON.stringify(extension).length,
    tableInline: tableBytes === undefined,
    termIndexes: written.filter((file) => file.includes('/terms/') && file.endsWith('.idx')).length,
    peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
  };
  writeFileSync(done, JSON.stringify(summary));
  return { tree, ...summary };
}

// Shared by the search benches: a built tree (mcp.json, _worker.js, one resource) whose search
// index is replaced by one written from a given corpus with today's writeSearchIndex, kept in a
// folder named by the corpus and the writer's options so a second run reuses it (building the
// 650,000-document index takes minutes and ~10 GiB). Debian's package descriptions come from
// `apt-cache dumpavail`; the Wikipedia-shaped corpus from search-query-corpus.mjs.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cliPath } from './common.mjs';
import { loadWriteSearchIndex } from './in-memory-search-index.mjs';
import { wikiDocuments } from './search-query-corpus.mjs';

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

/**
 * The tree of `corpus` (cached below the temp folder); `options` go to writeSearchIndex. Returns
 * { tree, documents (undefined when reused), buildMs, files, indexBytes, tableBytes }.
 */
export async function searchTree(corpus, count, options = {}) {
  const scale = corpus === 'wiki' ? `-x${process.env.TEXT_SCALE ?? 1}` : '';
  const tag = `${corpus}-${count}${scale}-${options.targetTermIndexBytes ?? 'default'}`;
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

  const documents = corpusDocuments(corpus, count);
  const writeSearchIndex = await loadWriteSearchIndex();
  const started = performance.now();
  const written = writeSearchIndex(documents, options);
  const buildMs = performance.now() - started;
  let indexBytes = 0;
  for (const file of written.files) {
    mkdirSync(path.dirname(path.join(tree, file.path)), { recursive: true });
    writeFileSync(path.join(tree, file.path), file.bytes);
    indexBytes += file.bytes.length;
  }
  const manifestPath = path.join(tree, 'mcp.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  manifest.staticmcp.search = written.extension;
  writeFileSync(manifestPath, JSON.stringify(manifest));
  const tableFile = written.files.find((file) => file.path.endsWith('.table.json'));
  const summary = {
    documentCount: documents.length,
    buildMs,
    files: written.files.length,
    indexBytes,
    tableBytes: tableFile?.bytes.length ?? JSON.stringify(written.extension).length,
    tableInline: tableFile === undefined,
    termIndexes: written.files.filter((file) => file.path.includes('/terms/') && file.path.endsWith('.idx')).length,
  };
  writeFileSync(done, JSON.stringify(summary));
  return { tree, documents, ...summary };
}

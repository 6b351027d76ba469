// Pagefind 1.6 where it runs, a browser (issue #40), on the corpora of bench/search-overlap.mjs
// (lib/text-corpora.mjs: man pages, node_modules Markdown): each corpus's documents as Markdown
// files ("# title", then the text) indexed by Pagefind's Node API in a child (lib/pagefind-index.mjs:
// its CPU with its binary's, peak RSS), its output's bytes ÷ the raw text (the index's data files,
// and with the search UI's script and WebAssembly), then QUERIES two-word queries (the same as
// search-overlap's) in Debian's chromium through playwright-core, against a local HTTP server that
// counts requests and bytes: cold (a new browser context per query, so no cache: pagefind.js,
// its WebAssembly, the meta file, the index chunks of the words, and the fragments of the top 10,
// which hold the excerpts) and warm (one page, query after query), with the wall time of each;
// and Pagefind's top 10 against FTS5's (porter tokenizer) for overlap@10.
// Pagefind ANDs a query's words where FTS5 (as the comparison runs it) and staticmcp OR them, so
// its overlap is lower by design; its figure is what a user of each gets for the same typing.
// Run: node bench/search-vs-pagefind.mjs   (MAN=1200 MARKDOWN=6000 QUERIES=50)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { median, tempDir } from './lib/common.mjs';
import { fts5Top, manPages, markdownFiles, overlapOf, queriesOf } from './lib/text-corpora.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const MAN = Number(process.env.MAN ?? 1200);
const MARKDOWN = Number(process.env.MARKDOWN ?? 6000);
const QUERIES = Number(process.env.QUERIES ?? 50);
const CHROMIUM = '/usr/bin/chromium';

if (!existsSync(CHROMIUM)) {
  console.log(`skipped: ${CHROMIUM} is missing (apt-get install chromium)`);
  process.exit(0);
}

function percentile(values, fraction) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))];
}

/** Serves `root` (and an empty page at /) counting requests and bytes sent. */
async function countingServer(root) {
  const counts = { requests: 0, bytes: 0 };
  const server = http.createServer((request, response) => {
    const url = new URL(request.url, 'http://localhost');
    if (url.pathname === '/') {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<!doctype html><title>search</title>');
      return;
    }
    const file = path.join(root, decodeURIComponent(url.pathname));
    if (!file.startsWith(root) || !existsSync(file) || !statSync(file).isFile()) {
      response.writeHead(404).end();
      return;
    }
    const bytes = readFileSync(file);
    counts.requests += 1;
    counts.bytes += bytes.length;
    const type = file.endsWith('.js') ? 'text/javascript' : 'application/octet-stream';
    response.writeHead(200, { 'content-type': type, 'content-length': bytes.length });
    response.end(bytes);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/`, counts, close: () => server.close() };
}

/** Pagefind's top 10 (document numbers from their URLs, /<number>/) and the fragments loaded. */
async function searchIn(page, query) {
  return page.evaluate(async (text) => {
    const pagefind = await import('/pagefind/pagefind.js');
    const found = await pagefind.search(text);
    const top = await Promise.all(found.results.slice(0, 10).map((result) => result.data()));
    return top.map((data) => Number(/^\/(\d+)\//.exec(data.url)?.[1] ?? -1));
  }, query);
}

function folderBytes(folder) {
  let data = 0;
  let all = 0;
  for (const entry of readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const size = statSync(path.join(entry.parentPath, entry.name)).size;
    all += size;
    if (/\.pf_(index|fragment|meta|filter)$/.test(entry.name) || entry.name === 'pagefind-entry.json') data += size;
  }
  return { data, all };
}

const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
try {
  for (const [name, documents] of [
    ['man pages', manPages(MAN)],
    ['node_modules Markdown', markdownFiles(MARKDOWN)],
  ]) {
    if (documents.length === 0) continue;
    const sorted = [...documents].sort((a, b) => Buffer.compare(Buffer.from(a.id), Buffer.from(b.id)));
    const rawBytes = sorted.reduce((sum, document) => sum + Buffer.byteLength(document.title + document.text), 0);
    console.log(`\n${name}: ${sorted.length} documents, ${(rawBytes / 1e6).toFixed(1)} MB of text`);
    const folder = tempDir('search-vs-pagefind-in-');
    sorted.forEach((document, number) => {
      const file = path.join(folder, `${number}.md`);
      writeFileSync(file, `# ${document.title}\n\n${document.text}`);
    });
    const out = tempDir('search-vs-pagefind-out-');
    mkdirSync(path.join(out, 'pagefind'));
    const built = spawnSync(
      process.execPath,
      [path.join(here, 'lib', 'pagefind-index.mjs'), folder, path.join(out, 'pagefind')],
      { encoding: 'utf8', maxBuffer: 1 << 26 },
    );
    if (built.status !== 0) throw new Error(`pagefind-index.mjs: ${built.stderr.slice(-400)}`);
    const figures = JSON.parse(built.stdout.trim().split('\n').at(-1));
    const size = folderBytes(path.join(out, 'pagefind'));
    console.log(
      `  Pagefind build: CPU ${(figures.ownCpuMs + figures.binaryCpuMs).toFixed(0)} ms (Node ${figures.ownCpuMs.toFixed(0)} + binary ${figures.binaryCpuMs.toFixed(0)}), ` +
        `peak RSS ${figures.binaryPeakRssMb.toFixed(0)} MiB (binary); index data ${(size.data / 1e6).toFixed(1)} MB = ` +
        `${(size.data / rawBytes).toFixed(2)}× the text (${(size.all / 1e6).toFixed(1)} MB with its script and WebAssembly)`,
    );

    const queries = queriesOf(sorted, QUERIES);
    const server = await countingServer(out);
    try {
      const cold = [];
      const tops = [];
      for (const query of queries) {
        const context = await browser.newContext();
        const page = await context.newPage();
        await page.goto(server.url);
        const before = { ...server.counts };
        const started = performance.now();
        tops.push(await searchIn(page, query));
        cold.push({
          ms: performance.now() - started,
          requests: server.counts.requests - before.requests,
          bytes: server.counts.bytes - before.bytes,
        });
        await context.close();
      }
      const warm = [];
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(server.url);
      await searchIn(page, 'warmup');
      for (const query of queries) {
        const before = { ...server.counts };
        const started = performance.now();
        await searchIn(page, query);
        warm.push({
          ms: performance.now() - started,
          requests: server.counts.requests - before.requests,
          bytes: server.counts.bytes - before.bytes,
        });
      }
      await context.close();
      const line = (label, rows) =>
        console.log(
          `  ${label} (${rows.length} queries, top 10 with fragments): requests p50 ${median(rows.map((row) => row.requests))} ` +
            `max ${Math.max(...rows.map((row) => row.requests))}; bytes p50 ${(median(rows.map((row) => row.bytes)) / 1024).toFixed(1)} KiB ` +
            `max ${(Math.max(...rows.map((row) => row.bytes)) / 1024).toFixed(1)} KiB; wall p50 ${median(rows.map((row) => row.ms)).toFixed(0)} ms ` +
            `p99 ${percentile(
              rows.map((row) => row.ms),
              0.99,
            ).toFixed(0)} ms`,
        );
      line('cold, new context', cold);
      line('warm, one page', warm);
      const numberOf = new Map(sorted.map((_, number) => [String(number), number]));
      const ours = tops.map((numbers) => numbers.map(String));
      const porter = fts5Top(sorted, queries, 'porter unicode61 remove_diacritics 2');
      console.log(`  overlap@10 Pagefind vs FTS5 porter (words ORed): ${overlapOf(ours, porter, numberOf).toFixed(3)}`);
    } finally {
      server.close();
    }
  }
} finally {
  await browser.close();
}

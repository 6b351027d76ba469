// Where a search index's bytes go (issue #40), on the corpora nobody tuned on (the machine's man
// pages, node_modules' Markdown; text-corpora.mjs), written by dist's spilling writer with Porter
// stems and without: per part, the record bodies (term records split into words and stems, and the
// stem records whose body is byte for byte a word's: a stem with one word), the records' own bytes
// (header and names), the pack headers and the indexes, each as a share of the raw text.
// Run: npm run build && node bench/search-index-bytes.mjs   (MAN=1200 MARKDOWN=6000)
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot, tempDir } from './lib/common.mjs';
import { manPages, markdownFiles } from './lib/text-corpora.mjs';

const dist = (file) => import(path.join(repoRoot, 'dist', file));
const { writeSearchIndexSpilling } = await dist('tree-writer/search-index-spill-writer.js');
const { parsePack } = await dist('core/packs/pack-format.js');

const MAN = Number(process.env.MAN ?? 1200);
const MARKDOWN = Number(process.env.MARKDOWN ?? 6000);

async function writeIndex(documents, stemming) {
  const out = tempDir('search-index-bytes-');
  await writeSearchIndexSpilling(
    documents,
    { stemming, scratchFolder: path.join(out, '.scratch') },
    async (file, bytes) => {
      mkdirSync(path.dirname(path.join(out, file)), { recursive: true });
      writeFileSync(path.join(out, file), bytes);
    },
  );
  return path.join(out, 'packs', 'search.index');
}

function breakdown(folder) {
  const sums = {};
  const add = (key, bytes) => {
    sums[key] = (sums[key] ?? 0) + bytes;
  };
  for (const part of readdirSync(folder)) {
    const dir = path.join(folder, part);
    if (part.endsWith('.json')) {
      add('table', readFileSync(dir).length);
      continue;
    }
    const wordBodies = new Map();
    const stems = [];
    for (const name of readdirSync(dir)) {
      const bytes = readFileSync(path.join(dir, name));
      if (name.endsWith('.idx')) {
        add(`${part} indexes`, bytes.length);
        continue;
      }
      add(`${part} pack headers`, 16);
      const parsed = parsePack(bytes, name);
      if ('status' in parsed) throw new Error(parsed.reason);
      for (const { length, record } of parsed.records) {
        const name0 = record.names[0];
        const kind =
          part === 'terms'
            ? name0.endsWith('\u0001')
              ? 'stem'
              : 'word'
            : part === 'titles'
              ? name0.length > 8
                ? 'excerpt source'
                : 'title block'
              : 'document';
        add(`${part} ${kind} bodies`, record.body.length);
        add(`${part} record overheads`, length - record.body.length);
        if (kind === 'word') wordBodies.set(name0, record.body);
        if (kind === 'stem') stems.push({ record, length });
      }
    }
    for (const { record, length } of stems) {
      const word = wordBodies.get(record.names[0].slice(1));
      if (word === undefined || Buffer.compare(word, record.body) !== 0) continue;
      // Its record and its index entry (16 bytes and the key) hold nothing the word's does not.
      add(
        "terms stem records equal to their word's (with index entries)",
        length + 16 + Buffer.byteLength(record.names[0]),
      );
    }
  }
  return sums;
}

for (const [label, documents] of [
  ['man pages', manPages(MAN)],
  ['node_modules Markdown', markdownFiles(MARKDOWN)],
]) {
  const raw = documents.reduce((sum, document) => sum + Buffer.byteLength(document.title + document.text), 0);
  console.log(`\n${label}: ${documents.length} documents, ${(raw / 1e6).toFixed(2)} MB of text`);
  for (const stemming of ['porter', 'none']) {
    const sums = breakdown(await writeIndex(documents, stemming));
    const total = Object.entries(sums)
      .filter(([key]) => !key.includes('equal'))
      .reduce((sum, [, bytes]) => sum + bytes, 0);
    console.log(`  ${stemming}: ${(total / 1e6).toFixed(2)} MB = ${(total / raw).toFixed(3)}× the text`);
    for (const [key, bytes] of Object.entries(sums).sort((a, b) => b[1] - a[1]))
      console.log(`    ${key.padEnd(40)} ${(bytes / 1e6).toFixed(3).padStart(8)} MB ${(bytes / raw).toFixed(3)}×`);
  }
}

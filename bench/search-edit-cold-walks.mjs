// What the search step's per-document walks cost an edit build (issue #39, "Edits in a second"),
// each run once, cold, as a build runs it: a build walks its 10,000 documents a few dozen times,
// each walk about once, mostly before V8 optimizes it, so a walk costs what its bytecode and the
// garbage it makes cost, and a build's stage CPU at load 20-30 moves by more than one walk does.
// Each round starts a fresh Node process per side that loads the compiled modules of one dist
// (BEFORE_DIST, e.g. an older build's dist, and this checkout's) and times, in CPU ms: the
// landing page views of COUNT ids (documentViewUrl), the title part's sizing pass (titleRecords),
// the documents' numbers (DocumentColumns.numbers) and the fetch records' source (documentRecords:
// its build, two visits of the sizes, the records). Sides alternate (before, after, after,
// before, ...); medians and ranges are printed.
// Run: npm run build && BEFORE_DIST=<another checkout>/dist node bench/search-edit-cold-walks.mjs
//   (ROUNDS=4 COUNT=10000)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { median, repoRoot } from './lib/common.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 4);
const COUNT = Number(process.env.COUNT ?? 10000);

/** One side's walks, in this (child) process; prints their CPU ms as JSON. */
async function child(dist) {
  const load = (module) => import(pathToFileURL(path.join(dist, module)).href);
  const { titleRecords, documentRecords } = await load('tree-writer/search-scratch-records.js');
  const { DocumentIds } = await load('tree-writer/search-document-ids.js');
  const { DocumentColumns } = await load('tree-writer/search-document-columns.js');
  const { documentViewUrl } = await load('core/search/document-url.js');
  const names = [];
  for (let position = 0; position < COUNT; position += 1)
    names.push(`resources/part-${Math.floor(position / 1000)}/doc-${position}.md.json`);
  names.sort((left, right) => Buffer.compare(Buffer.from(left), Buffer.from(right)));
  const cpu = () => {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1000;
  };
  const times = {};
  const time = (name, run) => {
    const start = cpu();
    run();
    times[name] = cpu() - start;
  };
  time('documentViewUrl', () => {
    for (const name of names) documentViewUrl(name, '');
  });
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'search-edit-cold-walks-'));
  try {
    const columns = new DocumentColumns(scratch, true);
    for (const name of names) columns.ids.push(name);
    let byNumber;
    time('numbers', () => {
      byNumber = columns.numbers().byNumber;
    });
    columns.close();
    const ids = new DocumentIds();
    for (const name of names) ids.push(name);
    const tails = new Uint32Array(COUNT).fill(40);
    const sources = new Uint32Array(COUNT).fill(900);
    const bodies = new Uint32Array(COUNT);
    time('titleRecords sizes', () => {
      titleRecords(
        byNumber,
        16,
        ids,
        tails,
        () => new Uint8Array(40),
        sources,
        () => new Uint8Array(900),
        (arrival) => bodies[arrival] === 0,
        () => new Uint8Array(32),
      );
    });
    const keyHigh = new Uint32Array(COUNT);
    const keyLow = new Uint32Array(COUNT);
    for (let arrival = 0; arrival < COUNT; arrival += 1) {
      keyHigh[arrival] = Math.imul(arrival + 1, 0x9e3779b1) >>> 0;
      keyLow[arrival] = Math.imul(arrival + 7, 0x85ebca6b) >>> 0;
    }
    let records;
    time('documentRecords', () => {
      records = documentRecords(
        ids,
        keyHigh,
        keyLow,
        bodies,
        () => new Uint8Array(0),
        () => ({}),
      );
      records.visitSizes(() => {});
      records.visitSizes(() => {});
      for (const _record of records.records());
    });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  process.stdout.write(JSON.stringify(times));
}

function run(dist) {
  const result = spawnSync(process.execPath, [process.argv[1], '--child', dist], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`the ${dist} side failed: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

if (process.argv[2] === '--child') await child(process.argv[3]);
else {
  const before = process.env.BEFORE_DIST ? path.resolve(process.env.BEFORE_DIST) : undefined;
  const sides = before ? { before, after: path.join(repoRoot, 'dist') } : { after: path.join(repoRoot, 'dist') };
  const results = Object.fromEntries(Object.keys(sides).map((side) => [side, []]));
  for (let round = 0; round < ROUNDS; round += 1) {
    const order = round % 2 === 0 ? Object.keys(sides) : Object.keys(sides).reverse();
    for (const side of order) results[side].push(run(sides[side]));
  }
  console.log(
    `${COUNT} ids, ${ROUNDS} rounds (fresh process each), CPU ms median [min-max]; load ${os.loadavg()[0].toFixed(1)}`,
  );
  for (const walk of Object.keys(results.after[0])) {
    const cells = Object.entries(results).map(([side, runs]) => {
      const values = runs.map((times) => times[walk]);
      return `${side} ${median(values).toFixed(1)} [${Math.min(...values).toFixed(1)}-${Math.max(...values).toFixed(1)}]`;
    });
    console.log(`  ${walk.padEnd(20)} ${cells.join('   ')}`);
  }
}

// What a packed call read costs against reading the call's own file (issue #24): one tool of CALLS
// calls with ~2 KB answers (shaped like Wikipedia's tree), written once as plain files and once as
// packs of each size in PACK_SIZES; then LOOKUPS random calls per round, the readers in turn
// (rounds interleaved, so noise from other jobs on the machine hits all alike):
//   - plain:        FolderSource.read of tools/article/<key>.json (today's layout, the baseline),
//   - packed range: PackedTreeSource over FolderPackFiles (one cached index + one range read),
//   - packed whole: the same over a host that ignores ranges (the whole pack read per call),
// each cold (a new source: empty index cache) and warm (the same source, second pass).
// Prints µs per lookup (median and best round), the ratio to plain, file counts and the largest file.
// Run: npx tsc -p tsconfig.json && node bench/pack-lookup.mjs   (CALLS=50000 LOOKUPS=5000 ROUNDS=5)
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { median, repoRoot, tempDir } from './lib/common.mjs';

const dist = (file) => import(path.join(repoRoot, 'dist', file));
const { FolderSource } = await dist('hosts/node/folder-source.js');
const { FolderPackFiles } = await dist('hosts/node/folder-pack-files.js');
const { PackedTreeSource } = await dist('core/packs/packed-tree-source.js');
const { parsePackTable } = await dist('core/packs/pack-table.js');
const { packToolRecords } = await dist('tree-writer/pack-writer.js');

const CALLS = Number(process.env.CALLS ?? 20_000);
const LOOKUPS = Number(process.env.LOOKUPS ?? 3_000);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const PACK_SIZES = (process.env.PACK_SIZES ?? '262144,1048576,4194304').split(',').map(Number);
const INDEX_BYTES = Number(process.env.INDEX_BYTES ?? 64 * 1024);

function answerOf(position) {
  // ~2 KB of prose-like text, different per call.
  const words = [];
  for (let word = 0; words.join(' ').length < 1900; word += 1)
    words.push(`w${(position * 7919 + word * 104729) % 100000}`);
  return JSON.stringify({ content: [{ type: 'text', text: words.join(' ') }] });
}

const encoder = new TextEncoder();
const paths = Array.from({ length: CALLS }, (_, position) => `tools/article/Article_${position}.json`);
const records = paths.map((treePath, position) => ({ paths: [treePath], bytes: encoder.encode(answerOf(position)) }));

function folderStats(root) {
  let count = 0;
  let largest = 0;
  for (const name of readdirSync(root, { recursive: true })) {
    const stats = statSync(path.join(root, name));
    if (stats.isFile()) {
      count += 1;
      largest = Math.max(largest, stats.size);
    }
  }
  return { count, largest };
}

const plainRoot = tempDir('staticmcp-bench-plain-');
mkdirSync(path.join(plainRoot, 'tools/article'), { recursive: true });
for (const record of records) writeFileSync(path.join(plainRoot, record.paths[0]), record.bytes);

const packedTrees = PACK_SIZES.map((targetPackBytes) => {
  const root = tempDir('staticmcp-bench-packed-');
  const started = performance.now();
  const packed = packToolRecords({ tool: 'article', records, targetPackBytes, targetIndexBytes: INDEX_BYTES });
  const packMs = performance.now() - started;
  for (const file of packed.files) {
    mkdirSync(path.dirname(path.join(root, file.path)), { recursive: true });
    writeFileSync(path.join(root, file.path), file.bytes);
  }
  const parsed = parsePackTable({ article: packed.table });
  if ('problem' in parsed) throw new Error(parsed.problem);
  return { targetPackBytes, root, table: parsed.table, rows: packed.table.length, packMs };
});

/** A host that serves no ranges: every read is the whole file. */
class WholeFiles {
  constructor(root) {
    this.files = new FolderPackFiles(root);
  }
  readBytes(relativePath) {
    return this.files.readBytes(relativePath);
  }
}

let seed = 12345;
function randomPosition() {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed % CALLS;
}

async function timeLookups(source, sample) {
  const started = performance.now();
  for (const position of sample) {
    const read = await source.read(paths[position]);
    if (read.status !== 'ok') throw new Error(`${paths[position]}: ${read.status}`);
  }
  return ((performance.now() - started) * 1000) / sample.length;
}

const readers = [{ name: 'plain file', make: () => new FolderSource(plainRoot, 'plain') }];
for (const tree of packedTrees) {
  const kib = `${tree.targetPackBytes / 1024} KiB`;
  readers.push({
    name: `packed ${kib}, range`,
    make: () => new PackedTreeSource(new FolderSource(tree.root, 'packed'), new FolderPackFiles(tree.root), tree.table),
  });
  readers.push({
    name: `packed ${kib}, whole`,
    make: () => new PackedTreeSource(new FolderSource(tree.root, 'packed'), new WholeFiles(tree.root), tree.table),
  });
}

const cold = new Map(readers.map((reader) => [reader.name, []]));
const warm = new Map(readers.map((reader) => [reader.name, []]));
for (let round = 0; round < ROUNDS; round += 1) {
  const sample = Array.from({ length: LOOKUPS }, randomPosition);
  for (const reader of readers) {
    const source = reader.make();
    cold.get(reader.name).push(await timeLookups(source, sample));
    warm.get(reader.name).push(await timeLookups(source, sample));
  }
}

const plainStats = folderStats(plainRoot);
console.log(
  `${CALLS} calls of ~2 KB, ${LOOKUPS} random lookups × ${ROUNDS} rounds, index target ${INDEX_BYTES / 1024} KiB`,
);
console.log(`plain tree: ${plainStats.count} files, largest ${plainStats.largest} B`);
for (const tree of packedTrees) {
  const stats = folderStats(tree.root);
  console.log(
    `packed ${tree.targetPackBytes / 1024} KiB: ${stats.count} files, largest ${(stats.largest / 1024).toFixed(0)} KiB, ${tree.rows} table rows, packed in ${tree.packMs.toFixed(0)} ms`,
  );
}
// The median, and the best round: on a shared machine the best round is the least disturbed one.
const best = (values) => Math.min(...values);
const column = (values, base, pick) =>
  `${pick(values).toFixed(1).padStart(7)} (${(pick(values) / pick(base)).toFixed(2)}×)`;
console.log('µs per lookup (×plain)      cold median      cold best        warm median      warm best');
for (const reader of readers) {
  const c = cold.get(reader.name);
  const w = warm.get(reader.name);
  const baseCold = cold.get('plain file');
  const baseWarm = warm.get('plain file');
  console.log(
    `${reader.name.padEnd(27)} ${column(c, baseCold, median)}  ${column(c, baseCold, best)}  ${column(w, baseWarm, median)}  ${column(w, baseWarm, best)}`,
  );
}

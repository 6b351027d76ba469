// The layout of a content tree at scale (issue #39): a project of N generated text documents
// (~600 bytes each, in folders of 1,000) built with the default limits, for each N in SIZES. Prints
// per N: build wall and CPU, files, largest file, mcp.json size, list parts, resource packs, and the
// bytes a cold worker reads for initialize and the first resources/list (the core over a source
// that counts, wrapped as the worker wraps its assets: packs read through the same table). Then
// the arithmetic for 1,000,000 documents from the pack writer's own sizing (maxPackFilesFor).
// Search is off by default (SEARCH=1 indexes too): the index has its own budget (search.md).
// Run: npm run build && node bench/content-scale.mjs   (SIZES=10000,100000 SEARCH=0)
// The corpus is generated here, then built by the CLI (`staticmcp build`) in its own process under
// /usr/bin/time: its wall, CPU (user+sys) and peak RSS are the command's own, not this process's
// (whose corpus generation and tree reading came before and after).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cliPath, repoRoot, tempDir } from './lib/common.mjs';

const dist = (file) => import(path.join(repoRoot, 'dist', file));
const { FolderSource } = await dist('hosts/node/folder-source.js');
const { FolderPackFiles } = await dist('hosts/node/folder-pack-files.js');
const { ManifestPackedSource } = await dist('core/packs/manifest-packed-source.js');
const { createNodeServerContext } = await dist('hosts/node/node-server-context.js');
const { McpSession } = await dist('core/mcp/mcp-session.js');
const { maxPackFilesFor, DEFAULT_TARGET_PACK_BYTES, MAX_PACK_BYTES } = await dist('tree-writer/pack-writer.js');
const { DEFAULT_MAX_CALL_FILES } = await dist('builder/host-limits.js');
const { RESOURCE_FILES_IN_MARGIN } = await dist('builder/host-limits.js');
const { DEFAULT_RESOURCES_IN_MANIFEST, DEFAULT_RESOURCES_PER_LIST_PART } = await dist('core/tree/resource-list.js');

const SIZES = (process.env.SIZES ?? '10000,100000').split(',').map(Number);
const SEARCH = process.env.SEARCH === '1';
const WORDS = 'static content server tree pack index part list resource document page site host edge worker'.split(' ');

function documentText(position) {
  const words = [];
  for (let word = 0; words.join(' ').length < 560; word++) words.push(WORDS[(position * 7 + word * 13) % WORDS.length]);
  return `Document ${position}\n\n${words.join(' ')}\n`;
}

function makeProject(count) {
  const root = tempDir('content-scale-');
  for (let position = 0; position < count; position++) {
    const folder = path.join(root, 'resources', `part-${Math.floor(position / 1000)}`);
    if (position % 1000 === 0) mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, `doc-${position}.txt`), documentText(position));
  }
  writeFileSync(path.join(root, 'staticmcp.json'), JSON.stringify({ search: SEARCH ? { resources: true } : false }));
  return root;
}

function walk(root) {
  let files = 0;
  let largest = { path: '', bytes: 0 };
  const byTop = {};
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    const bytes = statSync(full).size;
    const relative = path.relative(root, full);
    files += 1;
    const top = relative.split(path.sep)[0];
    byTop[top] = (byTop[top] ?? 0) + 1;
    if (bytes > largest.bytes) largest = { path: relative, bytes };
  }
  return { files, largest, byTop };
}

/** Bytes a cold host reads for initialize + the first resources/list, text and binary. */
async function coldListBytes(tree) {
  const reads = [];
  const folder = new FolderSource(tree, 'tree');
  const counting = {
    displayName: 'tree',
    revalidateAfterMs: undefined,
    async read(relativePath, etag) {
      const outcome = await folder.read(relativePath, etag);
      if (outcome.status === 'ok') reads.push([relativePath, Buffer.byteLength(outcome.text)]);
      return outcome;
    },
    sizeOf: (relativePath) => folder.sizeOf?.(relativePath),
    close: () => folder.close(),
  };
  const packs = new FolderPackFiles(tree);
  const countingPacks = {
    async readBytes(relativePath, range) {
      const read = await packs.readBytes(relativePath, range);
      if (read.status === 'ok') reads.push([relativePath, read.bytes.length]);
      return read;
    },
  };
  const server = await createNodeServerContext({
    source: new ManifestPackedSource(counting, countingPacks),
    packFiles: countingPacks,
    logProblem: () => {},
  });
  const session = new McpSession(server, () => {});
  const ask = (id, method, params) => session.handleParsed({ jsonrpc: '2.0', id, method, params }, () => {});
  await ask(1, 'initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'bench', version: '1' },
  });
  const afterInitialize = reads.reduce((sum, [, bytes]) => sum + bytes, 0);
  const listed = await ask(2, 'resources/list', {});
  const total = reads.reduce((sum, [, bytes]) => sum + bytes, 0);
  await session.close(0, 1_000);
  return { afterInitialize, total, files: reads.map(([file]) => file), listed: listed.result.resources.length };
}

/** `staticmcp build` of `project` into `outDir` in its own process: wall s, CPU s, peak RSS MiB. */
function buildInChild(project, outDir) {
  const result = spawnSync(
    '/usr/bin/time',
    ['-f', 'TIME %e %U %S %M', process.execPath, cliPath, 'build', project, '--out', outDir, '--json'],
    { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
  );
  const timing = /TIME ([\d.]+) ([\d.]+) ([\d.]+) (\d+)/.exec(result.stderr);
  if (result.status !== 0 || !timing) throw new Error(`build failed (${result.status}): ${result.stderr.slice(-2000)}`);
  const report = JSON.parse(result.stdout);
  if (!report.ok) throw new Error(`build not ok: ${JSON.stringify(report.failures.slice(0, 3))}`);
  return { wallS: Number(timing[1]), cpuS: Number(timing[2]) + Number(timing[3]), rssMiB: Number(timing[4]) / 1024 };
}

const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;
const mib = (bytes) => `${(bytes / 1024 / 1024).toFixed(2)} MiB`;
let last;
for (const count of SIZES) {
  const project = makeProject(count);
  const outDir = path.join(project, 'dist');
  const built = buildInChild(project, outDir);
  const { files, largest, byTop } = walk(outDir);
  const manifest = statSync(path.join(outDir, 'mcp.json')).size;
  const packFolder = path.join(outDir, 'packs', 'resources.files');
  const packFiles = readdirSync(packFolder, { withFileTypes: true }).filter((entry) => entry.isFile());
  const packBytes = packFiles
    .filter((entry) => entry.name.endsWith('.pack'))
    .reduce((sum, entry) => sum + statSync(path.join(packFolder, entry.name)).size, 0);
  const cold = await coldListBytes(outDir);
  console.log(`\n${count.toLocaleString('en')} documents${SEARCH ? ' (search on)' : ''}`);
  console.log(
    `  build: ${built.wallS.toFixed(1)} s wall, ${built.cpuS.toFixed(1)} s CPU, peak RSS ${built.rssMiB.toFixed(0)} MiB (the CLI's process)`,
  );
  console.log(
    `  files: ${files} (${Object.entries(byTop)
      .map(([top, n]) => `${top} ${n}`)
      .join(', ')})`,
  );
  console.log(`  largest file: ${largest.path} ${mib(largest.bytes)}; mcp.json ${kib(manifest)}`);
  console.log(`  resource packs: ${packFiles.length} files, ${mib(packBytes)} of packs`);
  console.log(
    `  cold initialize: ${kib(cold.afterInitialize)}; + first resources/list: ${kib(cold.total)} (${cold.files.join(', ')}; ${cold.listed} listed)`,
  );
  // What one row of the manifest's tables costs, as written (pretty-printed): the part list and the pack table.
  const written = JSON.parse(readFileSync(path.join(outDir, 'mcp.json'), 'utf8'));
  const tableRows = written.staticmcp.resourceList.parts.length + written.staticmcp.packs['resources.files'].length;
  const withoutTables = structuredClone(written);
  delete withoutTables.staticmcp.resourceList;
  delete withoutTables.staticmcp.packs;
  const rowBytes = (manifest - JSON.stringify(withoutTables, null, 2).length) / tableRows;
  const indexRows = written.staticmcp.packs['resources.files'].length;
  const partsFolder = path.join(outDir, 'lists', 'resources');
  const partSizes = readdirSync(partsFolder).map((name) => statSync(path.join(partsFolder, name)).size);
  last = {
    count,
    packBytes,
    manifest,
    files,
    entryBytes: Math.max(...partSizes) / DEFAULT_RESOURCES_PER_LIST_PART,
    rowBytes,
    baseManifest: manifest - rowBytes * tableRows,
    indexRows,
  };
  console.log(`  mcp.json tables: ${tableRows} rows (${indexRows} pack index rows) at ~${rowBytes.toFixed(0)} B a row`);
}

// 1,000,000 documents: the same layout, arithmetic only. Records grow with the count (packs
// bytes per document as measured at the largest size); raw-name copies are one more name each.
const million = 1_000_000;
const perDocument = last.packBytes / last.count;
const recordBytes = perDocument * million;
const names = 2 * million;
const room = Math.max(RESOURCE_FILES_IN_MARGIN, DEFAULT_MAX_CALL_FILES);
let target = DEFAULT_TARGET_PACK_BYTES;
const packFilesAt = (bytes) => maxPackFilesFor(recordBytes, names, bytes);
while (
  packFilesAt(target) > room &&
  target * 2 <= MAX_PACK_BYTES * (2 / 3) &&
  packFilesAt(target * 2) < packFilesAt(target)
)
  target *= 2;
const packs = packFilesAt(target);
const packBits = Math.ceil(Math.log2(recordBytes / target));
const indexes = packs - 2 ** packBits;
const parts = Math.ceil((million - DEFAULT_RESOURCES_IN_MANIFEST) / DEFAULT_RESOURCES_PER_LIST_PART);
const partBytes = DEFAULT_RESOURCES_PER_LIST_PART * last.entryBytes;
console.log(`\n1,000,000 documents (arithmetic from ${last.count.toLocaleString('en')}):`);
console.log(
  `  packs: ${(recordBytes / 1e9).toFixed(2)} GB of records (${perDocument.toFixed(0)} B a document) at ${kib(target)} packs → at most ${packs} pack and index files (room ${room})`,
);
console.log(
  `  list parts: ${parts} files of ${DEFAULT_RESOURCES_PER_LIST_PART} entries (~${kib(partBytes)} each at ${last.entryBytes.toFixed(0)} B an entry, as measured)`,
);
console.log(
  `  mcp.json: ${kib(last.baseManifest)} without its tables + ${parts} parts and ${indexes} pack index rows at ~${last.rowBytes.toFixed(0)} B = ${kib(last.baseManifest + (parts + indexes) * last.rowBytes)}`,
);
console.log(
  `  files: ${packs} + ${parts} + ${2 * DEFAULT_RESOURCES_IN_MANIFEST} plain inline resource files + the build's own (~13) = ${packs + parts + 2 * DEFAULT_RESOURCES_IN_MANIFEST + 13}`,
);
console.log(
  `  largest file: a pack, under ${kib(target * 1.05)} (MAX_PACK_BYTES ${mib(MAX_PACK_BYTES)}), or a part (~${kib(partBytes)})`,
);

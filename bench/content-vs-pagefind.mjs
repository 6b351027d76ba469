// Content throughput against Pagefind (issue #39, "What the throughput figure counts"): for each
// size, a content project without tools (the man pages of this machine as Markdown resources,
// man-corpus.mjs, repeated with changed ids past their count) built by the whole `staticmcp build`
// (the compiled CLI as a child under /usr/bin/time: CPU user+sys, wall, peak RSS; index
// included), then Pagefind 1.6 given the same files (addCustomRecord in a child, its binary's CPU
// and RSS added: lib/pagefind-index.mjs), in ONE run, with ratio columns. Also: files, largest
// file, mcp.json size, and the no-op and one-document-edit rebuild times.
// Targets: build CPU ≤ 0.5× Pagefind's at 6,000+; peak RSS ≤ 200 MiB and ≤ 1.3× from 10k to 100k.
//   npm run build && node bench/content-vs-pagefind.mjs
// SIZES=6000,10000,100000 (default)  PAGEFIND=0 skips Pagefind  STATICMCP_CLI=<main.js> measures
// another compiled CLI. CPU_PROF=<folder> writes a --cpu-prof of each full build there.
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliPath, tempDir } from './lib/common.mjs';
import { manDocument, manPages } from './lib/man-corpus.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const SIZES = (process.env.SIZES ?? '6000,10000,100000').split(',').map(Number);
const WITH_PAGEFIND = process.env.PAGEFIND !== '0';
const CPU_PROF = process.env.CPU_PROF;

function writeProject(count) {
  const pages = manPages();
  const root = tempDir('content-vs-pagefind-');
  const made = new Set();
  let bytes = 0;
  for (let position = 0; position < count; position++) {
    const document = manDocument(pages, position);
    const file = path.join(root, 'resources', document.file);
    const folder = path.dirname(file);
    if (!made.has(folder)) mkdirSync(folder, { recursive: true });
    made.add(folder);
    writeFileSync(file, document.text);
    bytes += Buffer.byteLength(document.text);
  }
  writeFileSync(path.join(root, 'staticmcp.json'), JSON.stringify({ search: { resources: true } }));
  return { root, bytes, editable: path.join(root, 'resources', manDocument(pages, Math.floor(count / 2)).file) };
}

/** One `staticmcp build` under /usr/bin/time: wall, CPU (user+sys) and peak RSS of the child. */
function timedBuild(project, profileName) {
  const profile =
    CPU_PROF && profileName ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF}`, `--cpu-prof-name=${profileName}`] : [];
  const started = performance.now();
  const result = spawnSync(
    '/usr/bin/time',
    ['-f', 'TIME %U %S %M', process.execPath, ...profile, cliPath, 'build', project],
    { encoding: 'utf8', maxBuffer: 1 << 26 },
  );
  const wallMs = performance.now() - started;
  const measured = /TIME (\S+) (\S+) (\d+)\s*$/.exec(result.stderr);
  if (result.status !== 0 || !measured)
    throw new Error(`staticmcp build exited ${result.status ?? result.signal}: ${result.stderr.slice(-800)}`);
  return {
    wallMs,
    cpuMs: (Number(measured[1]) + Number(measured[2])) * 1000,
    peakRssMb: Number(measured[3]) / 1024,
  };
}

function pagefindRun(project) {
  const out = path.join(project, 'pagefind');
  const started = performance.now();
  const result = spawnSync(
    process.execPath,
    [path.join(here, 'lib', 'pagefind-index.mjs'), path.join(project, 'resources'), out],
    { encoding: 'utf8', maxBuffer: 1 << 26 },
  );
  const wallMs = performance.now() - started;
  if (result.status !== 0) throw new Error(`pagefind child exited ${result.status}: ${result.stderr.slice(-800)}`);
  const measured = JSON.parse(result.stdout.trim().split('\n').at(-1));
  rmSync(out, { recursive: true, force: true });
  return {
    wallMs,
    documents: measured.documents,
    cpuMs: measured.ownCpuMs + measured.binaryCpuMs,
    // Both processes run together, so the sum of their peaks bounds the pair's peak from above.
    peakRssMb: measured.ownPeakRssMb + measured.binaryPeakRssMb,
    binaryPeakRssMb: measured.binaryPeakRssMb,
  };
}

function treeStats(tree) {
  let files = 0;
  let largest = { path: '', bytes: 0 };
  for (const entry of readdirSync(tree, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    const bytes = statSync(full).size;
    files += 1;
    if (bytes > largest.bytes) largest = { path: path.relative(tree, full), bytes };
  }
  return { files, largest, manifestBytes: statSync(path.join(tree, 'mcp.json')).size };
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const mib = (mb) => `${mb.toFixed(0)} MiB`;
const rows = [];
for (const count of SIZES) {
  const project = writeProject(count);
  console.error(`${count} documents written (${(project.bytes / 1e6).toFixed(1)} MB of Markdown); building`);
  const full = timedBuild(project.root, `full-${count}.cpuprofile`);
  const stats = treeStats(path.join(project.root, 'dist'));
  const noop = timedBuild(project.root);
  console.error(`staticmcp ${count}: ${JSON.stringify({ full, noop })}`);
  // Pagefind before the edit, so a run cut short still has the throughput pair.
  const pagefind = WITH_PAGEFIND ? pagefindRun(project.root) : undefined;
  if (pagefind) console.error(`pagefind ${count}: ${JSON.stringify(pagefind)}`);
  appendFileSync(project.editable, '\nOne more line of text, edited while benchmarking.\n');
  const edit = timedBuild(project.root, `edit-${count}.cpuprofile`);
  console.error(`staticmcp ${count} one edit: ${JSON.stringify(edit)}`);
  rmSync(path.join(project.root, 'dist'), { recursive: true, force: true });
  rmSync(project.root, { recursive: true, force: true });
  rows.push({ count, bytes: project.bytes, full, stats, noop, edit, pagefind });
}

console.log(`\nstaticmcp build (CLI: ${path.relative(process.cwd(), cliPath) || cliPath}) vs Pagefind 1.6, man pages`);
console.log(
  '| documents | MB | build wall | build CPU | Pagefind CPU | CPU ratio | peak RSS | Pagefind RSS | RSS ratio |',
);
console.log('|---|---|---|---|---|---|---|---|---|');
for (const { count, bytes, full, pagefind } of rows)
  console.log(
    `| ${count.toLocaleString('en')} | ${(bytes / 1e6).toFixed(0)} | ${seconds(full.wallMs)} | ${seconds(full.cpuMs)} | ${pagefind ? seconds(pagefind.cpuMs) : '-'} | ${pagefind ? `${(full.cpuMs / pagefind.cpuMs).toFixed(2)}×` : '-'} | ${mib(full.peakRssMb)} | ${pagefind ? `${mib(pagefind.peakRssMb)} (binary ${mib(pagefind.binaryPeakRssMb)})` : '-'} | ${pagefind ? `${(full.peakRssMb / pagefind.peakRssMb).toFixed(2)}×` : '-'} |`,
  );
console.log(
  '\n| documents | files | largest file | mcp.json | no-op wall / CPU | one-edit wall / CPU | Pagefind wall |',
);
console.log('|---|---|---|---|---|---|---|');
for (const { count, stats, noop, edit, pagefind } of rows)
  console.log(
    `| ${count.toLocaleString('en')} | ${stats.files} | ${stats.largest.path} ${(stats.largest.bytes / 1024 / 1024).toFixed(2)} MiB | ${(stats.manifestBytes / 1024).toFixed(1)} KiB | ${seconds(noop.wallMs)} / ${seconds(noop.cpuMs)} | ${seconds(edit.wallMs)} / ${seconds(edit.cpuMs)} | ${pagefind ? seconds(pagefind.wallMs) : '-'} |`,
  );
const at = (count) => rows.find((row) => row.count === count);
if (at(10000) && at(100000))
  console.log(
    `\npeak RSS 100,000 / 10,000: ${(at(100000).full.peakRssMb / at(10000).full.peakRssMb).toFixed(2)}× (target ≤ 1.3×, each ≤ 200 MiB)`,
  );

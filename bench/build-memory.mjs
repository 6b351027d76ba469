// Benchmark (issue #43): the build's own peak RSS by tree size, packed and unpacked, the scripts'
// cost left out. The one-tool grid project (bench/lib/grid-project.mjs) at BENCH_MEMORY_SIZES calls
// (default 4,000 and 40,000) is built once from its scripts (minutes at 40,000 on two cores; past
// 40,000, or with BENCH_FILL_CACHE=1, its build cache is filled as that build would fill it
// instead, without running the scripts: fillGridCache in bench/lib/grid-project.mjs), then
// rebuilt BENCH_REPETITIONS times (default 3) into a fresh output folder with every call answered
// from the build cache: unpacked (--max-call-files 0) and packed (the default budget, or
// BENCH_PACKED_BUDGET, default 2,000, for a tree within the default, so a 4,000-call tree packs too). Prints medians and the ratio of
// each size to the smallest (the goal: ≤ 1.3). BENCH_KEEP=<folder> keeps the projects and
// their build cache there for the next run; STATICMCP_CLI=path/to/main.js measures another CLI
// (main's, for a before/after: both read the same cache). Run `npm run build` first.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { cliPath, median, tempDir } from './lib/common.mjs';
import { createGridProject, fillGridCache, PEAK_RSS_HOOK } from './lib/grid-project.mjs';

const sizes = (process.env.BENCH_MEMORY_SIZES ?? '4000,40000').split(',').map(Number);
const repetitions = Number(process.env.BENCH_REPETITIONS ?? 3);
const packedBudget = process.env.BENCH_PACKED_BUDGET ?? '2000';
const keep = process.env.BENCH_KEEP ? path.resolve(process.env.BENCH_KEEP) : undefined;
/** `limits.maxCallFiles`' default (src/builder/host-limits.ts). */
const DEFAULT_MAX_CALL_FILES = 19_000;

async function gridProject(folder, size) {
  let project = path.join(folder, 'project');
  if (existsSync(project)) return project;
  project = createGridProject(folder, size).project;
  const fill = process.env.BENCH_FILL_CACHE ? process.env.BENCH_FILL_CACHE === '1' : size > 40_000;
  if (fill) await fillGridCache(project, size, cliPath);
  return project;
}

function build(folder, project, extra) {
  const out = path.join(folder, 'tree');
  const rssFile = path.join(folder, 'rss');
  rmSync(out, { recursive: true, force: true });
  // Forgets the no-op record, so the build runs (from the cache) whatever the tree holds.
  rmSync(path.join(project, '.staticmcp', 'up-to-date.json'), { force: true });
  const startedAt = performance.now();
  const result = spawnSync(
    process.execPath,
    ['--import', PEAK_RSS_HOOK, cliPath, 'build', project, '--out', out, ...extra],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, BENCH_RSS_FILE: rssFile },
      encoding: 'utf8',
    },
  );
  const ms = performance.now() - startedAt;
  if (result.status !== 0) throw new Error(`build failed (${result.status}): ${result.stderr}`);
  return { ms, rssMb: Number(readFileSync(rssFile, 'utf8')) / 1024 };
}

console.log(`cli: ${cliPath}, ${repetitions} repetitions from the build cache (medians)`);
const modes = { unpacked: ['--max-call-files', '0'] };
const rows = [];
for (const size of sizes) {
  const folder = keep ? path.join(keep, `grid-${size}`) : tempDir(`staticmcp-bench-memory-${size}-`);
  const project = await gridProject(folder, size);
  build(folder, project, ['--max-call-files', '0']);
  // The default budget packs the trees past it; BENCH_PACKED_BUDGET packs the smaller ones too.
  const packed = size > DEFAULT_MAX_CALL_FILES ? [] : ['--max-call-files', packedBudget];
  for (const [mode, extra] of [...Object.entries(modes), ['packed', packed]]) {
    const runs = Array.from({ length: repetitions }, () => build(folder, project, extra));
    const row = { size, mode, ms: median(runs.map((run) => run.ms)), rssMb: median(runs.map((run) => run.rssMb)) };
    rows.push(row);
    console.log(
      `${String(size).padStart(7)} calls ${mode.padEnd(8)} ${row.ms.toFixed(0).padStart(7)} ms, peak RSS ${row.rssMb.toFixed(1)} MB [${runs.map((run) => run.rssMb.toFixed(1)).join(', ')}]`,
    );
  }
}
const smallest = Math.min(...rows.map((row) => row.rssMb).slice(0, 2));
for (const row of rows.filter((row) => row.size !== sizes[0]))
  console.log(
    `peak RSS ${row.size} calls ${row.mode} / ${sizes[0]} calls (lower of its two): ${(row.rssMb / smallest).toFixed(2)} (goal ≤ 1.3)`,
  );

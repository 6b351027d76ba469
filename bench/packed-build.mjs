// Benchmark (issue #24): what packing costs the build, and what an edit or a no-op costs after it.
// Same-run ratios, interleaved repetitions, medians:
//   1. build time and peak RSS packed (--max-call-files BENCH_MAX_CALL_FILES, default 2,000) vs
//      unpacked (--max-call-files 0) of the several-tools project (BENCH_CALLS, default 20,000),
//      both into a fresh output folder with every call answered from the build cache (the pack
//      step's cost, not the scripts'), and packed again over its own previous tree;
//   2. a one-tool edit (one value added to one tool in staticmcp.json) of the packed build: how
//      many pack/index files of each tool are new, and how many kept their inode;
//   3. `staticmcp dev` rebuild after the same kind of edit, packed vs unpacked;
//   4. the no-op rebuild at BENCH_NOOP_SIZES unpacked calls (default 2,000 and 100,000) of a
//      one-tool, one-argument project. The 100,000-call project's first build runs 100,000
//      scripts (minutes on two cores): BENCH_KEEP=<folder> keeps the projects (and their build
//      cache) there for the next run.
// Run `npm run build` first; STATICMCP_CLI=path/to/main.js measures another build of the CLI.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cliPath, median, tempDir } from './lib/common.mjs';
import { writeBenchProject } from './lib/packed-tree-projects.mjs';

const calls = Number(process.env.BENCH_CALLS ?? 20000);
const maxCallFiles = Number(process.env.BENCH_MAX_CALL_FILES ?? 2000);
const repetitions = Number(process.env.BENCH_REPETITIONS ?? 3);
const noopSizes = (process.env.BENCH_NOOP_SIZES ?? '2000,100000').split(',').filter(Boolean).map(Number);
const keep = process.env.BENCH_KEEP ? path.resolve(process.env.BENCH_KEEP) : undefined;
// Records the child's own peak RSS (not its scripts') when it exits.
const PEAK_RSS_HOOK = `data:text/javascript,${encodeURIComponent(
  'import{writeFileSync}from"node:fs";process.on("exit",()=>writeFileSync(process.env.BENCH_RSS_FILE,String(process.resourceUsage().maxRSS)))',
)}`;

function build(root, project, out, extra = []) {
  const rssFile = path.join(root, 'rss');
  const startedAt = performance.now();
  const result = spawnSync(
    process.execPath,
    ['--import', PEAK_RSS_HOOK, cliPath, 'build', project, '--out', out, ...extra],
    { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, BENCH_RSS_FILE: rssFile }, encoding: 'utf8' },
  );
  const ms = performance.now() - startedAt;
  if (result.status !== 0) throw new Error(`build failed (${result.status}): ${result.stderr}`);
  return { ms, rssMb: Number(readFileSync(rssFile, 'utf8')) / 1024 };
}

/** Forgets the no-op record, so the next build runs (from the cache) whatever the tree holds. */
function forgetNoop(project) {
  rmSync(path.join(project, '.staticmcp', 'up-to-date.json'), { force: true });
}

/** Pack and index files by tool → their inodes. */
function packInodes(out) {
  const tools = new Map();
  const packs = path.join(out, 'packs');
  if (!existsSync(packs)) return tools;
  for (const tool of readdirSync(packs)) {
    const files = new Map();
    for (const name of readdirSync(path.join(packs, tool)))
      files.set(name, lstatSync(path.join(packs, tool, name)).ino);
    tools.set(tool, files);
  }
  return tools;
}

/** Adds one value to the capital tool's list in staticmcp.json (a one-tool edit). */
function addCountry(project, name) {
  const file = path.join(project, 'staticmcp.json');
  const config = JSON.parse(readFileSync(file, 'utf8'));
  config.tools.capital.values.country.push(name);
  writeFileSync(file, `${JSON.stringify(config)}\n`);
}

const format = (ms) => `${ms.toFixed(0)} ms`;
console.log(`cli: ${cliPath}`);

// 1. Packed vs unpacked builds.
const root = tempDir('staticmcp-bench-packed-build-');
const project = path.join(root, 'project');
const { calls: total } = writeBenchProject(project, 'several-tools', calls);
const out = path.join(root, 'tree');
build(root, project, out, ['--max-call-files', '0']);
const unpacked = [];
const packed = [];
const packedOver = [];
for (let round = 0; round < repetitions; round++) {
  rmSync(out, { recursive: true, force: true });
  forgetNoop(project);
  unpacked.push(build(root, project, out, ['--max-call-files', '0']));
  rmSync(out, { recursive: true, force: true });
  forgetNoop(project);
  packed.push(build(root, project, out, ['--max-call-files', String(maxCallFiles)]));
  forgetNoop(project);
  packedOver.push(build(root, project, out, ['--max-call-files', String(maxCallFiles)]));
}
const time = (runs) => median(runs.map((run) => run.ms));
const rss = (runs) => median(runs.map((run) => run.rssMb));
console.log(`\n1. ${total} calls, from the build cache, ${repetitions} repetitions (medians)`);
console.log(`unpacked, fresh folder:        ${format(time(unpacked))}, peak RSS ${rss(unpacked).toFixed(0)} MB`);
console.log(`packed, fresh folder:          ${format(time(packed))}, peak RSS ${rss(packed).toFixed(0)} MB`);
console.log(`packed, over its previous tree: ${format(time(packedOver))}, peak RSS ${rss(packedOver).toFixed(0)} MB`);
console.log(
  `ratio packed/unpacked: time ${(time(packed) / time(unpacked)).toFixed(2)} (target ≤ 1.1), peak RSS ${(rss(packed) / rss(unpacked)).toFixed(2)}; over previous tree/unpacked: time ${(time(packedOver) / time(unpacked)).toFixed(2)}`,
);

// 2. A one-tool edit of the packed build.
const before = packInodes(out);
addCountry(project, 'Country edited');
const edited = build(root, project, out, ['--max-call-files', String(maxCallFiles)]);
const after = packInodes(out);
console.log(`\n2. one value added to tool capital, packed rebuild: ${format(edited.ms)}`);
for (const [tool, files] of after) {
  const old = before.get(tool) ?? new Map();
  let newNames = 0;
  let sameInode = 0;
  for (const [name, inode] of files) {
    if (!old.has(name)) newNames += 1;
    else if (old.get(name) === inode) sameInode += 1;
  }
  console.log(`  ${tool}: ${files.size} files, ${newNames} new names, ${sameInode} of the rest kept their inode`);
}

// 3. dev rebuild after a one-tool edit, packed vs unpacked.
async function devRebuilds(extra) {
  const dev = spawn(process.execPath, [cliPath, 'dev', project, '--out', out, ...extra], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  dev.stderr.setEncoding('utf8').on('data', (text) => {
    stderr += text;
  });
  dev.stdout.resume();
  const until = async (check, what) => {
    const deadline = Date.now() + 300_000;
    while (!check()) {
      if (Date.now() > deadline || dev.exitCode !== null) throw new Error(`no ${what}; stderr: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  await until(() => stderr.includes('watching for changes'), 'dev session');
  const times = [];
  for (let round = 0; round < repetitions; round++) {
    const seen = stderr.split('rebuilt:').length;
    addCountry(project, `Country dev ${extra.join(' ')} ${round}`);
    await until(
      () => stderr.split('rebuilt:').length > seen && /in (\d+) ms/.test(stderr.split('rebuilt:').at(-1)),
      'rebuild',
    );
    times.push(Number(/in (\d+) ms/.exec(stderr.split('rebuilt:').at(-1))[1]));
  }
  dev.stdin.end();
  dev.kill('SIGTERM');
  await new Promise((resolve) => dev.on('exit', resolve));
  return times;
}
const devUnpacked = await devRebuilds(['--max-call-files', '0']);
const devPacked = await devRebuilds(['--max-call-files', String(maxCallFiles)]);
console.log(`\n3. dev rebuild after one value added to one tool (${repetitions} rounds, build's own time)`);
console.log(`unpacked: median ${format(median(devUnpacked))} [${devUnpacked.join(', ')}]`);
console.log(`packed:   median ${format(median(devPacked))} [${devPacked.join(', ')}]`);
console.log(`ratio packed/unpacked: ${(median(devPacked) / median(devUnpacked)).toFixed(2)}`);

// 4. The no-op rebuild by tree size.
function gridProject(folder, size) {
  const dir = path.join(folder, 'project');
  mkdirSync(path.join(dir, 'tools'), { recursive: true });
  const script = path.join(dir, 'tools', 'echo-n');
  writeFileSync(
    script,
    `#!/bin/sh
if [ "$1" = "--help" ]; then
  echo '{"description": "Echo a number"}'
  echo '{"n": {"description": "A number", "required": true, "value_type": "integer", "size": {"min": 1, "max": ${size}}}}' >&2
  exit 0
fi
echo "$n"
`,
  );
  chmodSync(script, 0o755);
  writeFileSync(
    path.join(dir, 'staticmcp.json'),
    JSON.stringify({ limits: { maxIntegerRange: size, maxCallsPerTool: size } }),
  );
  return dir;
}
console.log(`\n4. no-op rebuild (unpacked), ${repetitions} repetitions`);
const noops = [];
for (const size of noopSizes) {
  const folder = keep ? path.join(keep, `noop-${size}`) : tempDir(`staticmcp-bench-noop-${size}-`);
  const gridRoot = gridProject(folder, size);
  const tree = path.join(folder, 'tree');
  build(folder, gridRoot, tree, ['--max-call-files', '0']);
  const times = [];
  for (let round = 0; round < repetitions; round++)
    times.push(build(folder, gridRoot, tree, ['--max-call-files', '0']).ms);
  noops.push({ size, ms: median(times) });
  console.log(
    `${String(size).padStart(7)} calls: median ${format(median(times))} [${times.map((ms) => ms.toFixed(0)).join(', ')}]`,
  );
}
if (noops.length > 1)
  console.log(
    `ratio no-op ${noops.at(-1).size}/${noops[0].size} calls: ${(noops.at(-1).ms / noops[0].ms).toFixed(2)} (target ≈ 1)`,
  );

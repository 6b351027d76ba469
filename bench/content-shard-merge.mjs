// Benchmark (issue #39): a content project of BENCH_DOCUMENTS (default 10,000) generated Markdown
// pages (headings, a list, ~1 KB each) with search on, built whole and as BENCH_SHARDS (default 2)
// shards one after another (standing for machines), then merged. Each run is a real CLI process
// under GNU time: wall, CPU (user + system) and peak RSS, every shard and the merge against the
// whole build of the same run. Ends with whether the merged tree equals the whole one (sha256 of
// every file). Run `npm run build` first. BENCH_REPETITIONS (default 1) repeats and takes medians.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cliPath, median, tempDir } from './lib/common.mjs';

const documents = Number(process.env.BENCH_DOCUMENTS ?? 10000);
const shards = Number(process.env.BENCH_SHARDS ?? 2);
const repetitions = Number(process.env.BENCH_REPETITIONS ?? 1);
const WORDS = 'static content server tree pack index part list resource document page site host edge worker'.split(' ');

function pageText(position) {
  const words = (count, offset) =>
    Array.from({ length: count }, (_, word) => WORDS[(position * 7 + word * 13 + offset) % WORDS.length]).join(' ');
  return `# Page ${position}\n\n${words(30, 1)}.\n\n## Details\n\n- ${words(12, 2)}\n- ${words(12, 3)}\n\n${words(80, 4)} zq${position}x.\n`;
}

const root = tempDir('content-shard-merge-');
const project = path.join(root, 'project');
for (let position = 0; position < documents; position++) {
  const folder = path.join(project, 'resources', `part-${Math.floor(position / 1000)}`);
  if (position % 1000 === 0) mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(folder, `page-${position}.md`), pageText(position));
}
writeFileSync(path.join(project, 'staticmcp.json'), JSON.stringify({ search: true }));

/** One CLI run under GNU time: wall and CPU in ms, peak RSS in MB. */
function run(args) {
  const result = spawnSync('/usr/bin/time', ['-f', '%e %U %S %M', process.execPath, cliPath, ...args], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const [wall, user, system, rssKb] = result.stderr.trim().split('\n').at(-1).split(' ').map(Number);
  if (result.status !== 0 && result.status !== 1)
    throw new Error(`staticmcp ${args.join(' ')} failed (${result.status}): ${result.stderr.slice(-2000)}`);
  return { wallMs: wall * 1000, cpuMs: (user + system) * 1000, rssMb: rssKb / 1024 };
}

function digestTree(folder) {
  const digests = new Map();
  for (const entry of readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    digests.set(path.relative(folder, full), createHash('sha256').update(readFileSync(full)).digest('hex'));
  }
  return digests;
}

const whole = path.join(root, 'whole');
const merged = path.join(root, 'merged');
const parts = Array.from({ length: shards }, (_, index) => path.join(root, `part-${index + 1}`));
const rounds = [];
for (let round = 0; round < repetitions; round++) {
  const wholeRun = run(['build', project, '--force', '--out', whole]);
  const shardRuns = parts.map((part, index) =>
    run(['build', project, '--force', '--shard', `${index + 1}/${shards}`, '--out', part]),
  );
  const mergeRun = run(['merge', ...parts, '--out', merged]);
  rounds.push({ wholeRun, shardRuns, mergeRun });
}
const pick = (select, key) => median(rounds.map((round) => select(round)[key]));
const show = (label, select) => {
  const wall = pick(select, 'wallMs');
  const cpu = pick(select, 'cpuMs');
  const ratio = (value, of) => (value / pick((round) => round.wholeRun, of)).toFixed(2);
  console.log(
    `${label.padEnd(16)} wall ${wall.toFixed(0).padStart(7)} ms (${ratio(wall, 'wallMs')})  cpu ${cpu.toFixed(0).padStart(7)} ms (${ratio(cpu, 'cpuMs')})  peak RSS ${pick(select, 'rssMb').toFixed(0)} MB`,
  );
};
console.log(
  `${documents} Markdown documents, search on, ${shards} shards, repetitions: ${repetitions} (ratios to the whole build)`,
);
show('whole build', (round) => round.wholeRun);
for (let index = 0; index < shards; index++) show(`shard ${index + 1}/${shards}`, (round) => round.shardRuns[index]);
show('merge', (round) => round.mergeRun);
const [wholeTree, mergedTree] = [digestTree(whole), digestTree(merged)];
const equal =
  wholeTree.size === mergedTree.size && [...wholeTree].every(([file, digest]) => mergedTree.get(file) === digest);
console.log(`merged tree equals the whole tree (sha256 of all ${wholeTree.size} files): ${equal ? 'yes' : 'NO'}`);
for (const part of parts) {
  const files = readdirSync(part, { recursive: true }).filter((name) => String(name).startsWith('resources/'));
  console.log(`${path.basename(part)}: ${files.length} document files`);
}

// Benchmark: a rebuild that reuses the previous search index (issue #25) against one that writes
// it (`--force`, today's cost of every rebuild before the reuse), and a rebuild after one resource
// edit (a miss: the digest differs and the index is written) against the same edit built with
// --force, on a project of DOCUMENTS text resources (CORPUS=wiki: the generated
// encyclopedia articles; CORPUS=debian: Debian's package descriptions after `apt-get update`,
// short ones here) with one tool whose values come from a command, so the no-op fast path cannot
// replay the build and the search step runs every time, as on fixtures/example.
// Interleaved repetitions; medians of wall and CPU (user + system of the build process, from
// /proc/self/stat's children times); ratios against --force measured in the same run.
//   DOCUMENTS=20000 BENCH_REPETITIONS=3 node bench/search-reuse.mjs   (run `npm run build` first)
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cliPath, median, tempDir } from './lib/common.mjs';
import { debianPackages } from './lib/search-corpora.mjs';
import { wikiArticle, wikiTitles } from './lib/wiki-corpus.mjs';

const documents = Number(process.env.DOCUMENTS ?? 20_000);
const repetitions = Number(process.env.BENCH_REPETITIONS ?? 3);

function corpus() {
  if (process.env.CORPUS === 'debian') return { name: 'debian', items: debianPackages(documents) };
  return {
    name: 'wiki',
    items: wikiTitles(documents).map((title, number) => ({ name: title, text: wikiArticle(number, title) })),
  };
}

/** Children's CPU so far (ms): /proc/self/stat's cutime + cstime, in clock ticks (100 per second). */
function childrenCpuMs() {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

/** One build: wall and CPU ms, and what it did with the index (from --json). */
function timeBuild(project, ...extra) {
  const cpuBefore = childrenCpuMs();
  const startedAt = process.hrtime.bigint();
  const result = spawnSync(process.execPath, [cliPath, 'build', project, '--json', ...extra], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  const wallMs = Number(process.hrtime.bigint() - startedAt) / 1e6;
  if (result.status !== 0) throw new Error(`build failed (${result.status}): ${result.stderr}`);
  return { wallMs, cpuMs: childrenCpuMs() - cpuBefore, searchIndex: JSON.parse(result.stdout).searchIndex };
}

const { name, items } = corpus();
const root = tempDir('staticmcp-search-reuse-');
const project = path.join(root, 'project');
mkdirSync(path.join(project, 'resources'), { recursive: true });
mkdirSync(path.join(project, 'tools'), { recursive: true });
let textBytes = 0;
items.forEach((item, number) => {
  const text = `# ${item.name}\n\n${item.text}\n`;
  textBytes += Buffer.byteLength(text);
  writeFileSync(path.join(project, 'resources', `doc-${number}.txt`), text);
});
const script = path.join(project, 'tools', 'echo');
writeFileSync(
  script,
  `#!/bin/sh
if [ "$1" = "--help" ]; then
  echo '{"description": "Echo a word"}'
  echo '{"word": {"description": "A word", "required": true, "value_type": "string"}}' >&2
  exit 0
fi
echo "$word"
`,
);
chmodSync(script, 0o755);
writeFileSync(
  path.join(project, 'staticmcp.json'),
  JSON.stringify({ tools: { echo: { values: { word: { command: 'echo one; echo two' } } } } }),
);

const first = timeBuild(project);
console.log(`corpus: ${name}, ${items.length} resources, ${(textBytes / 1e6).toFixed(1)} MB of text`);
console.log(`first build: ${first.wallMs.toFixed(0)} ms (index ${first.searchIndex})`);

const edited = path.join(project, 'resources', 'doc-0.txt');
const edit = (round, kind) =>
  writeFileSync(edited, `${readFileSync(edited, 'utf8')}\nEdited in round ${round} before the ${kind} build.\n`);
// Reuse against --force on the unchanged project (both find the tree unchanged); a miss against
// --force after the same kind of edit (both swap a new tree in).
const runs = { forced: [], reused: [], forcedEdit: [], miss: [] };
for (let round = 0; round < repetitions; round++) {
  const forced = timeBuild(project, '--force');
  const reused = timeBuild(project);
  edit(round, 'forced');
  const forcedEdit = timeBuild(project, '--force');
  edit(round, 'miss');
  const miss = timeBuild(project);
  for (const [kind, run, expected] of [
    ['forced', forced, 'written'],
    ['reused', reused, 'reused'],
    ['forcedEdit', forcedEdit, 'written'],
    ['miss', miss, 'written'],
  ]) {
    if (run.searchIndex !== expected)
      throw new Error(`a ${kind} build's index was ${run.searchIndex}, not ${expected}`);
    runs[kind].push(run);
  }
}

const medianOf = (kind, field) => median(runs[kind].map((run) => run[field]));
console.log(`repetitions: ${repetitions} (interleaved)`);
for (const [kind, label] of [
  ['forced', 'no edit, --force (index written)   '],
  ['reused', 'no edit (index reused)             '],
  ['forcedEdit', 'one resource edited, --force       '],
  ['miss', 'one resource edited (index written)  '],
])
  console.log(
    `${label}: median ${medianOf(kind, 'wallMs').toFixed(0)} ms wall, ${medianOf(kind, 'cpuMs').toFixed(0)} ms CPU`,
  );
for (const [kind, baseline] of [
  ['reused', 'forced'],
  ['miss', 'forcedEdit'],
])
  console.log(
    `ratio ${kind}/${baseline}: ${(medianOf(kind, 'wallMs') / medianOf(baseline, 'wallMs')).toFixed(3)} wall, ${(medianOf(kind, 'cpuMs') / medianOf(baseline, 'cpuMs')).toFixed(3)} CPU; ${(medianOf(baseline, 'cpuMs') - medianOf(kind, 'cpuMs')).toFixed(0)} ms CPU saved`,
  );

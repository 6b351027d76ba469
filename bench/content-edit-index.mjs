// Benchmark (issue #39, "Edits in a second"): a content project of DOCUMENTS text resources (the
// generated encyclopedia articles) without tools; the whole rebuild after a one-line edit of one
// document against a from-scratch build (--force) in the same run, and what the edit rewrote of the
// search index: index files whose inode changed, and their bytes. Also checks that the edited
// tree's index is byte-identical to the --force build's (sha256 of every file below packs/search.index/).
//   DOCUMENTS=10000 BENCH_REPETITIONS=3 node bench/content-edit-index.mjs   (run `npm run build` first)
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cliPath, median, tempDir } from './lib/common.mjs';
import { rewrittenOf } from './lib/rewritten-files.mjs';
import { wikiArticle, wikiTitles } from './lib/wiki-corpus.mjs';

const documents = Number(process.env.DOCUMENTS ?? 10_000);
const repetitions = Number(process.env.BENCH_REPETITIONS ?? 3);

/** Children's CPU so far (ms): /proc/self/stat's cutime + cstime, in clock ticks (100 per second). */
function childrenCpuMs() {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

function timeBuild(project, out, ...extra) {
  const cpuBefore = childrenCpuMs();
  const startedAt = process.hrtime.bigint();
  const result = spawnSync(process.execPath, [cliPath, 'build', project, '--out', out, '--json', ...extra], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  const wallMs = Number(process.hrtime.bigint() - startedAt) / 1e6;
  if (result.status !== 0) throw new Error(`build failed (${result.status}): ${result.stderr}`);
  return { wallMs, cpuMs: childrenCpuMs() - cpuBefore, searchIndex: JSON.parse(result.stdout).searchIndex };
}

/** Every file below the index folder: its sha256, inode and size. */
function indexFiles(tree) {
  const folder = path.join(tree, 'packs', 'search.index');
  const files = new Map();
  for (const name of readdirSync(folder, { recursive: true, encoding: 'utf8' })) {
    const file = path.join(folder, name);
    const stat = statSync(file);
    if (!stat.isFile()) continue;
    files.set(name, {
      ino: stat.ino,
      size: stat.size,
      sha: createHash('sha256').update(readFileSync(file)).digest('hex'),
    });
  }
  return files;
}

const root = tempDir('staticmcp-content-edit-');
const project = path.join(root, 'project');
mkdirSync(path.join(project, 'resources'), { recursive: true });
let textBytes = 0;
wikiTitles(documents).forEach((title, number) => {
  const text = `# ${title}\n\n${wikiArticle(number, title)}\n`;
  textBytes += Buffer.byteLength(text);
  writeFileSync(path.join(project, 'resources', `doc-${number}.txt`), text);
});
writeFileSync(path.join(project, 'staticmcp.json'), '{}');
const out = path.join(root, 'tree');
const fresh = path.join(root, 'fresh');

const first = timeBuild(project, out);
console.log(
  `${documents} resources, ${(textBytes / 1e6).toFixed(1)} MB of text; first build ${first.wallMs.toFixed(0)} ms wall`,
);
const edited = path.join(project, 'resources', 'doc-17.txt');
const runs = { edit: [], forced: [] };
const rewritten = [];
for (let round = 0; round < repetitions; round++) {
  const before = indexFiles(out);
  writeFileSync(edited, `${readFileSync(edited, 'utf8')}\nEdited in round ${round}: zyzzyva${round} quokka.\n`);
  const edit = timeBuild(project, out);
  const after = indexFiles(out);
  rewritten.push(rewrittenOf(before, after));
  // The same input built from scratch, in a folder of its own (its cache: a copy of nothing).
  const forced = timeBuild(project, fresh, '--force');
  const scratch = indexFiles(fresh);
  const same = scratch.size === after.size && [...after].every(([name, file]) => scratch.get(name)?.sha === file.sha);
  if (!same) throw new Error(`round ${round}: the edited tree's index differs from a from-scratch build's`);
  runs.edit.push(edit);
  runs.forced.push(forced);
}
const m = (kind, field) => median(runs[kind].map((run) => run[field]));
console.log(`repetitions: ${repetitions} (interleaved); index identical to --force every round`);
console.log(
  `from scratch (--force):   median ${m('forced', 'wallMs').toFixed(0)} ms wall, ${m('forced', 'cpuMs').toFixed(0)} ms CPU`,
);
console.log(
  `one document edited:      median ${m('edit', 'wallMs').toFixed(0)} ms wall, ${m('edit', 'cpuMs').toFixed(0)} ms CPU  [${runs.edit.map((r) => r.wallMs.toFixed(0)).join(', ')}] index ${runs.edit.map((r) => r.searchIndex).join(',')}`,
);
console.log(`ratio edit/forced: ${(m('edit', 'wallMs') / m('forced', 'wallMs')).toFixed(3)} wall`);
for (const r of rewritten)
  console.log(`index files rewritten: ${r.files} of ${r.total}, ${r.bytes} of ${r.totalBytes} bytes`);

// The edit loop of a Markdown content project (issue #39 "Edits in a second"): N generated
// Markdown documents (~4.4 KB each: front matter, headings, lists, code blocks, tables; folders of
// 1,000) and one tool whose value list comes from a command: a no-op is replayed as "already up to
// date" after that command printed the same values again (up-to-date.ts), an edit runs the whole
// pipeline. Each build is the real CLI in its own
// process under /usr/bin/time: the first build (cold cache), a no-op rebuild, a one-document edit,
// and a no-op again. Prints wall, CPU (user+sys) and peak RSS of each, and the documents the build
// parsed and reused (its report's `documents`). After each rebuild it counts the tree's files with a
// new inode (rewritten) and their bytes; CHECK=1 also builds the edited input from scratch (--force,
// a copy without the cache) and requires every tree file byte-identical.
// BEFORE_CLI=<another build's dist/cli/staticmcp.cjs> runs it on a copy of the same project in the
// same run, each round's edit made on both and the two builds alternated (before, after, after,
// before, ...), so both sides see the same load. The one-edit rows end with each build stage's
// CPU (the STATICMCP_STAGE_MEMORY lines, medians in ms; before -> after with BEFORE_CLI): a stage's
// figure is far steadier than the whole build's on a loaded machine.
// Run: npm run build && node bench/content-edit.mjs   (SIZES=10000 SEARCH=1 REPEAT=3 KIND=md|txt CHECK=1
// BEFORE_CLI=… MAX_CALL_FILES=1000)
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  chmodSync,
  cpSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { cliPath, median, tempDir } from './lib/common.mjs';
import { rewrittenOf } from './lib/rewritten-files.mjs';

const SIZES = (process.env.SIZES ?? '10000').split(',').map(Number);
const SEARCH = process.env.SEARCH === '1';
const REPEAT = Number(process.env.REPEAT ?? 3);
const CHECK = process.env.CHECK === '1';
const BEFORE_CLI = process.env.BEFORE_CLI ? path.resolve(process.env.BEFORE_CLI) : undefined;
// KIND=txt: ~600-byte text documents (bench/content-scale.mjs's), for peak RSS at 100,000 and more.
const KIND = process.env.KIND ?? 'md';
// MAX_CALL_FILES=1000: the call-file budget, so a small CHECK run packs resources as 10,000 does.
const MAX_CALL_FILES = process.env.MAX_CALL_FILES === undefined ? undefined : Number(process.env.MAX_CALL_FILES);
const WORDS =
  'static content server tree pack index part list resource document page site host edge worker build cache parse summary title'.split(
    ' ',
  );

function words(seed, count) {
  const out = [];
  for (let index = 0; index < count; index++) out.push(WORDS[(seed * 7 + index * 13 + index * index) % WORDS.length]);
  return out.join(' ');
}

export function markdownDocument(position) {
  const sections = [];
  for (let section = 0; section < 5; section++) {
    sections.push(
      `## Section ${section} of ${position}\n\n${words(position + section, 60)}.\n\n` +
        `- ${words(position, 6)}\n- ${words(position + 1, 6)}\n- ${words(position + 2, 6)}\n\n` +
        `\`\`\`sh\nstaticmcp build ${words(section, 3)} --out tree\n\`\`\`\n\n` +
        `| key | value |\n| --- | --- |\n| ${words(section, 2)} | ${words(position, 3)} |\n| a${section} | b${position} |\n`,
    );
  }
  return `---\ntitle: Document ${position}\ndescription: ${words(position, 12)}\n---\n\n# Document ${position}\n\n${words(position, 40)}.\n\n${sections.join('\n')}`;
}

const TOOL = `#!/bin/sh
if [ "$1" = "--help" ]; then
  echo '{"description": "Echo a word"}'
  echo '{"word": {"description": "A word", "required": true, "value_type": "string"}}' >&2
  exit 0
fi
echo "$word"
`;

function makeProject(count) {
  const root = tempDir('content-edit-');
  for (let position = 0; position < count; position++) {
    const folder = path.join(root, 'resources', `part-${Math.floor(position / 1000)}`);
    if (position % 1000 === 0) mkdirSync(folder, { recursive: true });
    if (KIND === 'txt')
      writeFileSync(path.join(folder, `doc-${position}.txt`), `Document ${position}\n\n${words(position, 70)}\n`);
    else writeFileSync(path.join(folder, `doc-${position}.md`), markdownDocument(position));
  }
  mkdirSync(path.join(root, 'tools'));
  writeFileSync(path.join(root, 'tools', 'echo-word'), TOOL);
  chmodSync(path.join(root, 'tools', 'echo-word'), 0o755);
  writeFileSync(
    path.join(root, 'staticmcp.json'),
    JSON.stringify({
      tools: { 'echo-word': { values: { word: { command: "printf 'alpha\\nbeta\\n'" } } } },
      search: SEARCH ? { resources: true } : false,
      ...(MAX_CALL_FILES === undefined ? {} : { limits: { maxCallFiles: MAX_CALL_FILES } }),
    }),
  );
  return root;
}

/** Every file of a tree: relative path → inode and size (and sha256 when `hash`). */
function treeFiles(tree, hash = false) {
  const files = new Map();
  for (const name of readdirSync(tree, { recursive: true, encoding: 'utf8' })) {
    const file = path.join(tree, name);
    const stat = statSync(file);
    if (!stat.isFile()) continue;
    const sha = hash ? createHash('sha256').update(readFileSync(file)).digest('hex') : undefined;
    files.set(name, { ino: stat.ino, size: stat.size, sha });
  }
  return files;
}

/**
 * Each build stage's CPU in ms (its line's process CPU less the line before it's), from the stage
 * lines STATICMCP_STAGE_MEMORY=1 prints (src/builder/stage-memory.ts).
 */
function stagesOf(stderr) {
  const stages = {};
  let before = 0;
  for (const [, stage, cpu] of stderr.matchAll(/^\[memory\] (.+?)\s+cpu\s+(\d+) ms/gm)) {
    stages[stage] = Number(cpu) - before;
    before = Number(cpu);
  }
  return stages;
}

/** One build in its own process (by `cli`): wall s, CPU s, peak RSS MiB, its stages' CPU, and its report. */
function build(project, out = path.join(project, 'tree'), extra = [], cli = cliPath) {
  const before = treeFilesIfAny(out);
  const result = spawnSync(
    '/usr/bin/time',
    ['-f', 'TIME %e %U %S %M', process.execPath, cli, 'build', project, '--out', out, '--json', ...extra],
    {
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
      env: { ...process.env, STATICMCP_STAGE_MEMORY: '1' },
    },
  );
  const timing = /TIME ([\d.]+) ([\d.]+) ([\d.]+) (\d+)/.exec(result.stderr);
  if (result.status !== 0 || !timing) throw new Error(`build failed (${result.status}): ${result.stderr.slice(-2000)}`);
  const report = JSON.parse(result.stdout);
  if (!report.ok) throw new Error(`build not ok: ${JSON.stringify(report.failures.slice(0, 3))}`);
  return {
    wallS: Number(timing[1]),
    cpuS: Number(timing[2]) + Number(timing[3]),
    rssMiB: Number(timing[4]) / 1024,
    stages: stagesOf(result.stderr),
    documents: report.documents,
    rewritten: rewrittenOf(before, treeFilesIfAny(out)),
  };
}

function treeFilesIfAny(tree) {
  try {
    return treeFiles(tree);
  } catch {
    return new Map();
  }
}

/** Throws unless every file of the two trees has the same bytes. */
function assertSameTree(tree, fresh) {
  const left = treeFiles(tree, true);
  const right = treeFiles(fresh, true);
  const differ = [...new Set([...left.keys(), ...right.keys()])].filter(
    (name) => left.get(name)?.sha !== right.get(name)?.sha,
  );
  if (differ.length > 0)
    throw new Error(
      `the edited tree differs from a from-scratch build in ${differ.length} files: ${differ.slice(0, 5)}`,
    );
}

const show = (label, runs) => {
  const pick = (key) =>
    median(
      runs.map((run) =>
        key === 'rewrittenFiles' ? run.rewritten.files : key === 'rewrittenBytes' ? run.rewritten.bytes : run[key],
      ),
    );
  const documents = runs.at(-1).documents;
  console.log(
    `  ${label.padEnd(20)} wall ${pick('wallS').toFixed(2)} s, CPU ${pick('cpuS').toFixed(2)} s, peak RSS ${pick('rssMiB').toFixed(0)} MiB` +
      (documents ? `; parsed ${documents.parsed}, reused ${documents.reused}` : '') +
      `; rewrote ${pick('rewrittenFiles')} of ${runs.at(-1).rewritten.total} files, ${(pick('rewrittenBytes') / 1e6).toFixed(2)} MB`,
  );
};

/** Each stage's median CPU over `runs`, before and after (BEFORE_CLI) or alone, with the ratio. */
function showStages(runs, beforeRuns) {
  const stageNames = [...new Set([...(beforeRuns ?? []), ...runs].flatMap((run) => Object.keys(run.stages)))];
  const medianOf = (list, stage) => median(list.map((run) => run.stages[stage] ?? 0));
  for (const stage of stageNames) {
    const after = medianOf(runs, stage);
    if (beforeRuns === undefined) {
      console.log(`    ${stage.padEnd(20)} ${after.toFixed(0).padStart(6)} ms`);
      continue;
    }
    const before = medianOf(beforeRuns, stage);
    const ratio = before > 0 ? ` (${(after / before).toFixed(2)}x)` : '';
    console.log(
      `    ${stage.padEnd(20)} ${before.toFixed(0).padStart(6)} -> ${after.toFixed(0).padStart(6)} ms${ratio}`,
    );
  }
}

/** The project's input (no cache, no tree) copied to a new folder of the same name: the server's name comes from it. */
function copyInput(project, prefix) {
  const copy = path.join(tempDir(prefix), path.basename(project));
  for (const name of ['resources', 'tools', 'staticmcp.json'])
    cpSync(path.join(project, name), path.join(copy, name), { recursive: true });
  return copy;
}

for (const count of SIZES) {
  const project = makeProject(count);
  // The before side's own copy: its cache and tree are its builds' (copied before any build).
  const beforeProject = BEFORE_CLI === undefined ? undefined : copyInput(project, 'content-edit-before-');
  const editedIn = (root) => path.join(root, 'resources', 'part-0', `doc-7.${KIND}`);
  console.log(`\n${count.toLocaleString('en')} ${KIND} documents${SEARCH ? ' (search on)' : ''}, median of ${REPEAT}`);
  if (beforeProject !== undefined) {
    console.log(
      `  before: ${BEFORE_CLI}\n  after:  ${cliPath}\n  (builds alternated: before, after, after, before, ...)`,
    );
    show('first build (before)', [build(beforeProject, undefined, [], BEFORE_CLI)]);
  }
  show(beforeProject === undefined ? 'first build' : 'first build (after)', [build(project)]);
  const noop = [];
  const edit = [];
  const beforeNoop = [];
  const beforeEdit = [];
  for (let round = 0; round < REPEAT; round++) {
    const sides = [
      () => {
        noop.push(build(project));
        appendFileSync(editedIn(project), `\nAn edit, round ${round}.\n`);
        edit.push(build(project));
      },
    ];
    if (beforeProject !== undefined) {
      const beforeSide = () => {
        beforeNoop.push(build(beforeProject, undefined, [], BEFORE_CLI));
        appendFileSync(editedIn(beforeProject), `\nAn edit, round ${round}.\n`);
        beforeEdit.push(build(beforeProject, undefined, [], BEFORE_CLI));
      };
      if (round % 2 === 0) sides.unshift(beforeSide);
      else sides.push(beforeSide);
    }
    for (const side of sides) side();
    if (CHECK) {
      // A copy of the input without its .staticmcp cache, so the edit loop's cache stays the tree's.
      const copy = copyInput(project, 'content-edit-fresh-');
      build(copy, path.join(copy, 'tree'), ['--force']);
      assertSameTree(path.join(project, 'tree'), path.join(copy, 'tree'));
      rmSync(path.dirname(copy), { recursive: true, force: true });
    }
  }
  if (REPEAT > 0) {
    if (beforeProject !== undefined) {
      show('no-op (before)', beforeNoop);
      show('no-op (after)', noop);
      show('one edit (before)', beforeEdit);
      show('one edit (after)', edit);
    } else {
      show('no-op', noop);
      show('one edit', edit);
    }
    if (beforeProject !== undefined) {
      // Each round's pair (both sides saw the same load then): after - before.
      const pairs = edit.map((run, round) => {
        const before = beforeEdit[round];
        return `${(run.wallS - before.wallS).toFixed(2)}/${(run.cpuS - before.cpuS).toFixed(2)}`;
      });
      console.log(`  one edit, each pair's after - before (wall/CPU s): ${pairs.join(' ')}`);
    }
    console.log(`  one edit's stages, CPU ms (median)${beforeProject !== undefined ? ', before -> after' : ''}:`);
    showStages(edit, beforeProject === undefined ? undefined : beforeEdit);
    if (CHECK) console.log('  the tree after each edit: byte-identical to a from-scratch build');
  }
}

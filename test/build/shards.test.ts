// Shards on many machines (issue 14): a generated project (several sh tools, about forty calls,
// collisions, error results, a template, a prompt, public files) built whole and as 3 shards merges
// into the same tree byte for byte; a shard reuses its cache like a full build; and every bad set of
// parts is refused with what happened and what to do, leaving the output folder as it was. Past
// the call-file budget (issue #24) the merge packs the merged tree as the one-machine build does.
// Builds, merges and checks run in-process (the build command's buildOrReplay, mergeParts, the check
// command's checkSource), and the packed merge is read in a session as serve opens it, so their
// trees have no bundled _worker.js; one CLI run per command shows what the command makes of them
// (exit codes, stderr, --json, a kill mid-merge).
import { spawn } from 'node:child_process';
import { accessSync, constants, promises as fs, statSync, watch } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type BuildReportJson, runCli } from '../helpers/cli.js';
import { exists, fingerprint, readTree } from '../helpers/files.js';
import { CLI } from '../helpers/paths.js';
import { temporaryFolder } from '../helpers/temp-folders.js';
import { runRefusedInProcess } from '../helpers/in-process-cli.js';
import { shardOfCallKey } from '../../src/builder/shard-of-call.js';
import { callFilePath } from '../../src/core/tree/call-key.js';
import { StaticMcpError } from '../../src/core/staticmcp-error.js';
import { type MergeReport, mergeParts } from '../../src/merge/merge-parts.js';
import { checkSource } from '../../src/cli/commands/check.js';
import { buildInProcess, type InProcessBuild } from '../helpers/in-process-build.js';
import { openTreeSession } from '../helpers/in-process-session.js';

const HELP = 'if [ "$1" = "--help" ]; then';

/**
 * A folder on another filesystem than the temporary folder's: /dev/shm (a tmpfs) where there is
 * one, or the disk's /tmp when `npm test` put the temporary folder on /dev/shm.
 */
const OTHER_FILESYSTEM = ['/dev/shm', '/tmp', '/var/tmp'].find((folder) => {
  try {
    accessSync(folder, constants.W_OK);
    return statSync(folder).dev !== statSync(os.tmpdir()).dev;
  } catch {
    return false;
  }
});
const partsElsewhereCanBeTried = OTHER_FILESYSTEM !== undefined;

/** Every script logs its runs to runs.log beside the project, so a test sees what really ran. */
const LOG_RUN = 'echo "$STATICMCP_TOOL" >> "$STATICMCP_PROJECT_ROOT/../runs.log"';

const SCRIPTS = {
  // 4 × 2 = 8 calls.
  'tools/math/add': `#!/bin/sh
${HELP}
  echo '{"description": "Add two numbers"}'
  echo '{"a": {"description": "first", "required": true, "value_type": "integer", "size": {"min": 0, "max": 3}}, "b": {"description": "second", "required": true, "value_type": "integer", "size": {"min": 3, "max": 4}}}' >&2
  exit 0
fi
${LOG_RUN}
echo $((a + b))
`,
  // 2 × 6 × 2 = 24 calls; "Ada" and "ada" encode to one file (the first keeps it), Linus exits 3.
  'tools/greet': `#!/bin/sh
${HELP}
  echo '{"description": "Greet someone", "values": {"name": ["Ada", "ada", "Grace", "Linus", "Ørsted", ""]}}'
  echo '{"language": {"description": "Language", "required": true, "value_type": {"enum": ["en", "fr"]}}, "name": {"description": "who", "required": true, "value_type": "string"}, "loud": {"description": "shout", "required": true, "value_type": "boolean"}}' >&2
  exit 0
fi
${LOG_RUN}
case "$language" in fr) word=Bonjour ;; *) word=Hello ;; esac
if [ "$loud" = "true" ]; then echo "$word $name!" | tr a-z A-Z; else echo "$word $name"; fi
[ "$name" = "Linus" ] && exit 3
exit 0
`,
  // 4 calls answering with a rich result.
  'tools/square': `#!/bin/sh
${HELP}
  echo '{"description": "Square a number", "outputFormat": "mcp"}'
  echo '{"n": {"description": "n", "required": true, "value_type": "integer", "size": {"min": -2, "max": 1}}}' >&2
  exit 0
fi
${LOG_RUN}
printf '{"content": [{"type": "text", "text": "%s"}], "structuredContent": {"square": %s}}\\n' $((n * n)) $((n * n))
`,
  'tools/answer': `#!/bin/sh
${HELP} echo '{"description": "The answer"}'; exit 0; fi
${LOG_RUN}
echo 42
`,
  'providers/city': `#!/bin/sh
echo "About $name"
`,
  'resources/about.md': '# About\n\nA generated project.\n',
  'resources/city.meta.json': JSON.stringify({
    name: 'city',
    uriTemplate: 'city://{name}',
    mimeType: 'text/plain',
    provider: 'providers/city',
    values: { name: ['paris', 'rome', 'oslo'] },
  }),
  'prompts/review.md': 'Review {{code}}\n',
  'prompts/review.md.meta.json': JSON.stringify({
    arguments: { type: 'object', properties: { code: { type: 'string', examples: ['x = 1'] } }, required: ['code'] },
  }),
  'public/CNAME': 'shards.example.org\n',
  'public/.well-known/security.txt': 'Contact: mailto:a@example.org\n',
  // Search on with call results (issue #25): the merge indexes the merged tree as the whole build does.
  'staticmcp.json': JSON.stringify({
    name: 'shards',
    publicUrl: 'https://shards.example.org',
    search: { tools: { greet: { title: '{name} in {language}' }, math_add: {} } },
  }),
} satisfies Record<string, string>;

const TOTAL_CALLS = 8 + 24 + 4 + 1;
/** Calls whose file another call of greet took ("Ada" and "ada", in each language, loud or not). */
const COLLISIONS = 2 * 2;
/** The project's tools, each probed for determinism (one call run twice) by a build with something to run. */
const TOOLS = 4;
/** greet's calls that answer an error result (Linus exits 3), in each language, loud or not. */
const ERROR_RESULTS = 2 * 2;

/** The generated project once built whole, its cache holding every call: copies of it rerun only what changed. */
let builtProject: string | undefined;

/** Shard 2/3 of the generated project as its first build on a machine left it (a copy), or none. */
let firstShardBuild: FirstShardBuild | undefined;

interface FirstShardBuild {
  /** Holds `project` with the shard's build cache, `part-2` and `runs.log` of that build's runs. */
  work: string;
  build: InProcessBuild;
}

/**
 * Copies `<work>/project` (its cache from one shard build only), `<work>/part-2` and the runs that
 * build logged into a folder of their own, for the rebuild-in-place test to start from instead of
 * building that shard again.
 */
async function keepFirstShardBuild(work: string, runsBefore: number, build: InProcessBuild): Promise<FirstShardBuild> {
  const kept = await temporaryFolder();
  await fs.cp(path.join(work, 'project'), path.join(kept, 'project'), { recursive: true, preserveTimestamps: true });
  await fs.cp(path.join(work, 'part-2'), path.join(kept, 'part-2'), { recursive: true, preserveTimestamps: true });
  const runs = (await runsLogged(work)).slice(runsBefore);
  await fs.writeFile(path.join(kept, 'runs.log'), runs.map((run) => `${run}\n`).join(''));
  return { work: kept, build };
}

/** Writes the generated project (plus `extra` files) into `<parent>/project` and returns its path. */
async function makeShardedProject(parent: string, extra: Record<string, string> = {}): Promise<string> {
  const root = path.join(parent, 'project');
  for (const [file, content] of Object.entries({ ...SCRIPTS, ...extra })) {
    await fs.mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await fs.writeFile(path.join(root, file), content, { mode: /^(tools|providers)\//.test(file) ? 0o755 : 0o644 });
  }
  return root;
}

/** Copies a project with its build cache to `<parent>/project`: a build of the copy reruns only what changed. */
async function copyProject(project: string, parent: string): Promise<string> {
  const copy = path.join(parent, 'project');
  await fs.cp(project, copy, { recursive: true });
  return copy;
}

async function runsLogged(parent: string): Promise<string[]> {
  const text = await fs.readFile(path.join(parent, 'runs.log'), 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean);
}

/** `build --shard I/N --out <out>` in-process; `maxCallFiles` is --max-call-files. */
async function buildShard(project: string, shard: string, out: string, maxCallFiles?: number): Promise<InProcessBuild> {
  const [index = 0, count = 0] = shard.split('/').map(Number);
  const result = await buildInProcess(project, { shard: { index, count }, outDir: out, maxCallFiles });
  if (result.code !== 0 && result.code !== 1) throw new Error(`shard ${shard} failed: ${result.error?.message}`);
  return result;
}

/** `merge <parts> --out <out>` in-process. */
function merge(parts: readonly string[], out: string, maxCallFiles?: number): Promise<MergeReport> {
  return mergeParts({ parts, outDir: out, ...(maxCallFiles !== undefined ? { maxCallFiles } : {}) });
}

function callFiles(tree: Map<string, Buffer>): string[] {
  return [...tree.keys()].filter((file) => file.startsWith('tools/'));
}

function firstCallFile(tree: Map<string, Buffer>): string {
  const [file] = callFiles(tree);
  if (file === undefined) throw new Error('the tree holds no call file');
  return file;
}

/** A refusal through the CLI: exit 2, the code and message on stderr with what to do, and --out exactly as before. */
async function refusesMergeCommand(args: string[], out: string, code: string, message: RegExp): Promise<string> {
  const before = await fingerprint(out);
  const result = await runCli(['merge', ...args, '--out', out]);
  expect(result.stderr, result.stderr).toContain(`error [${code}]`);
  expect(result.stderr).toMatch(message);
  expect(result.stderr).toContain('what to do:');
  expect(result.code).toBe(2);
  expect(result.stdout).toBe('');
  expect(await fingerprint(out)).toEqual(before);
  return result.stderr;
}

/**
 * The same refusal decided in-process by mergeParts, which the command calls (one refusal above
 * shows what the command makes of it): the error's code, its message, a hint, and --out as before.
 */
async function refusesMerge(
  parts: string[],
  out: string,
  code: string,
  message: RegExp,
  maxCallFiles?: number,
): Promise<void> {
  const before = await fingerprint(out);
  const refusal = await mergeParts({ parts, outDir: out, maxCallFiles }).then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(refusal).toBeInstanceOf(StaticMcpError);
  expect(refusal).toMatchObject({ code, message: expect.stringMatching(message), hint: expect.any(String) });
  expect(await fingerprint(out)).toEqual(before);
}

describe('a project built whole and as 3 shards', () => {
  let work: string;
  let project: string;
  let whole: string;
  let parts: [string, string, string];
  let merged: string;
  let mergeReport: MergeReport;
  /** The report of the one-machine build of `whole`, which the merge must match. */
  let wholeReport: BuildReportJson;

  beforeAll(async () => {
    work = await temporaryFolder();
    project = await makeShardedProject(work);
    whole = path.join(work, 'whole');
    wholeReport = (await buildInProcess(project, { outDir: whole, force: true })).report;
    expect(wholeReport.tools).toHaveLength(4);
    parts = [path.join(work, 'part-1'), path.join(work, 'part-2'), path.join(work, 'part-3')];
    // Each shard from a fresh cache, as on its own machine; the whole build's cache is put back
    // afterwards so the other builds of this project (and its copies) rerun no script.
    const wholeCache = path.join(work, 'whole-cache');
    await fs.rename(path.join(project, '.staticmcp'), wholeCache);
    for (const [index, part] of parts.entries()) {
      await fs.rm(path.join(project, '.staticmcp'), { recursive: true, force: true });
      const runsBefore = (await runsLogged(work)).length;
      const built = await buildShard(project, `${index + 1}/3`, part);
      if (index === 1) firstShardBuild = await keepFirstShardBuild(work, runsBefore, built);
    }
    await fs.rm(path.join(project, '.staticmcp'), { recursive: true, force: true });
    await fs.rename(wholeCache, path.join(project, '.staticmcp'));
    builtProject = project;
    merged = path.join(work, 'merged');
    mergeReport = await merge(parts, merged);
  }, 120_000);

  it('merges into the tree the one-machine build wrote, byte for byte (diff -r clean)', async () => {
    expect(mergeReport.ok).toBe(true);
    const wholeTree = await readTree(whole);
    const mergedTree = await readTree(merged);
    expect([...mergedTree.keys()]).toEqual([...wholeTree.keys()]);
    for (const [file, bytes] of wholeTree) expect(mergedTree.get(file)?.equals(bytes), file).toBe(true);
    const diff = await new Promise<number | null>((resolve) =>
      spawn('diff', ['-r', whole, merged], { stdio: 'ignore' }).on('close', resolve),
    );
    expect(diff).toBe(0);
    // Every kind of file is there, and the tree holds every call (less the one collision per pair).
    // (No _worker.js in-process: the CLI's merge below writes it, compared with the CLI's build elsewhere.)
    for (const file of ['mcp.json', 'index.html', 'completions.json', '_headers', 'server.json', 'CNAME'])
      expect(mergedTree.has(file), file).toBe(true);
    expect(mergedTree.has('.well-known/security.txt')).toBe(true);
    expect(callFiles(mergedTree)).toHaveLength(TOTAL_CALLS - COLLISIONS);
    // The search index: the text resource and the indexed tools' calls (not their errors), in no part.
    const search = JSON.parse(mergedTree.get('mcp.json')!.toString('utf8')).staticmcp.search;
    expect(search.documentCount).toBe(1 + 8 + 24 - ERROR_RESULTS - COLLISIONS);
    expect([...mergedTree.keys()].some((file) => file.startsWith('packs/search.index/'))).toBe(true);
    for (const part of parts) expect(await exists(path.join(part, 'packs'))).toBe(false);
    expect((await checkSource(merged)).report.problems).toEqual([]);
  });

  it('splits the calls over all shards; only shard 1 carries the shared files', async () => {
    const trees = await Promise.all(parts.map(readTree));
    const counts = trees.map((tree) => callFiles(tree).length);
    expect(counts.reduce((sum, count) => sum + count, 0)).toBe(TOTAL_CALLS - COLLISIONS);
    for (const count of counts) expect(count).toBeGreaterThan(TOTAL_CALLS / 6);
    expect(trees[0]?.has('mcp.json')).toBe(true);
    // Documents are split like calls (content-shards.test.ts); every other file is shard 1's.
    const documents = trees.flatMap((tree) => [...tree.keys()].filter((file) => file.startsWith('resources/')));
    expect(documents.length).toBeGreaterThanOrEqual(4);
    for (const tree of trees.slice(1))
      expect([...tree.keys()].filter((file) => !/^(tools|resources)\//.test(file))).toEqual(['staticmcp-shard.json']);
  });

  it('reports the merged counts, the collisions and the failed calls as the whole build does', async () => {
    const report = mergeReport;
    expect(report.ok).toBe(wholeReport.ok);
    for (const tool of wholeReport.tools) {
      const mergedTool = report.tools.find((entry) => entry.name === tool.name)!;
      expect(mergedTool.precomputed, tool.name).toBe(tool.precomputed);
      expect(mergedTool.errorResults, tool.name).toBe(tool.errorResults);
      expect([...mergedTool.warnings].sort(), tool.name).toEqual([...tool.warnings].sort());
    }
  });

  it('keeps what the user put in --out (a gh-pages CNAME) and replaces the rest atomically', async () => {
    const out = path.join(work, 'site');
    await fs.mkdir(path.join(out, '.git'), { recursive: true });
    await fs.writeFile(path.join(out, '.git', 'HEAD'), 'ref: refs/heads/gh-pages\n');
    // A CLI merge with --json: its exit code and the report on stdout (the summary is the killed merge's below).
    const result = await runCli(['merge', ...parts, '--out', out, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as { ok: boolean; shards: number; contentHash: string };
    // (Its content hash covers the CLI's bundled landing page, which the in-process trees lack.)
    expect(report).toMatchObject({ ok: true, shards: 3, contentHash: expect.stringMatching(/^sha256:/) });
    expect(await fs.readFile(path.join(out, '.git', 'HEAD'), 'utf8')).toBe('ref: refs/heads/gh-pages\n');
    // The whole build's manifest but for the content hash, which covers the CLI's bundled landing page.
    const manifestOf = async (tree: string) => {
      const manifest = JSON.parse(await fs.readFile(path.join(tree, 'mcp.json'), 'utf8'));
      delete manifest.staticmcp.contentHash;
      return manifest;
    };
    expect(await manifestOf(out)).toEqual(await manifestOf(whole));
  });

  // A link from another filesystem into the temporary folder fails (EXDEV).
  it.skipIf(!partsElsewhereCanBeTried)(
    'links the parts’ files into the merged tree, but writes those with other permissions and those on another filesystem',
    async () => {
      const [callFile = '', otherFile = ''] = callFiles(await readTree(parts[1]));
      // Same filesystem: the merged tree shares the part's file instead of writing it again.
      expect((await fs.stat(path.join(merged, callFile))).ino).toBe((await fs.stat(path.join(parts[1], callFile))).ino);
      // ...unless its permissions are not the build's (a link would publish them): then it is written.
      const unpacked = path.join(work, 'part-2-unpacked');
      await fs.cp(parts[1], unpacked, { recursive: true });
      await fs.chmod(path.join(unpacked, otherFile), 0o600);
      const fromUnpacked = path.join(work, 'merged-unpacked');
      expect((await merge([parts[0], unpacked, parts[2]], fromUnpacked)).ok).toBe(true);
      expect(await fingerprint(fromUnpacked)).toEqual(await fingerprint(whole));
      expect((await fs.stat(path.join(fromUnpacked, otherFile))).nlink).toBe(1);
      const elsewhere = await fs.mkdtemp(path.join(OTHER_FILESYSTEM!, 'staticmcp-parts-'));
      try {
        const moved: string[] = [];
        for (const [index, part] of parts.entries()) {
          const copy = path.join(elsewhere, `part-${index + 1}`);
          await fs.cp(part, copy, { recursive: true });
          moved.push(copy);
        }
        const out = path.join(work, 'merged-across');
        expect((await merge(moved, out)).ok).toBe(true);
        expect(await fingerprint(out)).toEqual(await fingerprint(whole));
        expect((await fs.stat(path.join(out, callFile))).nlink).toBe(1);
      } finally {
        await fs.rm(elsewhere, { recursive: true, force: true });
      }
    },
  );

  describe('refuses', () => {
    let target: string;
    beforeAll(async () => {
      // The previous tree every refusal must leave as it was.
      target = path.join(work, 'target');
      await fs.cp(merged, target, { recursive: true });
    });

    it('a missing shard', async () => {
      const stderr = await refusesMergeCommand([parts[0], parts[2]], target, 'PART_MISSING', /shard 2 of 3 is missing/);
      expect(stderr).toContain('--shard 2/3');
    });

    it('a duplicated shard', async () => {
      const copy = path.join(work, 'part-2-again');
      await fs.cp(parts[1], copy, { recursive: true });
      await refusesMerge(
        [...parts, copy],
        target,
        'PART_DUPLICATED',
        /part-2 and .*part-2-again are both shard 2 of 3/,
      );
    });

    it('parts built from different project states', async () => {
      const changed = await copyProject(project, path.join(work, 'other'));
      await fs.writeFile(
        path.join(changed, 'tools/answer'),
        SCRIPTS['tools/answer'].replace('The answer', 'The answer, edited'),
      );
      const stale = path.join(work, 'part-3-changed');
      await buildShard(changed, '3/3', stale);
      await refusesMerge(
        [parts[0], parts[1], stale],
        target,
        'PARTS_STATE_DIFFERS',
        /were built from different project states/,
      );
    });

    it('parts built with different search settings', async () => {
      const changed = await copyProject(project, path.join(work, 'other-search'));
      await fs.writeFile(
        path.join(changed, 'staticmcp.json'),
        JSON.stringify({ name: 'shards', publicUrl: 'https://shards.example.org', search: false }),
      );
      const unsearched = path.join(work, 'part-3-unsearched');
      await buildShard(changed, '3/3', unsearched);
      await refusesMerge(
        [parts[0], parts[1], unsearched],
        target,
        'PARTS_SEARCH_DIFFERS',
        /part-1 was built with the search settings \{"resources":true,.* but .*part-3-unsearched with null/,
      );
    });

    it('parts of different splits', async () => {
      const ofTwo = path.join(work, 'part-2-of-2');
      await buildShard(project, '2/2', ofTwo);
      await refusesMerge([parts[0], ofTwo], target, 'PARTS_SPLIT_DIFFERS', /shard 1 of 3 but .* is shard 2 of 2/);
    });

    it('overlapping files (a call file copied into another part)', async () => {
      const copy = path.join(work, 'part-3-overlap');
      await fs.cp(parts[2], copy, { recursive: true });
      const borrowed = firstCallFile(await readTree(parts[1]));
      await fs.mkdir(path.dirname(path.join(copy, borrowed)), { recursive: true });
      await fs.copyFile(path.join(parts[1], borrowed), path.join(copy, borrowed));
      await refusesMerge(
        [parts[0], parts[1], copy],
        target,
        'PARTS_OVERLAP',
        new RegExp(
          `${borrowed.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is in both .*part-2 \\(shard 2\\) and .*part-3-overlap`,
        ),
      );
    });

    it('a part whose files were edited or lost after its build (an artifact without hidden files)', async () => {
      const edited = path.join(work, 'part-2-edited');
      await fs.cp(parts[1], edited, { recursive: true });
      const file = firstCallFile(await readTree(edited));
      await fs.writeFile(path.join(edited, file), '{"content": []}\n');
      await refusesMerge([parts[0], edited, parts[2]], target, 'PART_CHANGED', /with other contents/);
      const hiddenLost = path.join(work, 'part-1-no-dotfiles');
      await fs.cp(parts[0], hiddenLost, { recursive: true });
      await fs.rm(path.join(hiddenLost, '.nojekyll'));
      await refusesMerge(
        [hiddenLost, parts[1], parts[2]],
        target,
        'PART_CHANGED',
        /holds \d+ files but its build wrote/,
      );
    });

    it('a folder that is not a part, and --out being one of the parts', async () => {
      await refusesMerge([whole, parts[1], parts[2]], target, 'NOT_A_PART', /whole is not a shard part/);
      await refusesMerge(
        parts,
        parts[0],
        'OUT_OVERLAPS_PART',
        /part-1 is the part .*part-1; the merged tree would replace/,
      );
    });

    it('a shard build without --out, a bad shard, and a shard written over a whole tree (or the reverse)', async () => {
      // The command refuses both lines before it starts anything: in-process (runRefusedInProcess),
      // what it prints and its exit code; the merge's refusal above shows the CLI's exit 2.
      const noOut = await runRefusedInProcess(['build', project, '--shard', '1/3']);
      expect(noOut.code).toBe(2);
      expect(noOut.stderr).toContain('error [SHARD_NEEDS_OUT]');
      expect(await exists(path.join(project, 'dist'))).toBe(false);
      // Which specs are bad is parseShardSpec's (test/unit/shard-of-call.test.ts); one shows the refusal.
      const bad = await runRefusedInProcess(['build', project, '--shard', '4/3', '--out', path.join(work, 'unused')]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('error [SHARD_INVALID]');
      expect(await exists(path.join(work, 'unused'))).toBe(false);
      // The build's own refusals, in-process: the same exit code 2 the CLI gives for every SHARD_/OUT_ code.
      const wholeBefore = await fingerprint(whole);
      const overWhole = await buildInProcess(project, { shard: { index: 1, count: 3 }, outDir: whole });
      expect(overWhole.code).toBe(2);
      expect(overWhole.error?.code).toBe('OUT_NOT_A_PART');
      expect(await fingerprint(whole)).toEqual(wholeBefore);
      const partBefore = await fingerprint(parts[1]);
      const overPart = await buildInProcess(project, { outDir: parts[1] });
      expect(overPart.code).toBe(2);
      expect(overPart.error?.code).toBe('OUT_IS_A_PART');
      expect(await fingerprint(parts[1])).toEqual(partBefore);
    });
  });

  it('a merge killed while writing leaves the previous tree, and the next merge cleans up', async () => {
    const out = path.join(work, 'killed');
    await fs.cp(whole, out, { recursive: true });
    await fs.writeFile(path.join(out, 'index.html'), 'the previous tree\n');
    const before = await fingerprint(out);
    const child = spawn(process.execPath, [CLI, 'merge', ...parts, '--out', out], { stdio: 'ignore' });
    // Killed the moment its temporary tree appears beside --out, long before the swap.
    const watcher = watch(work, (_event, name) => {
      if (name?.startsWith('killed.staticmcp-tmp-')) child.kill('SIGKILL');
    });
    const signal = await new Promise((resolve) => child.on('close', (_code, killedBy) => resolve(killedBy)));
    watcher.close();
    expect(signal).toBe('SIGKILL');
    expect(await fingerprint(out)).toEqual(before);
    // The next merge, through the CLI: its exit code and the summary on stderr; a bad heap setting
    // is reported once and the merge goes on with the default.
    const again = await runCli(['merge', ...parts, '--out', out], { env: { STATICMCP_HEAP_GROWING_PERCENT: 'lots' } });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('merged 3 shard(s)');
    expect(again.stderr.match(/STATICMCP_HEAP_GROWING_PERCENT=lots is not a whole number ≥ 0; using 20/g)).toHaveLength(
      1,
    );
    expect((await fs.readdir(work)).filter((name) => name.startsWith('killed.'))).toEqual([]);
    // The merged tree replaced it (the CLI's landing page, with its bundled script).
    expect(await fs.readFile(path.join(out, 'index.html'), 'utf8')).toMatch(/^<!doctype html>[\s\S]*<script/i);
  });
});

describe('a shard rebuilt in place', () => {
  it('reuses its build cache like a full build: nothing reruns, then only what changed', async () => {
    // The first build of shard 2 from a fresh cache, as the file's first describe made it (or
    // made here when this test runs alone).
    const work = firstShardBuild?.work ?? (await temporaryFolder());
    const project = firstShardBuild ? path.join(work, 'project') : await makeShardedProject(work);
    const part = path.join(work, 'part-2');
    const first = firstShardBuild?.build ?? (await buildShard(project, '2/3', part));
    const firstRuns = (await runsLogged(work)).length;
    const inPart = callFiles(await readTree(part)).length;
    // Each call of this shard ran once (a colliding argument set runs too, then loses its file), and
    // the determinism probe ran one call of each tool a second time: none of the other shards' calls.
    expect(firstRuns).toBeGreaterThanOrEqual(inPart);
    expect(firstRuns).toBeLessThanOrEqual(inPart + COLLISIONS + TOOLS);
    expect(firstRuns).toBeLessThan(TOTAL_CALLS);
    expect(first.report.shard).toEqual({ index: 2, count: 3 });

    const again = await buildShard(project, '2/3', part);
    expect((await runsLogged(work)).length).toBe(firstRuns);
    // A colliding argument set is answered from the cache too, then loses its file: cached ≥ files.
    for (const tool of again.report.tools) expect(tool.cached, tool.name).toBeGreaterThanOrEqual(tool.precomputed);

    await fs.writeFile(
      path.join(project, 'tools/math/add'),
      SCRIPTS['tools/math/add'].replace('$((a + b))', '$((b + a))'),
    );
    const edited = await buildShard(project, '2/3', part);
    const rerun = (await runsLogged(work)).slice(firstRuns);
    expect(new Set(rerun)).toEqual(new Set(['math_add']));
    // Each of the shard's calls once, plus the determinism probe's second run of one of them.
    expect(rerun).toHaveLength(edited.report.tools.find((tool) => tool.name === 'math_add')!.precomputed + 1);
  });

  it('keeps the other shards’ cached results through a --force build of one shard', async () => {
    // A cache holding every shard's results: the whole build's (a copy), or made here when this test runs alone.
    const work = await temporaryFolder();
    const project = builtProject ? await copyProject(builtProject, work) : await makeShardedProject(work);
    if (!builtProject)
      for (const shard of ['1/3', '2/3', '3/3']) await buildShard(project, shard, path.join(work, `part-${shard[0]}`));
    const before = (await runsLogged(work)).length;
    const forced = await buildInProcess(project, {
      shard: { index: 2, count: 3 },
      outDir: path.join(work, 'part-2'),
      force: true,
    });
    expect(forced.code, forced.error?.message).toBe(0);
    const forcedRuns = (await runsLogged(work)).length;
    expect(forcedRuns).toBeGreaterThan(before);
    // Shards 1 and 3 ran nothing under --force: their results are still the cache's.
    for (const shard of ['1/3', '3/3']) await buildShard(project, shard, path.join(work, `part-${shard[0]}`));
    expect((await runsLogged(work)).slice(forcedRuns)).toEqual([]);
  });
});

describe('left-out-defaults copies (the keys other bridges compute when defaults are left out)', () => {
  // {a: true, b: false} and {a: false, b: true} both leave one default out and claim flags/true.json:
  // the whole build writes no copy there, so neither may the merge, whichever shards they fall in.
  const FLAGS = `#!/bin/sh
${HELP}
  echo '{"description": "Two flags"}'
  echo '{"a": {"description": "a", "required": false, "value_type": "boolean", "default_value": false}, "b": {"description": "b", "required": false, "value_type": "boolean", "default_value": false}}' >&2
  exit 0
fi
echo "a=$a b=$b"
`;

  it('are the whole build’s, even when two calls claiming one copy fall in different shards', async () => {
    const work = await temporaryFolder();
    const project = path.join(work, 'project');
    await fs.mkdir(path.join(project, 'tools'), { recursive: true });
    await fs.writeFile(path.join(project, 'tools/flags'), FLAGS, { mode: 0o755 });
    // Its calls indexed: a copy is not a document of its own, in the whole build or the merge.
    await fs.writeFile(path.join(project, 'staticmcp.json'), JSON.stringify({ search: { tools: { flags: {} } } }));
    const keyOf = (args: Record<string, unknown>): string => callFilePath('flags', ['a', 'b'], args);
    // The smallest split that puts the two claimants in different shards.
    const count = [2, 3, 4, 5, 6, 7, 8].find(
      (candidate) =>
        shardOfCallKey(keyOf({ a: true, b: false }), candidate) !==
        shardOfCallKey(keyOf({ a: false, b: true }), candidate),
    )!;
    expect(count).toBeDefined();
    const whole = path.join(work, 'whole');
    expect((await buildInProcess(project, { outDir: whole })).code).toBe(0);
    const parts = Array.from({ length: count }, (_, index) => path.join(work, `part-${index + 1}`));
    for (const [index, part] of parts.entries()) await buildShard(project, `${index + 1}/${count}`, part);
    const merged = path.join(work, 'merged');
    expect((await merge(parts, merged)).ok).toBe(true);
    const wholeTree = await readTree(whole);
    const mergedTree = await readTree(merged);
    expect(wholeTree.has('tools/flags.json')).toBe(true);
    expect(wholeTree.has('tools/flags/true.json')).toBe(false);
    expect(JSON.parse(wholeTree.get('mcp.json')!.toString('utf8')).staticmcp.search.documentCount).toBe(4);
    expect([...mergedTree.keys()]).toEqual([...wholeTree.keys()]);
    for (const [file, bytes] of wholeTree) expect(mergedTree.get(file)?.equals(bytes), file).toBe(true);
  });
});

describe('a project past its call-file budget, built whole and as 3 shards (issue #24)', () => {
  // Defaulted options: the left-out-default copies become extra names of packed records.
  const PICK = `#!/bin/sh
${HELP}
  echo '{"description": "Pick a colour"}'
  echo '{"colour": {"description": "colour", "required": false, "value_type": {"enum": ["red", "green", "blue"]}, "default_value": "red"}, "loud": {"description": "shout", "required": false, "value_type": "boolean", "default_value": false}}' >&2
  exit 0
fi
echo "$colour $loud"
`;
  const BUDGET = 20;
  let work: string;
  let project: string;
  let whole: string;
  let parts: string[];
  let merged: string;
  /** The report of the one-machine build of `whole`, whose content hash the merge must give. */
  let wholeReport: BuildReportJson;

  /** Both folders hold the same files, byte for byte (and diff -r agrees). */
  async function expectSameTree(actual: string, expected: string): Promise<void> {
    const expectedTree = await readTree(expected);
    const actualTree = await readTree(actual);
    expect([...actualTree.keys()]).toEqual([...expectedTree.keys()]);
    for (const [file, bytes] of expectedTree) expect(actualTree.get(file)?.equals(bytes), file).toBe(true);
    const diff = await new Promise<number | null>((resolve) =>
      spawn('diff', ['-r', expected, actual], { stdio: 'ignore' }).on('close', resolve),
    );
    expect(diff).toBe(0);
  }

  beforeAll(async () => {
    work = await temporaryFolder();
    // From the cache of the project above when this file runs whole: only pick's calls run.
    project = builtProject ? await copyProject(builtProject, work) : await makeShardedProject(work);
    await fs.writeFile(path.join(project, 'tools/pick'), PICK, { mode: 0o755 });
    whole = path.join(work, 'whole');
    const built = await buildInProcess(project, { outDir: whole, maxCallFiles: BUDGET });
    expect(built.code, built.error?.message).toBe(0);
    wholeReport = built.report;
    parts = [1, 2, 3].map((index) => path.join(work, `part-${index}`));
    for (const [index, part] of parts.entries()) await buildShard(project, `${index + 1}/3`, part, BUDGET);
    merged = path.join(work, 'merged');
  }, 120_000);

  it('merges into the packed tree the one-machine build wrote, byte for byte, which serve answers and check passes', async () => {
    const report = await merge(parts, merged);
    expect(report.ok).toBe(true);
    const wholeTree = await readTree(whole);
    // The whole build did pack: packs and indexes, the table in mcp.json, the packs/ rule in _headers.
    expect([...wholeTree.keys()].filter((file) => /^packs\/math_add\/[0-9a-f]{16}\.pack$/.test(file))).not.toEqual([]);
    expect([...wholeTree.keys()].filter((file) => file.startsWith('tools/math_add/'))).toEqual([]);
    expect(wholeTree.get('mcp.json')?.toString('utf8')).toContain('"packs"');
    expect(wholeTree.get('_headers')?.toString('utf8')).toContain(
      '/packs/*\n  Cache-Control: public, max-age=31536000, immutable\n',
    );
    // No part is packed: the merge packs the whole tree.
    for (const part of parts) expect(await exists(path.join(part, 'packs'))).toBe(false);
    await expectSameTree(merged, whole);
    expect(report.contentHash).toBe(wholeReport.contentHash);
    expect(report.warnings.map((warning) => warning.message)).toContainEqual(
      expect.stringMatching(/^this tree was packed: \d+ call files over a budget of 20 /),
    );

    const checked = (await checkSource(merged)).report;
    expect(checked.problems).toEqual([]);
    expect(checked.checked.hashedFiles).toBeGreaterThan(0);

    // What serve answers from it: a session as serve opens it, in-process.
    const session = await openTreeSession(merged);
    try {
      const text = async (name: string, args: Record<string, unknown>): Promise<unknown> =>
        (await session.callTool(name, args)).content[0]?.text;
      expect(await text('math_add', { a: 3, b: 4 })).toBe('7\n');
      expect(await text('greet', { language: 'fr', name: 'Grace', loud: true })).toBe('BONJOUR GRACE!\n');
      expect(await text('pick', { colour: 'blue' })).toBe('blue false\n');
      expect(await text('answer', {})).toBe('42\n');
    } finally {
      await session.close();
    }
  });

  it('refuses shards built with different budgets, unless merge is given the budget to use', async () => {
    const otherBudget = path.join(work, 'part-2-unpacked');
    await buildShard(project, '2/3', otherBudget, 0);
    // The previous tree the refusal must leave as it was.
    const out = path.join(work, 'merged-budgets');
    await fs.cp(whole, out, { recursive: true });
    await refusesMerge(
      [parts[0]!, otherBudget, parts[2]!],
      out,
      'PARTS_BUDGET_DIFFERS',
      /part-1 was built with a call-file budget of 20 but .*part-2-unpacked with 0/,
    );
    expect((await merge([parts[0]!, otherBudget, parts[2]!], out, BUDGET)).ok).toBe(true);
    await expectSameTree(out, whole);
    // --max-call-files 0: the unpacked tree a build with 0 writes, from the same parts.
    const unpacked = path.join(work, 'whole-unpacked');
    await buildInProcess(project, { outDir: unpacked, maxCallFiles: 0 });
    const plain = path.join(work, 'merged-unpacked');
    expect((await merge(parts, plain, 0)).ok).toBe(true);
    await expectSameTree(plain, unpacked);
  });
});

// A build killed at a real moment (SIGTERM or SIGKILL, to its process group): at a call a fixture
// script holds (it writes a file, then hangs), or just after a stage of the build (its stage line
// on stderr). The previous tree stays as it was, or is the whole new one, and the next build runs
// only the calls whose results the cache does not hold whole: with `--force` too, whose earlier
// results stay until it has run every call again, and over the cache cap, whose eviction spares
// the tools an interrupted build had not reached.
import { spawn, spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type BuildReportJson, envWithTmpdir, problemsOf, runCli, toolReport } from '../helpers/cli.js';
import { exists, readTree, waitForFile } from '../helpers/files.js';
import { buildInProcess } from '../helpers/in-process-build.js';
import { OLD_MARK } from '../../src/tree-writer/swap-folders.js';
import { CLI } from '../helpers/paths.js';
import { makeProject } from '../helpers/projects.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

const TOOL = 'numbered';
/** The fixture's calls: n from 1 to 12. */
const CALLS = 12;
const ALL = Array.from({ length: CALLS }, (_, index) => index + 1);
/** The call the gate holds. With one runner, calls run in order after the probe's two runs of n=1. */
const GATE = 6;
const RUNS_FOLDER = path.join('.staticmcp', 'cache', 'runs');
/**
 * Room for a test of many real builds in a row (up to 13) on a machine other jobs share: each
 * build is a Node start and a dozen script runs, which such a machine stretches well past vitest's
 * minute (CONTRIBUTING: tests are not timed).
 */
const MANY_BUILDS_MS = 180_000;

async function makeNumberedProject(edition: string): Promise<string> {
  return makeProject({ tools: { [TOOL]: 'waits-at-gate' }, files: { edition: `${edition}\n` } });
}

/** The numbered project (edition "first") built in-process once, its cache holding every call. */
let builtNumbered: Promise<string> | undefined;

/** A copy of the built numbered project (its tree and cache), for a test that changes it. */
async function copyBuiltNumberedProject(): Promise<string> {
  builtNumbered ??= (async () => {
    const project = await makeNumberedProject('first');
    expect((await buildInProcess(project)).code).toBe(0);
    // The determinism probe runs the first call twice.
    expect(await takeRuns(project)).toEqual([1, ...ALL]);
    return project;
  })();
  const copy = path.join(await temporaryFolder('staticmcp-numbered-'), 'project');
  await fs.cp(await builtNumbered, copy, { recursive: true });
  return copy;
}

/** The n of each run the scripts logged since the last call, sorted; the log is emptied. */
async function takeRuns(project: string): Promise<number[]> {
  const file = path.join(project, 'runs.log');
  const text = (await exists(file)) ? await fs.readFile(file, 'utf8') : '';
  await fs.rm(file, { force: true });
  return text
    .split('\n')
    .filter(Boolean)
    .map(Number)
    .sort((left, right) => left - right);
}

/**
 * The tree a killed build left: at `out`, or, killed between the swap's two renames, the previous
 * tree parked beside it as `<out>.staticmcp-old-<pid>` for the next build to put back.
 */
async function treeLeftBy(out: string): Promise<{ files: Map<string, Buffer>; parked: boolean }> {
  if (await exists(out)) return { files: await readTree(out), parked: false };
  const prefix = `${path.basename(out)}.staticmcp-old-`;
  const parked = (await fs.readdir(path.dirname(out))).filter((name) => name.startsWith(prefix));
  expect(parked, `no tree at ${out} and none parked beside it`).toHaveLength(1);
  return { files: await readTree(path.join(path.dirname(out), parked[0]!)), parked: true };
}

/** What each call file of the tree answers, by n. */
async function answersOf(out: string): Promise<string[]> {
  const answers: string[] = [];
  for (const n of ALL) {
    const call = JSON.parse(await fs.readFile(path.join(out, 'tools', TOOL, `${n}.json`), 'utf8')) as {
      content: { text: string }[];
    };
    answers.push(call.content[0]!.text.trim());
  }
  return answers;
}

/** The lines of the tool's cache logs. */
async function cachedLines(project: string): Promise<number> {
  const folder = path.join(project, RUNS_FOLDER);
  let lines = 0;
  for (const name of await fs.readdir(folder))
    lines += (await fs.readFile(path.join(folder, name), 'utf8')).split('\n').filter(Boolean).length;
  return lines;
}

/** The build's CLI, its own process group leader; resolves once `ready` says the moment came, then kills the group. */
async function killBuildWhen(
  args: readonly string[],
  signal: NodeJS.Signals,
  ready: (stderr: () => string) => Promise<void>,
): Promise<void> {
  // Its own TMPDIR: a SIGKILLed build cannot remove its job folder, so it must land in one of ours.
  const tmpdir = await temporaryFolder('staticmcp-build-tmp-');
  const child = spawn(process.execPath, [CLI, 'build', ...args], {
    env: envWithTmpdir(tmpdir, { STATICMCP_STAGE_MEMORY: '1' }),
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  await Promise.race([ready(() => stderr), exited]);
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // It ended on its own (the moment came after the build's last stage line).
  }
  await exited;
}

/** Ends the script a killed build left at the gate (a SIGKILLed build cannot). */
async function endGateScript(project: string): Promise<void> {
  const pid = Number(await fs.readFile(path.join(project, 'at-gate'), 'utf8'));
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Ended with the build (SIGTERM ends the running scripts).
  }
  await fs.rm(path.join(project, 'at-gate'));
  await fs.rm(path.join(project, 'gate'));
}

async function untilAtGate(project: string): Promise<void> {
  await waitForFile(path.join(project, 'at-gate'));
}

describe('a build killed at a call', () => {
  it(
    '--force: the next build runs nothing, answering the calls it ran again anew and the others as before',
    async () => {
      for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
        const project = await copyBuiltNumberedProject();
        const out = path.join(project, 'dist');
        const before = await readTree(out);

        // A new edition only --force shows; the forced build is killed at its sixth call.
        await fs.writeFile(path.join(project, 'edition'), 'second\n');
        await fs.writeFile(path.join(project, 'gate'), `${GATE}\n`);
        await killBuildWhen([project, '--force', '--concurrency', '1'], signal, () => untilAtGate(project));
        await endGateScript(project);
        expect(await takeRuns(project), signal).toEqual([1, 1, 2, 3, 4, 5, 6]);
        const after = await readTree(out);
        expect([...after.keys()], signal).toEqual([...before.keys()]);
        for (const [file, bytes] of before) expect(after.get(file)!.equals(bytes), `${signal} ${file}`).toBe(true);

        // Removing the gate is an edit: the build runs, from the cache.
        const next = await buildInProcess(project);
        expect(next.code, problemsOf(next.report)).toBe(0);
        expect(toolReport(next.report as BuildReportJson, TOOL), signal).toMatchObject({
          precomputed: CALLS,
          cached: CALLS,
        });
        expect(await takeRuns(project), signal).toEqual([]);
        expect(await answersOf(out), signal).toEqual(ALL.map((n) => `n=${n} ${n < GATE ? 'second' : 'first'}`));

        // A forced build that runs every call replaces every earlier result, and the log holds it once;
        // the rewrite a build killed while it wrote the log left (its pid is never alive) is removed.
        const [bucket] = await fs.readdir(path.join(project, RUNS_FOLDER));
        const deadRewrite = path.join(project, RUNS_FOLDER, `${bucket}.rewrite-4194305`);
        await fs.writeFile(deadRewrite, 'x\n');
        const forced = await buildInProcess(project, { force: true });
        expect(forced.code, problemsOf(forced.report)).toBe(0);
        expect(await takeRuns(project)).toEqual([1, ...ALL]);
        expect(await answersOf(out)).toEqual(ALL.map((n) => `n=${n} second`));
        expect(await exists(deadRewrite)).toBe(false);
        expect(await cachedLines(project), signal).toBe(CALLS);
      }
    },
    MANY_BUILDS_MS,
  );

  it(
    'the next build runs the calls the killed one had not answered, and only those',
    async () => {
      for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
        const project = await copyBuiltNumberedProject();
        const out = path.join(project, 'dist');
        const before = await readTree(out);

        // A new version of the script: every call runs again, and the build is killed at the sixth.
        await fs.appendFile(path.join(project, 'tools', TOOL), '# the second version\n');
        await fs.writeFile(path.join(project, 'edition'), 'second\n');
        await fs.writeFile(path.join(project, 'gate'), `${GATE}\n`);
        await killBuildWhen([project, '--concurrency', '1'], signal, () => untilAtGate(project));
        await endGateScript(project);
        await takeRuns(project);
        const after = await readTree(out);
        for (const [file, bytes] of before) expect(after.get(file)!.equals(bytes), `${signal} ${file}`).toBe(true);

        const next = await buildInProcess(project);
        expect(next.code, problemsOf(next.report)).toBe(0);
        const runs = await takeRuns(project);
        // A SIGTERMed build appends each result it has before it ends; a SIGKILL may land between the
        // fifth call's end and its append, a result then run again, never one read half-written.
        const first = signal === 'SIGKILL' && runs[0] === GATE - 1 ? GATE - 1 : GATE;
        const toRun = ALL.filter((n) => n >= first);
        // The determinism probe runs the first call to run twice.
        expect(runs, signal).toEqual([first, ...toRun]);
        expect(toolReport(next.report as BuildReportJson, TOOL)).toMatchObject({
          precomputed: CALLS,
          cached: CALLS - toRun.length,
        });
        expect(await answersOf(out)).toEqual(ALL.map((n) => `n=${n} second`));
      }
    },
    MANY_BUILDS_MS,
  );
});

describe('an interrupted build over the cache cap', () => {
  it('keeps the results of the tools it had not reached yet', async () => {
    // Tools run in order: the build is ended at the first tool's gate, before the second's calls.
    const project = await makeProject({
      tools: { [TOOL]: 'waits-at-gate', 'then-counted': 'count-runs' },
      config: { limits: { maxCacheBytes: 0 } },
      files: { edition: 'first\n' },
    });
    expect((await buildInProcess(project)).code).toBe(0);
    await fs.rm(path.join(project, 'runs.log'));
    await fs.appendFile(path.join(project, 'tools', TOOL), '# the second version\n');
    await fs.writeFile(path.join(project, 'gate'), `${GATE}\n`);
    await killBuildWhen([project, '--concurrency', '1'], 'SIGTERM', () => untilAtGate(project));
    await endGateScript(project);
    await fs.rm(path.join(project, 'runs.log'));

    const next = await buildInProcess(project);
    expect(next.code, problemsOf(next.report)).toBe(0);
    const runs = (await fs.readFile(path.join(project, 'runs.log'), 'utf8')).split('\n').filter(Boolean);
    expect(runs.filter((line) => line.startsWith('then-counted'))).toEqual([]);
    expect(toolReport(next.report as BuildReportJson, 'then-counted')).toMatchObject({ precomputed: 3, cached: 3 });
  });
});

describe('a build killed after a stage', () => {
  // A packed tree (4 call files at most), so the pack step runs: a forced build killed just after
  // its calls, its search index, its packs and its manifest (the kill may land a little later).
  it(
    'leaves the previous tree or the whole new one, and the next build runs nothing',
    async () => {
      const project = await makeNumberedProject('first');
      const out = path.join(project, 'dist');
      const build = () => runCli(['build', project, '--max-call-files', '4']);
      // The first tree in-process: each stage's tree after it is the CLI's.
      expect((await buildInProcess(project, { maxCallFiles: 4 })).code).toBe(0);
      await takeRuns(project);
      for (const stage of ['calls', 'search', 'packs', 'manifest']) {
        const before = await readTree(out);
        // A new edition for each forced build, so the previous tree and the new one differ.
        await fs.writeFile(path.join(project, 'edition'), `after ${stage}\n`);
        await killBuildWhen([project, '--max-call-files', '4', '--force'], 'SIGKILL', async (stderr) => {
          while (!stderr().includes(`[memory] ${stage} `)) await new Promise((resolve) => setTimeout(resolve, 5));
        });
        expect(await takeRuns(project), stage).toEqual([1, ...ALL]);
        const killed = await treeLeftBy(out);

        // An edit, so the build runs rather than finding the tree up to date.
        await fs.writeFile(path.join(project, 'notes.txt'), `an edit after ${stage}\n`);
        const next = await build();
        expect(next.code, next.stderr).toBe(0);
        if (killed.parked) expect(next.stderr, stage).toContain('restored the previous tree');
        expect(next.stderr, stage).toContain(`0 call(s) to run, ${CALLS} unchanged from the cache`);
        expect(await takeRuns(project), stage).toEqual([]);
        // The killed build's results and the earlier ones were both in the log: it now holds each once.
        expect(await cachedLines(project), stage).toBe(CALLS);
        const rebuilt = await readTree(out);
        const same = (one: Map<string, Buffer>, other: Map<string, Buffer>): boolean =>
          one.size === other.size && [...one].every(([file, bytes]) => other.get(file)?.equals(bytes));
        expect(same(rebuilt, before), `${stage}: the forced build's results are in the tree`).toBe(false);
        expect(
          same(killed.files, before) || same(killed.files, rebuilt),
          `${stage}: the killed build left another tree`,
        ).toBe(true);
      }
    },
    MANY_BUILDS_MS,
  );
});

describe('a build killed between the swap of its tree', () => {
  it('the next build puts the previous tree back and says so', async () => {
    const project = await makeProject({ tools: { ok: 'ok' } });
    const out = path.join(project, 'dist');
    expect((await runCli(['build', project])).code).toBe(0);
    const before = await readTree(out);
    // Where the swap parks the previous tree (swap-folders.ts), by a build no longer running.
    await fs.rename(out, `${out}${OLD_MARK}${spawnSync('true').pid}`);
    const next = await runCli(['build', project]);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toContain('staticmcp: restored the previous tree that an interrupted build left at dist');
    const after = await readTree(out);
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
  });
});

describe('a build killed while it wrote a cache record', () => {
  // Each record is written whole to `<file>.<pid>.tmp` and renamed into place: a kill between the
  // two leaves the temp file, which nothing else would ever remove.
  it('the next build removes the temp files of dead writers, never those of a running build', async () => {
    const project = await makeProject({ tools: { ok: 'ok' } });
    await fs.mkdir(path.join(project, '.staticmcp', 'cache'), { recursive: true });
    const deadPid = spawnSync('true').pid;
    const running = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      const left = [
        path.join(project, '.staticmcp', `up-to-date.json.${deadPid}.tmp`),
        path.join(project, '.staticmcp', 'cache', `meta.json.${deadPid}.tmp`),
      ];
      const runningFile = path.join(project, '.staticmcp', 'cache', `meta.json.${running.pid}.tmp`);
      for (const file of [...left, runningFile]) await fs.writeFile(file, '{"half": ');
      const next = await buildInProcess(project);
      expect(next.code, problemsOf(next.report)).toBe(0);
      for (const file of left) expect(await exists(file), file).toBe(false);
      expect(await exists(runningFile)).toBe(true);
    } finally {
      running.kill('SIGKILL');
    }
  });
});

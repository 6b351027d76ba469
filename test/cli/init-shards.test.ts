// `staticmcp init --shards N`: a GitHub Pages workflow that builds the project as an N-job matrix
// and merges the parts. Its steps are run here as GitHub would run them (each shard's command in
// its own checkout, the artifacts downloaded side by side, the merge command over them), and the
// merged tree must be the one a one-machine build writes. Init runs as a process (once for a
// project both tests copy, then over an existing project's copy); each `run:`
// line is read by the CLI's own parser and run in-process (the build command's buildOrReplay,
// merge's mergeParts): what those commands print is test/build/shards.test.ts's.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadCommand } from '../../src/cli/command-list.js';
import { readArguments } from '../../src/cli/command-spec.js';
import { exitCodeOf } from '../../src/cli/exit-codes.js';
import { parseFast } from '../../src/cli/parse-fast.js';
import { parseShardSpec } from '../../src/builder/shard-of-call.js';
import { mergeParts } from '../../src/merge/merge-parts.js';
import { deployCommandWords } from '../../src/shared/staticmcp-command.js';
import { runCli } from '../helpers/cli.js';
import { buildInProcess } from '../helpers/in-process-build.js';
import { readTree } from '../helpers/files.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

interface Step {
  run?: string;
  uses?: string;
  with?: Record<string, unknown>;
}
interface Job {
  needs?: string;
  strategy?: { matrix: { shard: number[] } };
  steps: Step[];
}

/** The jobs the sharded workflow must have (a missing one fails the test where it is read). */
interface Workflow {
  jobs: { shard: Job; merge: Job; deploy: Job };
}

/** GitHub's expression for the job's matrix value, as the workflow spells it. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, not a template literal
const MATRIX_SHARD = '${{ matrix.shard }}';

/**
 * A workflow `run:` line as our CLI's arguments: its command is this exact staticmcp (the
 * tarball init packed, or `staticmcp@<version>` once published), which here is this checkout's
 * build; test/cli/deploy-commands.test.ts runs the command itself.
 */
function cliArguments(run: string, matrixShard?: number): string[] {
  const words = run.replaceAll(MATRIX_SHARD, String(matrixShard)).split(/\s+/);
  expect(words.slice(0, 3)).toEqual(deployCommandWords());
  return words.slice(3);
}

/**
 * A workflow line's arguments read as the CLI reads them (its fast parser, then the command's own
 * option checks), refusing any option this test does not pass on: a new one must be tested here.
 */
async function readLine(
  args: string[],
  passedOn: readonly string[],
): Promise<{ positionals: string[]; options: Record<string, unknown> }> {
  const spec = (await loadCommand(args[0]))!;
  const parsed = parseFast(spec, args.slice(1));
  expect(parsed, args.join(' ')).not.toBeNull();
  const read = readArguments(spec, parsed!.positionals, parsed!.found);
  const { positionals } = read;
  const options = read.options as Record<string, unknown>;
  const given = Object.keys(options).filter((name) => options[name] !== undefined && options[name] !== false);
  expect(given.filter((name) => !passedOn.includes(name))).toEqual([]);
  return { positionals, options };
}

function stepUsing(steps: Step[], action: string): Step {
  const step = steps.find((candidate) => candidate.uses?.startsWith(action));
  if (!step) throw new Error(`no ${action} step`);
  return step;
}

describe('staticmcp init --shards', () => {
  /** The project `init --shards 3` wrote (the first test reads it; the second inits over a copy). */
  let initialized: string;

  beforeAll(async () => {
    initialized = path.join(await temporaryFolder(), 'my-server');
    const init = await runCli(['init', initialized, '--shards', '3']);
    expect(init.code, init.stderr).toBe(0);
  });

  it('writes a matrix workflow whose steps, run as GitHub runs them, publish the one-machine tree', async () => {
    const work = await temporaryFolder();
    const project = path.join(work, 'my-server');
    await fs.cp(initialized, project, { recursive: true });
    expect(await fs.readdir(path.join(project, '.github/workflows'))).toEqual(['staticmcp-pages.yml']);
    const workflow = parse(
      await fs.readFile(path.join(project, '.github/workflows/staticmcp-pages.yml'), 'utf8'),
    ) as Workflow;
    const { shard, merge, deploy } = workflow.jobs;
    expect(shard.strategy?.matrix.shard).toEqual([1, 2, 3]);
    expect(merge.needs).toBe('shard');
    expect(deploy.needs).toBe('merge');
    const cache = stepUsing(shard.steps, 'actions/cache@');
    expect(cache.with?.path).toBe('.staticmcp');
    expect(String(cache.with?.key)).toContain(`${MATRIX_SHARD}-of-3`);
    const upload = stepUsing(shard.steps, 'actions/upload-artifact@');
    expect(upload.with?.['include-hidden-files']).toBe(true);

    // Each shard job: its own copy of the repository, its command, its artifact.
    const buildRun = shard.steps.find((step) => step.run)!.run!;
    const download = stepUsing(merge.steps, 'actions/download-artifact@');
    const downloaded = path.join(work, 'merge-job', String(download.with?.path));
    for (const index of [1, 2, 3]) {
      const checkout = path.join(work, `shard-job-${index}`);
      await fs.cp(project, checkout, { recursive: true });
      const args = cliArguments(buildRun, index);
      expect(args[0]).toBe('build');
      // `build <project> --shard I/N --out <part>`, run in the checkout.
      const { positionals, options } = await readLine(args, ['shard', 'out']);
      const result = await buildInProcess(path.resolve(checkout, positionals[0] ?? '.'), {
        shard: parseShardSpec(String(options.shard)),
        outDir: path.resolve(checkout, String(options.out)),
      });
      expect(result.code, result.error?.message).toBe(0);
      const artifact = String(upload.with?.name).replaceAll(MATRIX_SHARD, String(index));
      expect(artifact).toMatch(new RegExp(`^${String(download.with?.pattern).replace('*', '.*')}$`));
      await fs.cp(path.join(checkout, String(upload.with?.path)), path.join(downloaded, artifact), { recursive: true });
    }
    const mergeArgs = cliArguments(merge.steps.find((step) => step.run)!.run!);
    expect(mergeArgs.slice(0, 2)).toEqual(['merge', `${download.with?.path}/*`]);
    const mergeJob = path.join(work, 'merge-job');
    const parts = (await fs.readdir(downloaded)).map((name) => path.join(String(download.with?.path), name));
    // The shell expands the glob; the line is read with the parts in its place.
    const mergeLine = await readLine(['merge', ...parts, ...mergeArgs.slice(2)], ['out']);
    expect(mergeLine.positionals).toEqual(parts);
    const merged = await mergeParts({
      parts: parts.map((part) => path.resolve(mergeJob, part)),
      outDir: path.resolve(mergeJob, String(mergeLine.options.out)),
    });
    expect(merged.ok).toBe(true);
    const published = path.join(
      work,
      'merge-job',
      String(stepUsing(merge.steps, 'actions/upload-pages-artifact@').with?.path),
    );

    const whole = path.join(work, 'whole');
    expect((await buildInProcess(project, { outDir: whole })).code).toBe(0);
    const [wholeTree, publishedTree] = await Promise.all([readTree(whole), readTree(published)]);
    expect([...publishedTree.keys()]).toEqual([...wholeTree.keys()]);
    for (const [file, bytes] of wholeTree) expect(publishedTree.get(file)?.equals(bytes), file).toBe(true);
  });

  it('adds only the workflow to an existing project, and never replaces one', async () => {
    const project = path.join(await temporaryFolder(), 'my-server');
    await fs.cp(initialized, project, { recursive: true });
    const before = await fs.readFile(path.join(project, '.github/workflows/staticmcp-pages.yml'), 'utf8');
    const refused = await runCli(['init', project, '--shards', '4']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('error [INIT_WORKFLOW_EXISTS]');
    expect(refused.stderr).toContain('what to do: Delete or rename it first');
    expect(await fs.readFile(path.join(project, '.github/workflows/staticmcp-pages.yml'), 'utf8')).toBe(before);

    await fs.rm(path.join(project, '.github'), { recursive: true });
    // The workflow's command installs the tarball init packed (before publication): put back when missing.
    const [, , tarball] = deployCommandWords();
    const needsTarball = tarball?.startsWith('./') === true;
    if (needsTarball) await fs.rm(path.join(project, String(tarball)));
    const files = (await readTree(project)).size;
    const added = await runCli(['init', project, '--shards', '4']);
    expect(added.code, added.stderr).toBe(0);
    expect((await readTree(project)).size).toBe(files + (needsTarball ? 2 : 1));
    if (needsTarball) await expect(fs.access(path.join(project, String(tarball)))).resolves.toBeUndefined();
    const workflow = parse(
      await fs.readFile(path.join(project, '.github/workflows/staticmcp-pages.yml'), 'utf8'),
    ) as Workflow;
    expect(workflow.jobs.shard.strategy?.matrix.shard).toEqual([1, 2, 3, 4]);

    // A refused count, decided in-process by the option's own check (exit 2, as every refused
    // value: test/cli/command-line.test.ts runs one through the CLI).
    const spec = (await loadCommand('init'))!;
    const parsed = parseFast(spec, [path.join(project, 'new'), '--shards', '0'])!;
    let refusal: unknown;
    try {
      readArguments(spec, parsed.positionals, parsed.found);
    } catch (error) {
      refusal = error;
    }
    expect(exitCodeOf(refusal)).toBe(2);
    expect(String((refusal as Error).message)).toContain('--shards must be a whole number from 1 to 256');
  });
});

// The no-op fast path: an identical rerun replays the last clean build's report without running
// anything but its value-list commands (each must print the same bytes again), and any change it
// cannot see through file metadata (a damaged tree, a failed build, an option that changes the
// output) sends the build down the full path.
// Builds run in-process through the build command's decision (test/helpers/in-process-build.ts);
// the first test shows the same replay through the CLI's --json once.
import { describe, expect, it } from 'vitest';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { BuildOptions, OutputOption } from '../../src/builder/build-options.js';
import { type BuildReportJson, buildJson } from '../helpers/cli.js';
import { buildInProcess } from '../helpers/in-process-build.js';
import { exists, readJson } from '../helpers/files.js';
import { copyFixtureScript, makeProject } from '../helpers/projects.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

type Options = Omit<BuildOptions, 'projectRoot'>;

/** A test's room on a machine a second CI shares (CONTRIBUTING: tests are not timed). */
const BUSY_MACHINE_MS = 120_000;

/** `staticmcp build <project> --json` with `options`, in-process. */
const build = (project: string, options: Options = {}) => buildInProcess(project, options);

// Its first test runs the CLI twice and is the first in this file to build in-process, which loads
// the builder's modules: on a busy machine that outlasts the default 60 s.
describe('rebuilding an unchanged project', { timeout: BUSY_MACHINE_MS }, () => {
  it('replays the report, and rebuilds as soon as a resource changes or a tree file goes missing', async () => {
    // A file removed (or added, or renamed) changes its folder's mtime, which the replay checks.
    const project = await makeProject({ tools: { ok: 'ok' }, files: { 'resources/a.txt': 'first' } });
    expect((await buildJson(project)).code).toBe(0);
    const again = await buildJson(project);
    expect(again.report).toMatchObject({ ok: true, unchanged: true, resources: 1 });
    expect(again.report.tools).toEqual([expect.objectContaining({ name: 'ok', precomputed: 1, cached: 1 })]);

    await fs.writeFile(path.join(project, 'resources/a.txt'), 'second, longer');
    const edited = await build(project);
    expect(edited.report.unchanged).toBe(false);
    expect(await readJson(path.join(project, 'dist/resources/a_txt.json'))).toMatchObject({ text: 'second, longer' });

    await fs.rm(path.join(project, 'dist/tools/ok.json'));
    const repaired = await build(project);
    expect(repaired.report.unchanged).toBe(false);
    expect(await exists(path.join(project, 'dist/tools/ok.json'))).toBe(true);
  });

  it('checks the tree by its folders, not its files: a file rewritten in place stays until --force', async () => {
    const project = await makeProject({ tools: { ok: 'ok' } });
    expect((await build(project)).code).toBe(0);
    const file = path.join(project, 'dist/tools/ok.json');
    const built = await fs.readFile(file);
    // In place: same inode, same folder, so no folder's metadata changes (the no-op costs what
    // the inputs cost, not a stat per output file; `staticmcp check` reports such an edit).
    await fs.writeFile(file, 'edited by hand');
    expect((await build(project)).report.unchanged).toBe(true);
    expect(await fs.readFile(file, 'utf8')).toBe('edited by hand');
    expect((await build(project, { force: true })).code).toBe(0);
    expect(await fs.readFile(file)).toEqual(built);
  });

  it('always reruns value-list commands, whose output no file metadata shows', async () => {
    const outside = await temporaryFolder();
    const list = path.join(outside, 'values.txt');
    const runs = path.join(outside, 'runs.txt');
    await fs.writeFile(list, 'a\n');
    const project = await makeProject({
      tools: { echo: 'echo-value' },
      config: { tools: { echo: { values: { value: { command: `echo run >> '${runs}'; cat '${list}'` } } } } },
    });
    expect((await build(project)).report.tools[0]).toMatchObject({ precomputed: 1 });
    // The same output: replayed, after running the command once more.
    expect((await build(project)).report).toMatchObject({ ok: true, unchanged: true });
    expect(await fs.readFile(runs, 'utf8')).toBe('run\nrun\n');
    await fs.writeFile(list, 'a\nb\n');
    const { report } = await build(project);
    expect(report.tools[0]).toMatchObject({ precomputed: 2 });
    expect(await readJson(path.join(project, 'dist/tools/echo/b.json'))).toMatchObject({ content: [{ text: 'b\n' }] });
  });

  it('never replays a build whose value-list command failed, nor when the command fails now', async () => {
    const outside = await temporaryFolder();
    const flag = path.join(outside, 'fail');
    const project = await makeProject({
      tools: { echo: 'echo-value' },
      config: { tools: { echo: { values: { value: { command: `test ! -e '${flag}' && echo a` } } } } },
    });
    const record = path.join(project, '.staticmcp/up-to-date.json');
    const warningsOf = (report: BuildReportJson) => report.tools[0]!.warnings;
    expect(warningsOf((await build(project)).report)).toEqual([]);
    expect(await exists(record)).toBe(true);
    // The command fails now: a replay would answer the recorded report, without the warning.
    await fs.writeFile(flag, '');
    expect(warningsOf((await build(project)).report)).toEqual([expect.stringMatching(/value list command/)]);
    // A build whose command failed leaves no record to replay.
    expect(await exists(record)).toBe(false);
    await fs.rm(flag);
    expect(warningsOf((await build(project)).report)).toEqual([]);
  });

  it('with a value-list command, still rebuilds on any edit of a document, sidecar, config or tree', async () => {
    const project = await makeProject({
      tools: { echo: 'echo-value' },
      config: { tools: { echo: { values: { value: { command: "printf 'a\\n'" } } } } },
      files: { 'resources/a.md': '# A\n\nfirst', 'resources/a.md.meta.json': '{"description": "one"}' },
    });
    const record = path.join(project, '.staticmcp/up-to-date.json');
    // A replay leaves the record as it was; a build that ran writes a new one.
    const replayed = async () => {
      const before = (await fs.stat(record)).ino;
      const { report } = await build(project);
      expect(report.ok).toBe(true);
      return (await fs.stat(record)).ino === before;
    };
    const manifest = () => readJson(path.join(project, 'dist/mcp.json'));
    await build(project);
    expect(await replayed()).toBe(true);
    await fs.writeFile(path.join(project, 'resources/a.md'), '# A\n\nsecond');
    expect(await replayed()).toBe(false);
    expect(await readJson(path.join(project, 'dist/resources/a_md.json'))).toMatchObject({ text: '# A\n\nsecond' });
    await fs.writeFile(path.join(project, 'resources/b.md'), '# B');
    expect(await replayed()).toBe(false);
    expect(await exists(path.join(project, 'dist/resources/b_md.json'))).toBe(true);
    await fs.rm(path.join(project, 'resources/b.md'));
    expect(await replayed()).toBe(false);
    expect(await exists(path.join(project, 'dist/resources/b_md.json'))).toBe(false);
    await fs.writeFile(path.join(project, 'resources/a.md.meta.json'), '{"description": "two"}');
    expect(await replayed()).toBe(false);
    expect(JSON.stringify(await manifest())).toContain('"two"');
    const config = JSON.parse(await fs.readFile(path.join(project, 'staticmcp.json'), 'utf8'));
    await fs.writeFile(path.join(project, 'staticmcp.json'), JSON.stringify({ ...config, title: 'Retitled' }));
    expect(await replayed()).toBe(false);
    expect(JSON.stringify(await manifest())).toContain('Retitled');
    await fs.rm(path.join(project, 'dist/resources/a_md.json'));
    expect(await replayed()).toBe(false);
    expect(await exists(path.join(project, 'dist/resources/a_md.json'))).toBe(true);
    expect(await replayed()).toBe(true);
    // A replay reads no document: the report says none was parsed.
    expect((await build(project)).report.documents).toEqual({ parsed: 0, reused: 1 });
  });

  it('never replays a build that failed: the failure is reported again', async () => {
    const project = await makeProject({ tools: { ok: 'ok', broken: 'help-exit-1' } });
    expect((await build(project)).code).toBe(1);
    const again = await build(project);
    expect(again.code).toBe(1);
    expect(again.report.failures).toEqual([expect.objectContaining({ path: 'tools/broken' })]);
  });
});

/** Two builds of one project that differ in one option, and what the second must have written. */
interface OptionChange {
  /** Makes the project; returns the project argument and the options of each build. */
  arrange(project: string): Promise<{ first: Options; second: Options; secondProject?: string }>;
  /**
   * Checks the second build's tree (or, for an option that only decides a warning until the tree
   * shows it, its report) follows the changed option: a replay would not.
   */
  check(project: string, report: BuildReportJson): Promise<void>;
  /** The option leaves the tree's bytes as they were, so the build ran but reports it unchanged. */
  sameTree?: true;
}

// One row per option that changes the tree (build-options.ts): a new one without a row here is a
// type error. Each row changes only that option between two builds and expects the second to build.
const OUTPUT_OPTION_CHANGES: Record<OutputOption, OptionChange> = {
  projectRoot: {
    // The same folder through another path: the server is named after the folder as given.
    async arrange(project) {
      const alias = path.join(path.dirname(project), 'renamed-server');
      await fs.symlink(project, alias);
      return { first: {}, second: {}, secondProject: alias };
    },
    async check(project) {
      expect(await readJson(path.join(project, 'dist/mcp.json'))).toMatchObject({
        serverInfo: { name: 'renamed-server' },
      });
    },
  },
  outDir: {
    // An --out build recorded, then the default output folder asked for.
    async arrange(project) {
      return { first: { outDir: path.join(project, 'elsewhere') }, second: {} };
    },
    async check(project) {
      expect(await exists(path.join(project, 'dist/tools/ok.json'))).toBe(true);
    },
  },
  toolsDir: {
    async arrange(project) {
      await copyFixtureScript('ok', path.join(project, 'bare/other'));
      return { first: {}, second: { toolsDir: path.join(project, 'bare') } };
    },
    async check(project) {
      expect(await exists(path.join(project, 'dist/tools/other.json'))).toBe(true);
      expect(await exists(path.join(project, 'dist/tools/ok.json'))).toBe(false);
    },
  },
  siteDir: {
    // A folder of HTML pages named by --site (one-command form): its page becomes a resource.
    async arrange(project) {
      await fs.mkdir(path.join(project, 'site'));
      await fs.writeFile(path.join(project, 'site/page.html'), '<title>Page</title><main>Hello</main>');
      return { first: {}, second: { siteDir: path.join(project, 'site') } };
    },
    async check(project) {
      const manifest = (await readJson(path.join(project, 'dist/mcp.json'))) as {
        capabilities: { resources: { name: string }[] };
      };
      expect(manifest.capabilities.resources.map((resource) => resource.name)).toContain('page.html');
    },
  },
  maxCallFiles: {
    // Two call files over a budget of one (tools/<tool>.json files, never packed): a warning, which
    // the replayed report of the first build (no budget given, so 19,000) would not hold.
    async arrange(project) {
      await copyFixtureScript('ok', path.join(project, 'tools/other'));
      return { first: {}, second: { maxCallFiles: 1 } };
    },
    async check(_project, report) {
      expect(report.warnings).toContainEqual(
        expect.objectContaining({ message: expect.stringContaining('this tree needs packs: 2 call files') }),
      );
    },
    sameTree: true,
  },
};

describe('rebuilding with an option that changes the output', () => {
  for (const [option, change] of Object.entries(OUTPUT_OPTION_CHANGES)) {
    it(`builds again when only ${option} changed`, async () => {
      const parent = await temporaryFolder();
      const project = await makeProject({ tools: { ok: 'ok' } }, parent);
      const { first, second, secondProject } = await change.arrange(project);
      expect((await build(project, first)).code).toBe(0);
      // The same options again replay: the change below is what makes the difference.
      expect((await build(project, first)).report.unchanged).toBe(true);
      const changed = await build(secondProject ?? project, second);
      expect(changed.code, changed.error?.message).toBe(0);
      expect(changed.report.unchanged).toBe(change.sameTree === true);
      await change.check(project, changed.report);
    });
  }
});

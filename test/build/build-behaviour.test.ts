// What a build promises beyond surviving bad input: what a script sees (environment, stdin), an
// atomic and reproducible tree, stale files removed, incremental rebuilds, the --json report and
// a bare --tools folder. Each test builds a throwaway project of real scripts: through the build
// command's decision in-process (test/helpers/in-process-build.ts) where only the report and the
// tree are asserted, through the real CLI where the process is (signals, TMPDIR, stdout, stderr).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type BuildReportJson, envWithTmpdir, problemsOf, runCli, toolReport } from '../helpers/cli.js';
import { describeReportBody } from '../../src/cli/describe-report.js';
import { buildInProcess } from '../helpers/in-process-build.js';
import { exists, readJson, readTree, waitForFile } from '../helpers/files.js';
import { CLI } from '../helpers/paths.js';
import { isAlive } from '../helpers/processes.js';
import { copyFixtureScript, makeProject } from '../helpers/projects.js';
import { temporaryFolder } from '../helpers/temp-folders.js';
import { firstText } from '../helpers/results.js';

const textOf = firstText;

/**
 * What a build left in a temporary folder, apart from Node's compile cache (Node 22.1+), which the
 * CLI keeps in the OS temp folder on purpose (src/cli/main.ts): only the build's own job folders count.
 */
async function listLeftovers(folder: string): Promise<string[]> {
  return (await fs.readdir(folder)).filter((name) => name !== 'node-compile-cache');
}

/** Runs `build` with TMPDIR set to `folder` in this process (tests of a file run one at a time). */
async function withTmpdir<T>(folder: string, build: () => Promise<T>): Promise<T> {
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = folder;
  try {
    return await build();
  } finally {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
  }
}

/**
 * A project built once (its tree is `before`), then rebuilt with a script that hangs: resolves
 * once that script is running, with a way to signal the build and wait for its exit.
 */
async function startBuildThatHangs() {
  const project = await makeProject({ tools: { ok: 'ok' } });
  const out = path.join(project, 'dist');
  expect((await buildInProcess(project)).code).toBe(0);
  const before = await readTree(out);
  await copyFixtureScript('slow', path.join(project, 'tools', 'slow'));
  // Its own TMPDIR: a SIGKILLed build cannot remove its run folder, so it must land in one of ours.
  const tmpdir = await temporaryFolder('staticmcp-build-tmp-');
  const child = spawn(process.execPath, [CLI, 'build', project], {
    env: envWithTmpdir(tmpdir),
    stdio: 'ignore',
  });
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on('exit', (code, sig) => resolve([code, sig])),
  );
  await waitForFile(path.join(project, 'started.pid'));
  const killBuild = (signal: NodeJS.Signals): Promise<[number | null, NodeJS.Signals | null]> => {
    child.kill(signal);
    return exited;
  };
  return { project, out, before, killBuild, tmpdir };
}

describe('what a script receives', () => {
  it('gets declared identifier-safe options as environment variables, never reserved names, and all arguments on stdin', async () => {
    const project = await makeProject({
      tools: { 'print-env': 'print-env' },
      config: { tools: { 'print-env': { values: { name: ['Ada Lovelace'] } } } },
      // An inputSchema from the sidecar adds a parameter the script never declared in --help.
      files: {
        'tools/print-env.meta.json': JSON.stringify({
          inputSchema: {
            type: 'object',
            properties: {
              name: { type: 'string' },
              PATH: { type: 'string', default: '/nowhere' },
              LD_PRELOAD: { type: 'string', default: '/tmp/evil.so' },
              'dashed-name': { type: 'string', default: 'dash' },
              flag: { type: 'boolean', default: false },
              undeclared: { type: 'string', enum: ['sneaky'] },
            },
            required: ['name'],
          },
        }),
      },
    });
    const { code, report } = await buildInProcess(project);
    expect(code).toBe(0);
    expect(toolReport(report, 'print-env').precomputed).toBe(2);
    const file = await readJson(
      path.join(project, 'dist/tools/print-env/ada_lovelace/_nowhere/_tmp_evil_so/dash/true/sneaky.json'),
    );
    const [envText = '', stdinText = ''] = textOf(file).split('--- stdin\n');
    const env = Object.fromEntries(
      envText
        .trim()
        .split('\n')
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    expect(env.name).toBe('Ada Lovelace');
    expect(env.flag).toBe('true');
    expect(env.PATH).not.toBe('/nowhere');
    expect(env).not.toHaveProperty('LD_PRELOAD');
    expect(env).not.toHaveProperty('dashed-name');
    expect(env).not.toHaveProperty('undeclared');
    expect(env).toMatchObject({
      LANG: 'C.UTF-8',
      TZ: 'UTC',
      STATICMCP_PHASE: 'build',
      STATICMCP_TOOL: 'print-env',
      STATICMCP_PROJECT_ROOT: project,
    });
    // Nothing else of the caller's environment leaks in.
    expect(Object.keys(env).sort()).toEqual(expect.arrayContaining(['LANG', 'PATH', 'TZ']));
    expect(
      Object.keys(env)
        .filter((name) => !['HOME', 'TMPDIR', 'PWD', 'SHLVL', '_', 'OLDPWD'].includes(name))
        .sort(),
    ).toEqual([
      'LANG',
      'MCPD_CONFIG_COMMANDS_ROOT_DIRECTORY',
      'PATH',
      'STATICMCP_PHASE',
      'STATICMCP_PROJECT_ROOT',
      'STATICMCP_RUN_ID',
      'STATICMCP_TOOL',
      'TZ',
      'flag',
      'name',
    ]);
    expect(JSON.parse(stdinText)).toEqual({
      name: 'Ada Lovelace',
      PATH: '/nowhere',
      LD_PRELOAD: '/tmp/evil.so',
      'dashed-name': 'dash',
      flag: true,
      undeclared: 'sneaky',
    });
  });

  it('runs scripts in the project root', async () => {
    const project = await makeProject({ tools: { 'count-runs': 'count-runs' } });
    expect((await buildInProcess(project)).code).toBe(0);
    // The first call runs twice: the determinism probe (probe-determinism.ts).
    expect((await fs.readFile(path.join(project, 'runs.log'), 'utf8')).split('\n').filter(Boolean).sort()).toEqual([
      'count-runs 1',
      'count-runs 1',
      'count-runs 2',
      'count-runs 3',
    ]);
  });

  it('ends a run when the script exits, even if a process it left in another session holds its output open', async () => {
    const project = await makeProject({ tools: { 'leaves-daemon': 'leaves-daemon' } });
    const { code, report } = await buildInProcess(project);
    const daemon = Number(await fs.readFile(path.join(project, 'daemon.pid'), 'utf8'));
    if (isAlive(daemon)) process.kill(daemon, 'SIGKILL');
    expect(code, problemsOf(report)).toBe(0);
    expect(await readJson(path.join(project, 'dist/tools/leaves-daemon.json'))).toMatchObject({
      content: [{ text: 'answer before the daemon\n' }],
    });
  });

  it('fails the argument set whose run times out, and keeps the others', async () => {
    const project = await makeProject({
      tools: { 'ignores-sigterm': 'ignores-sigterm', ok: 'ok' },
      config: { tools: { 'ignores-sigterm': { timeoutSecs: 0.3 } } },
    });
    const { code, report } = await buildInProcess(project);
    expect(code).toBe(1);
    expect(toolReport(report, 'ignores-sigterm').failures.map((failure) => failure.message)).toEqual([
      'ignores-sigterm timed out after 300 ms and was killed',
    ]);
    expect(toolReport(report, 'ok').precomputed).toBe(1);
  });
});

describe('the tree on disk', () => {
  it('is byte-identical for identical input, built twice into different folders', async () => {
    const project = await makeProject({
      tools: { divide: 'divide', 'echo-value': 'echo-value', 'count-runs': 'count-runs' },
      config: { name: 'same', tools: { 'echo-value': { values: { value: ['Ørsted', 'x'.repeat(201), ''] } } } },
      files: { 'resources/a.md': '# A\n', 'resources/b.bin': Buffer.from([0, 1, 2, 255]) },
    });
    const first = path.join(await temporaryFolder(), 'one');
    const second = path.join(await temporaryFolder(), 'two');
    expect((await buildInProcess(project, { outDir: first, force: true })).code).toBe(0);
    expect((await buildInProcess(project, { outDir: second, force: true, concurrency: 1 })).code).toBe(0);
    const one = await readTree(first);
    const two = await readTree(second);
    expect([...two.keys()]).toEqual([...one.keys()]);
    for (const [file, bytes] of one) expect(two.get(file)!.equals(bytes), file).toBe(true);
    expect(one.has(`tools/echo-value/${'x'.repeat(183)}_38298ec4fa395c3b.json`)).toBe(true);
    expect(one.has('tools/echo-value/_30406ea523c53def.json')).toBe(true);
    expect(one.has('tools/echo-value/_rsted.json')).toBe(true);
  });

  it('removes files that no longer belong to the tree on rebuild', async () => {
    const project = await makeProject({
      tools: { ok: 'ok', 'count-runs': 'count-runs' },
      files: { 'resources/old.md': 'old\n' },
    });
    const out = path.join(project, 'dist');
    expect((await buildInProcess(project)).code).toBe(0);
    expect(await exists(path.join(out, 'tools/count-runs/3.json'))).toBe(true);
    await fs.rm(path.join(project, 'tools', 'count-runs'));
    await fs.rm(path.join(project, 'resources', 'old.md'));
    expect((await buildInProcess(project)).code).toBe(0);
    expect([...(await readTree(out)).keys()]).toEqual([
      '.assetsignore',
      '.nojekyll',
      '404.html',
      '_headers',
      '_routes.json',
      // No _worker.js: an in-process build has no bundled worker (in-process-build.ts).
      'index.html',
      'mcp.json',
      'tools/ok.json',
    ]);
  });

  it('leaves the previous tree intact when the build is killed mid-run', async () => {
    const { project, out, before, killBuild, tmpdir } = await startBuildThatHangs();
    await killBuild('SIGKILL');
    // A SIGKILLed build cannot clean up after itself: end the script it left behind.
    const scriptPid = Number(await fs.readFile(path.join(project, 'started.pid'), 'utf8'));
    try {
      process.kill(-scriptPid, 'SIGKILL');
    } catch {
      // Already gone.
    }
    const after = await readTree(out);
    expect([...after.keys()]).toEqual([...before.keys()]);
    for (const [file, bytes] of before) expect(after.get(file)!.equals(bytes), file).toBe(true);
    // The next build cleans up the half-written folder the killed one left beside the tree, and
    // its folder of job files once nothing has touched it for ten minutes (made so here).
    const [leftover, ...others] = (await fs.readdir(tmpdir)).filter((name) => name.startsWith('staticmcp-run-'));
    expect(leftover, 'the killed build left its job folder').toBeDefined();
    expect(others).toEqual([]);
    const hourAgo = new Date(Date.now() - 3_600_000);
    await fs.utimes(path.join(tmpdir, leftover!), hourAgo, hourAgo);
    await fs.rm(path.join(project, 'tools', 'slow'));
    // --force: the folder is cleaned by the next build that runs a script (in-process, with the
    // same TMPDIR: the job folder's place is read from it at each build).
    const rebuilt = await withTmpdir(tmpdir, () => buildInProcess(project, { force: true }));
    expect(rebuilt.code, problemsOf(rebuilt.report)).toBe(0);
    expect((await fs.readdir(project)).filter((name) => name.startsWith('dist'))).toEqual(['dist']);
    expect(await listLeftovers(tmpdir)).toEqual([]);
  });

  it('ends the running scripts when the build is interrupted (SIGINT or SIGTERM), keeping the previous tree', async () => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      const { project, out, before, killBuild } = await startBuildThatHangs();
      const [code] = await killBuild(signal);
      const scriptPid = Number(await fs.readFile(path.join(project, 'started.pid'), 'utf8'));
      const scriptSurvived = isAlive(scriptPid);
      if (scriptSurvived) process.kill(-scriptPid, 'SIGKILL');
      expect(scriptSurvived, `the script was still running after the build exited on ${signal}`).toBe(false);
      expect(code).toBe(signal === 'SIGINT' ? 130 : 143);
      expect((await readTree(out)).get('tools/ok.json')!.equals(before.get('tools/ok.json')!)).toBe(true);
      expect(await exists(path.join(out, 'tools', 'slow.json'))).toBe(false);
    }
  });

  it('puts back a previous tree that a build killed between its two renames left beside the output', async () => {
    const project = await makeProject({ tools: { ok: 'ok' } });
    const out = path.join(project, 'dist');
    expect((await buildInProcess(project)).code).toBe(0);
    // The state a kill between "dist → dist.old" and "tmp → dist" leaves (pid 2^22+1 is never alive).
    await fs.rename(out, `${out}.staticmcp-old-4194305`);
    await fs.mkdir(`${out}.staticmcp-tmp-4194305`);
    await fs.writeFile(`${out}.staticmcp-tmp-4194305/half.json`, '{');
    // And the search index writer's sorted runs (search-index-spill-writer.ts).
    await fs.mkdir(`${out}.staticmcp-scratch-4194305`);
    await fs.writeFile(`${out}.staticmcp-scratch-4194305/run-0`, 'x');
    const { code, report } = await buildInProcess(project);
    expect(code).toBe(0);
    expect(report.unchanged).toBe(true);
    expect((await fs.readdir(project)).filter((name) => name.startsWith('dist')).sort()).toEqual(['dist']);
    expect(await readJson(path.join(out, 'tools', 'ok.json'))).toMatchObject({ content: [{ text: 'ok\n' }] });
  });
});

describe('incremental builds', () => {
  async function runsLogged(project: string): Promise<string[]> {
    try {
      return (await fs.readFile(path.join(project, 'runs.log'), 'utf8')).split('\n').filter(Boolean).sort();
    } catch {
      return [];
    }
  }

  it('runs no script for an unchanged project, every script with --force, and only a changed tool after an edit', async () => {
    const project = await makeProject({ tools: { first: 'count-runs', second: 'count-runs' } });
    // The first call of each tool runs twice: the determinism probe.
    const everything = ['first 1', 'first 1', 'first 2', 'first 3', 'second 1', 'second 1', 'second 2', 'second 3'];
    const initial = await buildInProcess(project);
    expect(initial.code, problemsOf(initial.report)).toBe(0);
    expect(await runsLogged(project)).toEqual(everything);

    await fs.rm(path.join(project, 'runs.log'));
    const again = await buildInProcess(project);
    expect(again.code, problemsOf(again.report)).toBe(0);
    expect(await runsLogged(project)).toEqual([]);
    expect(again.report.unchanged).toBe(true);
    expect(again.report.tools.map((tool) => tool.cached)).toEqual([3, 3]);

    const forced = await buildInProcess(project, { force: true });
    expect(forced.code, problemsOf(forced.report)).toBe(0);
    expect(await runsLogged(project)).toEqual(everything);
    expect(forced.report.tools.map((tool) => tool.cached)).toEqual([0, 0]);

    await fs.rm(path.join(project, 'runs.log'));
    await fs.appendFile(path.join(project, 'tools', 'second'), '# edited\n');
    const edited = await buildInProcess(project);
    expect(edited.code, problemsOf(edited.report)).toBe(0);
    expect(await runsLogged(project)).toEqual(['second 1', 'second 1', 'second 2', 'second 3']);
    expect(edited.report.tools.map((tool) => [tool.name, tool.cached])).toEqual([
      ['first', 3],
      ['second', 0],
    ]);
  });

  it('reruns a tool when the configuration that reaches it changes', async () => {
    const project = await makeProject({
      tools: { echo: 'echo-value', counted: 'count-runs' },
      config: { tools: { echo: { values: { value: ['a'] } } } },
    });
    expect((await buildInProcess(project)).code).toBe(0);
    await fs.writeFile(
      path.join(project, 'staticmcp.json'),
      JSON.stringify({ tools: { echo: { values: { value: ['a', 'b'] } } } }),
    );
    await fs.rm(path.join(project, 'runs.log'));
    const { report } = await buildInProcess(project);
    expect(await runsLogged(project)).toEqual([]);
    expect(toolReport(report, 'echo').precomputed).toBe(2);
    expect(await readJson(path.join(project, 'dist/tools/echo/b.json'))).toMatchObject({ content: [{ text: 'b\n' }] });
  });
});

describe('what is not precomputed', () => {
  it('serves a tool live, running nothing, when its argument sets exceed the limit, and says why', async () => {
    const project = await makeProject({
      tools: { 'count-runs': 'count-runs', ok: 'ok' },
      config: { limits: { maxCallsPerTool: 2 } },
    });
    const { code, report } = await buildInProcess(project);
    expect(code).toBe(0);
    expect(toolReport(report, 'count-runs')).toMatchObject({
      precomputed: 0,
      live: true,
      liveReason:
        '3 argument sets exceed the limit of 2 (raise limits.maxCallsPerTool in staticmcp.json, or shorten value lists)',
    });
    expect(await exists(path.join(project, 'runs.log'))).toBe(false);
    // Its line in the summary the command prints (describeReportBody, from the same report).
    expect(describeReportBody(report).join('\n')).toContain(
      '✓ count-runs (count-runs): 0 precomputed, live-only: 3 argument sets exceed the limit of 2',
    );
  });

  it('never runs stateful or impure scripts at build time', async () => {
    const project = await makeProject({
      tools: { stateful: 'count-runs', impure: 'count-runs', writer: 'count-runs' },
      files: {
        'tools/stateful.meta.json': JSON.stringify({ state: true }),
        'tools/impure.meta.json': JSON.stringify({ precompute: false }),
        'tools/writer.meta.json': JSON.stringify({ annotations: { readOnlyHint: false } }),
      },
    });
    const { code, report } = await buildInProcess(project);
    expect(code).toBe(0);
    expect(await exists(path.join(project, 'runs.log'))).toBe(false);
    expect(Object.fromEntries(report.tools.map((tool) => [tool.name, tool.liveReason]))).toEqual({
      impure: 'its metadata says "precompute": false',
      stateful: 'it is stateful (state: true), so it is never run at build time',
      writer: 'its annotations do not say readOnlyHint: true',
    });
  });
});

describe('the report and the command line', () => {
  // Run with a relative TMPDIR, which the launchers (running in the project) would resolve
  // elsewhere: every script runs all the same (this build's process is the one that shows it).
  it('prints a machine-readable report with --json, and nothing else on stdout; the content hash follows the README; scripts run with a relative TMPDIR', async () => {
    const project = await makeProject({
      tools: {
        divide: 'divide',
        'killed-by-signal': 'killed-by-signal',
        'help-not-json': 'help-not-json',
        counter: 'count-runs',
      },
      files: { 'resources/a.md': '# A\n', 'tools/counter.meta.json': JSON.stringify({ state: true }) },
    });
    const parent = await temporaryFolder('staticmcp-relative-tmp-');
    await fs.mkdir(path.join(parent, 'tmp'));
    const { code, stdout, stderr } = await runCli(['build', project, '--json'], {
      cwd: parent,
      env: { TMPDIR: 'tmp' },
    });
    const report = JSON.parse(stdout) as BuildReportJson;
    expect(code).toBe(1);
    expect(stderr).toBe('');
    expect(report).toEqual({
      ok: false,
      outDir: path.join(project, 'dist'),
      unchanged: false,
      tools: [
        expect.objectContaining({
          name: 'counter',
          script: 'counter',
          precomputed: 0,
          live: true,
          liveReason: expect.stringContaining('stateful'),
          failures: [],
        }),
        expect.objectContaining({
          name: 'divide',
          script: 'divide',
          precomputed: 3,
          errorResults: 1,
          cached: 0,
          scriptMs: expect.any(Number),
          live: true,
          failures: [],
          warnings: [],
          logLines: [],
        }),
        expect.objectContaining({
          name: 'killed-by-signal',
          precomputed: 0,
          failures: [{ arguments: {}, message: 'killed-by-signal was killed by SIGKILL', stderrHead: 'about to die' }],
        }),
      ],
      failures: [{ path: 'tools/help-not-json', message: expect.stringContaining('is not JSON') }],
      warnings: [],
      resources: 2,
      // a.md, read and parsed once; a rebuild that finds its bytes unchanged reuses what it gave.
      documents: { parsed: 1, reused: 0 },
      searchIndex: 'written',
      // mcp.json, index.html, 404.html, _headers, .nojekyll, .assetsignore, _routes.json, _worker.js,
      // completions.json, a_md and its raw-name copy a.md, 3 divide answers, and the search index of
      // a.md (a pack and an index each for its terms and its titles with their excerpt sources, and
      // a documents index: a.md's text fits its excerpt source, which is its fetch record too: on by
      // default), and llms.txt and llms-full.txt made from the same documents.
      files: 21,
      contentHash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      durationMs: expect.any(Number),
    });
    const manifest = await readJson<{ staticmcp: { contentHash: string } }>(path.join(project, 'dist', 'mcp.json'));
    expect(manifest.staticmcp.contentHash).toBe(report.contentHash);
    // The README's rule, recomputed from the files: sha256 over `path \0 <sha256 hex of the content> \0`
    // in path order, for every file but mcp.json, the worker, the search index and the llms files.
    const tree = await readTree(path.join(project, 'dist'));
    const rule = createHash('sha256');
    const unhashed = new Set(['mcp.json', '_worker.js', 'llms.txt', 'llms-full.txt']);
    for (const file of [...tree.keys()]
      .filter((name) => !unhashed.has(name) && !name.startsWith('packs/search.index/'))
      .sort((left, right) => Buffer.compare(Buffer.from(left), Buffer.from(right))))
      rule.update(`${file}\0${createHash('sha256').update(tree.get(file)!).digest('hex')}\0`);
    expect(report.contentHash).toBe(`sha256:${rule.digest('hex')}`);
    expect(textOf(await readJson(path.join(project, 'dist', 'tools', 'divide', '6', '2.json')))).toBe('3\n');
    expect(await listLeftovers(path.join(parent, 'tmp'))).toEqual([]);
  });

  it('builds a bare folder of scripts with --tools, counting every call in its plan line and naming each tool’s script time', async () => {
    const folder = await temporaryFolder();
    await copyFixtureScript('ok', path.join(folder, 'scripts', 'ok'));
    await copyFixtureScript('divide', path.join(folder, 'scripts', 'math', 'divide'));
    await fs.writeFile(path.join(folder, 'scripts', 'README.md'), 'not a script\n');
    const { code, stderr } = await runCli(['build', '--tools', './scripts'], { cwd: folder });
    expect(code).toBe(0);
    // Four argument sets (ok's one, divide's three): the sample the determinism probe runs first
    // is one of them, not extra.
    expect(stderr).toContain('staticmcp: 4 call(s) to run\n');
    expect(stderr).toContain('staticmcp: 4/4 calls done\n');
    expect(stderr).toMatch(/✓ math_divide \(math\/divide\): 3 precomputed, \d+(?: ms|\.\d s) of script time, /);
    const manifest = await readJson<{
      capabilities: { tools: { name: string }[] };
      staticmcp: { tools: Record<string, { script: string }> };
    }>(path.join(folder, 'dist', 'mcp.json'));
    expect(manifest.capabilities.tools.map((tool) => tool.name)).toEqual(['math_divide', 'ok']);
    expect(manifest.staticmcp.tools.math_divide?.script).toBe('scripts/math/divide');
    expect(await readJson(path.join(folder, 'dist', 'tools', 'ok.json'))).toMatchObject({
      content: [{ text: 'ok\n' }],
    });
    // An unchanged project runs nothing on its next build (the same build in-process: the replay is
    // the command's buildOrReplay), so its summary (describeReportBody) names no script time.
    const again = await buildInProcess(folder, { toolsDir: path.join(folder, 'scripts') });
    expect(again.code).toBe(0);
    expect(again.report.unchanged).toBe(true);
    expect(describeReportBody(again.report).join('\n')).toMatch(/✓ math_divide \(math\/divide\): 3 precomputed/);
    expect(describeReportBody(again.report).join('\n')).not.toContain('script time');
  });
});

// staticmcp.json through its one reader: an absolute "out" is the same folder for build, serve
// and check; a `tools` key that names no tool is a warning at build (with the closest name) and a
// problem under check; a broken file does not stop a running server; the published schema is the
// one the commands validate with, and carries their defaults (test/cli/init.test.ts shows init's
// staticmcp.json points editors at it, on the starter that file makes). Build and check decide in-process
// (the build command's buildOrReplay, check's checkSource) where only their reports are read;
// what the commands print, and serve, run as processes.
import { beforeAll, describe, expect, it } from 'vitest';
import { promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { checkSource } from '../../src/cli/commands/check.js';
import { runCli } from '../helpers/cli.js';
import { exists } from '../helpers/files.js';
import { runYargsInProcess } from '../helpers/in-process-cli.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { makeProject } from '../helpers/projects.js';
import { RawBridge } from '../helpers/raw-bridge.js';
import { buildInProcess } from '../helpers/in-process-build.js';
import { temporaryFolder } from '../helpers/temp-folders.js';
import { defaultLimits, readConfig } from '../../src/project/config.js';
import { DEFAULT_MAX_CALL_FILES } from '../../src/builder/host-limits.js';
import { DEFAULT_CACHE_TTL_SECONDS, MAX_CACHE_TTL_SECONDS } from '../../src/core/tree/manifest.js';
import { firstText } from '../helpers/results.js';

function textOf(answer: { result?: unknown }): string {
  return firstText(answer.result);
}

describe('an absolute "out"', () => {
  it('is used as it is by build, serve and check', async () => {
    const out = path.join(await temporaryFolder(), 'site');
    const project = await makeProject({ tools: { ok: 'ok' }, config: { out } });
    const build = await buildInProcess(project);
    expect(build.code, build.error?.message).toBe(0);
    expect(build.report.outDir).toBe(out);
    expect(await exists(path.join(out, 'mcp.json'))).toBe(true);
    // Not re-rooted under the project (`<project>/tmp/…/site`), which is where it used to land.
    expect(await fs.readdir(project)).not.toContain(out.split(path.sep)[1]);

    const bridge = new RawBridge([project]);
    await bridge.initialize();
    expect(textOf(await bridge.request('tools/call', { name: 'ok', arguments: {} }))).toBe('ok\n');
    expect(await bridge.close()).toBe(0);

    // check, in-process from the repository root as the CLI would run there: the tree it names.
    expect(process.cwd()).toBe(REPO_ROOT);
    const check = await checkSource(project);
    expect(check.report.problems).toEqual([]);
    expect(check.name).toBe(path.relative(REPO_ROOT, out));
  });
});

describe('a tools key that names no tool', () => {
  let project: string;
  beforeAll(async () => {
    project = await makeProject({
      tools: { 'echo-value': 'echo-value' },
      config: { tools: { 'echo-valeu': { values: { value: ['a'] } }, zzzzzzzzzz: { live: false } } },
    });
  });

  it('is a warning at build naming the closest tool, and the rest builds', async () => {
    const { code, report } = await buildInProcess(project);
    expect(code).toBe(0);
    expect(report.warnings).toContainEqual({
      path: 'staticmcp.json',
      message: expect.stringMatching(/^tools\.echo-valeu names no tool, .*did you mean "echo-value"\?/),
    });
    // Nothing close: the tools are listed instead of a guess.
    expect(report.warnings).toContainEqual({
      path: 'staticmcp.json',
      message: expect.stringMatching(/^tools\.zzzzzzzzzz names no tool, .*the tools are echo-value/),
    });
    const human = await runCli(['build', project, '--force']);
    expect(human.stderr).toContain('warning: staticmcp.json tools.echo-valeu names no tool');
  });

  it('is a problem under check given the project, not given its tree', async () => {
    await buildInProcess(project);
    const given = await runCli(['check', project, '--json']);
    expect(given.code).toBe(1);
    const report = JSON.parse(given.stdout) as { ok: boolean; problems: { path: string; message: string }[] };
    expect(report.ok).toBe(false);
    expect(report.problems.map((problem) => problem.path)).toEqual([
      expect.stringMatching(/staticmcp\.json#\/tools\/echo-valeu$/),
      expect.stringMatching(/staticmcp\.json#\/tools\/zzzzzzzzzz$/),
    ]);
    expect(given.stderr).toMatch(/did you mean "echo-value"\?.*\n\s+what to do: rename the key/);
    const tree = await checkSource(path.join(project, 'dist'));
    expect(tree.report.problems).toEqual([]);
    expect(tree.report.ok).toBe(true);
  });
});

describe('a broken staticmcp.json', () => {
  it('is refused by check with the key and what to do, and does not stop serve', async () => {
    const project = await makeProject({ tools: { ok: 'ok' } });
    expect((await buildInProcess(project)).code).toBe(0);
    await fs.writeFile(path.join(project, 'staticmcp.json'), JSON.stringify({ limits: { timeoutMs: 'soon' } }));

    const check = await runCli(['check', project]);
    expect(check.code).toBe(1);
    expect(check.stderr).toMatch(/CONFIG_INVALID.*staticmcp\.json\.limits\.timeoutMs must be integer/);
    expect(check.stderr).toContain('what to do:');

    const bridge = new RawBridge([project]);
    await bridge.initialize();
    expect(textOf(await bridge.request('tools/call', { name: 'ok', arguments: {} }))).toBe('ok\n');
    await bridge.close();
    expect(bridge.stderr).toMatch(/staticmcp\.json is invalid: .*timeoutMs must be integer; looking for the tree/);
  });
});

describe('limits.maxCallFiles and --max-call-files', () => {
  const budgetWarnings = (report: { warnings: { message: string }[] }) =>
    report.warnings.map((warning) => warning.message).filter((message) => message.includes('over a budget of'));

  it('packs a tree past its call-file budget and says so, naming the setting; the flag wins, 0 never packs', async () => {
    const project = await makeProject({
      tools: { echo: 'echo-value' },
      config: { limits: { maxCallFiles: 2 }, tools: { echo: { values: { value: ['a', 'b', 'c'] } } } },
    });
    const over = await buildInProcess(project);
    expect(over.code, over.error?.message).toBe(0);
    expect(budgetWarnings(over.report)).toEqual([
      expect.stringMatching(
        /^this tree was packed: 3 call files over a budget of 2 \(limits\.maxCallFiles in staticmcp\.json, or --max-call-files\); the calls of tool echo went into 2 pack and index files under packs\//,
      ),
    ]);
    // Packed (test/build/packed-build.test.ts holds the layout to account); 0 gives one file per call again.
    expect(await exists(path.join(project, 'dist/tools/echo/c.json'))).toBe(false);

    expect(budgetWarnings((await buildInProcess(project, { maxCallFiles: 3 })).report)).toEqual([]);
    expect(budgetWarnings((await buildInProcess(project, { maxCallFiles: 0 })).report)).toEqual([]);
    expect(await exists(path.join(project, 'dist/tools/echo/c.json'))).toBe(true);
    expect(budgetWarnings((await buildInProcess(project, { maxCallFiles: 1 })).report)).toEqual([
      expect.stringContaining('3 call files over a budget of 1'),
    ]);
  });

  it('refuses a budget that is not a whole number of files', async () => {
    const project = await makeProject({ tools: { ok: 'ok' } });
    // In-process through yargs, which the CLI hands this line ("-1" reads as a flag to its fast
    // parser): test/cli/command-line.test.ts shows the process prints yargs' refusals the same.
    const flag = await runYargsInProcess(['build', project, '--max-call-files', '-1']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('--max-call-files -1 is not a whole number of files (0 for never)');
    await fs.writeFile(path.join(project, 'staticmcp.json'), JSON.stringify({ limits: { maxCallFiles: 1.5 } }));
    await expect(readConfig(project)).rejects.toThrow(/limits\.maxCallFiles must be integer/);
  });
});

describe('staticmcp.schema.json', () => {
  const schema = JSON.parse(readFileSync(path.join(REPO_ROOT, 'staticmcp.schema.json'), 'utf8'));

  it('holds the defaults the commands use, and ships in the package', () => {
    const limits = schema.properties.limits.properties as Record<string, { default?: unknown }>;
    const { liveConcurrency, ...fixed } = defaultLimits();
    expect(
      Object.fromEntries(
        Object.entries(limits)
          .filter(([, value]) => 'default' in value)
          .map(([key, value]) => [key, value.default]),
      ),
    ).toEqual(fixed);
    expect(liveConcurrency).toBeGreaterThanOrEqual(8);
    expect(fixed.maxCacheBytes).toBe(512 * 1024 * 1024);
    // Cloudflare's free plan less the margin host-limits.ts gives the files besides the calls.
    expect(fixed.maxCallFiles).toBe(DEFAULT_MAX_CALL_FILES);
    expect(schema.properties.cache.properties.ttlSeconds).toMatchObject({
      default: DEFAULT_CACHE_TTL_SECONDS,
      maximum: MAX_CACHE_TTL_SECONDS,
    });
    const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
    expect(pkg.files).toContain('staticmcp.schema.json');
  });

  it('refuses what the commands refuse, naming the key', async () => {
    const project = await makeProject({ config: { limits: { maxCacheBytes: 1.5 }, outt: 'x' } });
    await expect(readConfig(project)).rejects.toThrow(
      /staticmcp\.json is invalid: .*unknown field "outt".*limits\.maxCacheBytes must be integer/,
    );
  });

  it('names the closest key the schema accepts for a mistyped one, at any depth', async () => {
    const project = await makeProject({
      config: { outt: 'x', zzzzzzzz: 1, http: { allowedOrigin: [] }, tools: { hello: { valuse: {} } } },
    });
    const refusal = readConfig(project);
    await expect(refusal).rejects.toThrow('unknown field "outt" (did you mean "out"?)');
    await expect(refusal).rejects.toThrow(
      'staticmcp.json.http: unknown field "allowedOrigin" (did you mean "allowedOrigins"?)',
    );
    await expect(refusal).rejects.toThrow(
      'staticmcp.json.tools.hello: unknown field "valuse" (did you mean "values"?)',
    );
    // Nothing close: no guess.
    await expect(refusal).rejects.toThrow(/unknown field "zzzzzzzz"(;|$)/);
  });
});

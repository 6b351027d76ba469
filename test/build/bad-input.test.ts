// "Bad input it must survive" (issue 2): one project holding every kind of broken script next to
// a good one, built once in-process by the build command's decision (test/helpers/in-process-build.ts)
// and once by the real CLI for what a human reads. Each broken script gets a message naming it and saying
// what went wrong; the good tools are still built; the exit code is 1; nothing outside the
// output tree changes.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, runCli, toolReport } from '../helpers/cli.js';
import { buildInProcess, type InProcessBuild } from '../helpers/in-process-build.js';
import { fingerprint, readJson } from '../helpers/files.js';
import { makeProject } from '../helpers/projects.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

describe('a project full of broken scripts', () => {
  let project: string;
  let out: string;
  let result: InProcessBuild;
  let projectBefore: Record<string, string>;
  let human: CliResult;

  beforeAll(async () => {
    project = await makeProject({
      tools: {
        ok: 'ok',
        'help-not-json': 'help-not-json',
        'help-hangs': 'help-hangs',
        'help-exit-1': 'help-exit-1',
        'help-log-lines': 'help-log-lines',
        'help-crlf': 'help-crlf',
        'help-unknown-type': 'help-unknown-type',
        'help-empty-enum': 'help-empty-enum',
        'huge-output': 'huge-output',
        'invalid-utf8': 'invalid-utf8',
        'killed-by-signal': 'killed-by-signal',
        'ignores-sigterm': 'ignores-sigterm',
        divide: 'divide',
      },
      config: {
        limits: { helpTimeoutMs: 1000 },
        // huge-output never ends by itself: without the output cap it would end at this timeout.
        tools: { 'ignores-sigterm': { timeoutSecs: 0.5 }, 'huge-output': { timeoutSecs: 5 } },
      },
    });
    out = path.join(await temporaryFolder(), 'tree');
    projectBefore = await fingerprint(project);
    result = await buildInProcess(project, { outDir: out });
    // The same build for humans: everything comes from the cache now, the failures are re-run.
    human = await runCli(['build', project, '--out', out]);
  });

  function failureFor(script: string): string {
    const failure = result.report.failures.find((entry) => entry.path === `tools/${script}`);
    if (!failure)
      throw new Error(`no failure reported for tools/${script}: ${JSON.stringify(result.report.failures, null, 2)}`);
    return failure.message;
  }

  it('exits 1 and still writes the tree for every good tool', async () => {
    expect(result.code).toBe(1);
    expect(result.report.ok).toBe(false);
    expect(await readJson(path.join(out, 'tools', 'ok.json'))).toMatchObject({
      content: [{ type: 'text', text: 'ok\n' }],
    });
    const manifest = await readJson<{ capabilities: { tools: { name: string }[] } }>(path.join(out, 'mcp.json'));
    expect(manifest.capabilities.tools.map((tool) => tool.name)).toEqual([
      'divide',
      'help-crlf',
      'help-log-lines',
      'huge-output',
      'ignores-sigterm',
      'invalid-utf8',
      'killed-by-signal',
      'ok',
    ]);
  });

  it('changes nothing in the project except its build cache', async () => {
    const after = await fingerprint(project);
    for (const file of Object.keys(after)) if (file.startsWith('.staticmcp/')) delete after[file];
    expect(after).toEqual(projectBefore);
  });

  it('skips a script whose --help prints text that is not JSON, quoting what it printed', () => {
    expect(failureFor('help-not-json')).toMatch(/--help stdout \(the metadata\) is not JSON.*usage: help-not-json/);
  });

  it('skips a script whose --help hangs, after the help timeout', () => {
    expect(failureFor('help-hangs')).toMatch(/help-hangs --help timed out after 1000 ms and was killed/);
  });

  it('skips a script whose --help exits 1, with the first lines of its stderr', () => {
    expect(failureFor('help-exit-1')).toMatch(
      /help-exit-1 --help failed with exit code 1.*config file \/etc\/help-exit-1\.conf is missing/,
    );
  });

  it('accepts --help log lines mixed into the options JSON, with a warning', async () => {
    const tool = toolReport(result.report, 'help-log-lines');
    expect(tool.warnings).toContainEqual(expect.stringMatching(/mixes 2 log line\(s\) with the options JSON/));
    expect(tool.precomputed).toBe(2);
    expect(await readJson(path.join(out, 'tools', 'help-log-lines', 'b.json'))).toMatchObject({
      content: [{ text: 'word=b\n' }],
    });
  });

  it('accepts CRLF line endings and an integer literal for a float default, with a warning for CRLF', async () => {
    const tool = toolReport(result.report, 'help-crlf');
    expect(tool.warnings).toContainEqual(expect.stringMatching(/stdout uses CRLF/));
    expect(tool.warnings).toContainEqual(expect.stringMatching(/stderr uses CRLF/));
    const manifest = await readJson<{ capabilities: { tools: { name: string; inputSchema: unknown }[] } }>(
      path.join(out, 'mcp.json'),
    );
    expect(manifest.capabilities.tools.find((entry) => entry.name === 'help-crlf')!.inputSchema).toEqual({
      type: 'object',
      properties: { ratio: { type: 'number', description: 'A ratio', default: 1 } },
    });
    expect(await readJson(path.join(out, 'tools', 'help-crlf', '1.json'))).toMatchObject({
      content: [{ text: 'ratio=1\n' }],
    });
  });

  it('names the carriage return in a script saved with CRLF line endings, which no system can start', async () => {
    const project = await makeProject({});
    const script = path.join(project, 'tools', 'windows');
    await fs.writeFile(script, '#!/bin/sh\r\nif [ "$1" = "--help" ]; then echo "{}"; exit 0; fi\r\necho hi\r\n', {
      mode: 0o755,
    });
    const { code, report } = await buildInProcess(project);
    expect(code).toBe(1);
    expect(report.failures).toEqual([
      {
        path: 'tools/windows',
        message: expect.stringContaining(
          `its #! line ends with a carriage return (the file has Windows CRLF line endings), so the system looks for an interpreter whose name ends in \\r; save it with LF line endings (your editor's line-ending setting, or: sed -i 's/\\r$//' ${script})`,
        ),
      },
    ]);
  });

  it('skips a script with an unknown value_type, naming the option and the type', () => {
    expect(failureFor('help-unknown-type')).toMatch(/option "when": unknown value_type "date"/);
  });

  it('skips a script with an empty enum, naming the option', () => {
    expect(failureFor('help-empty-enum')).toMatch(/option "choice": the enum is empty/);
  });

  it('stops a script printing 50 MB (then waiting) at the output cap: a failed run, no file', async () => {
    const tool = toolReport(result.report, 'huge-output');
    expect(tool.failures).toEqual([
      expect.objectContaining({
        arguments: {},
        message: 'huge-output printed more than 10485760 bytes and was killed',
      }),
    ]);
    await expect(fs.access(path.join(out, 'tools', 'huge-output.json'))).rejects.toThrow();
  });

  it('keeps output that is not valid UTF-8 as text with replacement characters, and warns', async () => {
    const tool = toolReport(result.report, 'invalid-utf8');
    expect(tool.warnings).toContainEqual(
      expect.stringMatching(/not valid UTF-8; invalid bytes were replaced with U\+FFFD/),
    );
    expect(await readJson(path.join(out, 'tools', 'invalid-utf8.json'))).toMatchObject({
      content: [{ text: 'caf\uFFFD \uFFFD\uFFFD ok\n' }],
    });
  });

  it('reports a script killed by a signal as a failed run with its stderr, and writes no file', async () => {
    const tool = toolReport(result.report, 'killed-by-signal');
    expect(tool.failures).toEqual([
      { arguments: {}, message: 'killed-by-signal was killed by SIGKILL', stderrHead: 'about to die' },
    ]);
    await expect(fs.access(path.join(out, 'tools', 'killed-by-signal.json'))).rejects.toThrow();
  });

  it('kills a script that ignores SIGTERM when its timeout passes: a failed run for that argument set', () => {
    const tool = toolReport(result.report, 'ignores-sigterm');
    expect(tool.failures).toEqual([
      { arguments: {}, message: 'ignores-sigterm timed out after 500 ms and was killed', stderrHead: 'still here' },
    ]);
    expect(tool.live).toBe(true);
  });

  it('precomputes a non-zero exit ("Division by zero", exit 2) as an isError answer, not a failure', async () => {
    const tool = toolReport(result.report, 'divide');
    expect(tool.failures).toEqual([]);
    expect(tool.precomputed).toBe(3);
    expect(tool.errorResults).toBe(1);
    expect(await readJson(path.join(out, 'tools', 'divide', '6', '0.json'))).toEqual({
      content: [{ type: 'text', text: 'Division by zero' }],
      isError: true,
      _meta: { 'staticmcp/arguments': { a: 6, b: 0 } },
    });
    expect(await readJson(path.join(out, 'tools', 'divide', '6', '2.json'))).toMatchObject({
      content: [{ text: '3\n' }],
    });
  });

  it('tells a human which scripts failed and why, on stderr, with exit 1', () => {
    expect(human.code).toBe(1);
    expect(human.stdout).toBe('');
    expect(human.stderr).toContain('✗ tools/help-not-json: --help stdout (the metadata) is not JSON');
    expect(human.stderr).toContain('✗ killed-by-signal (killed-by-signal): 0 precomputed');
    expect(human.stderr).toContain('failed {}: huge-output printed more than 10485760 bytes and was killed');
    expect(human.stderr).toContain('✓ ok (ok): 1 precomputed, 1 from cache');
    expect(human.stderr).toMatch(
      /build finished with 5 failed item\(s\) and 3 failed run\(s\); the tree holds everything else/,
    );
  });
});

describe('files that cannot be used', () => {
  it('skips symlink loops in tools/ with a warning and builds the rest (exit 0)', async () => {
    const project = await makeProject({ tools: { ok: 'ok' } });
    await fs.symlink('.', path.join(project, 'tools', 'self'));
    await fs.symlink('loop-b', path.join(project, 'tools', 'loop-a'));
    await fs.symlink('loop-a', path.join(project, 'tools', 'loop-b'));
    const { code, report } = await buildInProcess(project);
    expect(code).toBe(0);
    expect(report.warnings).toEqual([
      { path: 'tools/loop-a', message: 'is a symlink loop; skipped' },
      { path: 'tools/loop-b', message: 'is a symlink loop; skipped' },
      { path: 'tools/self', message: 'is a symlink back into a folder already scanned (a loop); skipped' },
    ]);
    expect(report.tools.map((tool) => tool.name)).toEqual(['ok']);
  });

  // "An unreadable file" made real even for root (chmod 000 does not stop root from reading):
  // named pipes. Reading one blocks until a writer appears, so a build that simply read them would
  // hang forever; it must report them instead.
  it('reports named pipes where files are expected (a script, sidecars, a resource) without hanging', async () => {
    const project = await makeProject({
      tools: { ok: 'ok', 'with-sidecar': 'ok' },
      files: { 'resources/readme.md': '# hi\n', 'prompts/ask.md': 'Ask {{who}}\n' },
    });
    const { execFileSync } = await import('node:child_process');
    execFileSync('mkfifo', [
      path.join(project, 'tools', 'pipe'),
      path.join(project, 'tools', 'with-sidecar.meta.json'),
      path.join(project, 'resources', 'pipe.txt'),
      path.join(project, 'resources', 'readme.md.meta.json'),
      path.join(project, 'prompts', 'ask.md.meta.json'),
    ]);
    const { code, report } = await buildInProcess(project);
    expect(code).toBe(1);
    expect(report.warnings).toContainEqual({
      path: 'tools/pipe',
      message: 'is not a regular file (a pipe, socket or device); skipped',
    });
    expect(report.failures).toEqual([
      {
        path: 'tools/with-sidecar',
        message: expect.stringMatching(/^with-sidecar\.meta\.json cannot be read \(not a regular file/),
      },
      { path: 'resources/pipe.txt', message: 'is not a regular file (a pipe, socket or device); skipped' },
      {
        path: 'resources/readme.md',
        message: expect.stringMatching(/^readme\.md\.meta\.json cannot be read \(not a regular file/),
      },
      {
        path: 'prompts/ask.md',
        message: expect.stringMatching(/^ask\.md\.meta\.json cannot be read \(not a regular file/),
      },
    ]);
    expect(report.tools.map((tool) => tool.name)).toEqual(['ok']);
  });

  it('reports a staticmcp.json or server.d/register.json that is a named pipe instead of hanging (exit 1)', async () => {
    const { execFileSync } = await import('node:child_process');
    const config = await makeProject({ tools: { ok: 'ok' } });
    execFileSync('mkfifo', [path.join(config, 'staticmcp.json')]);
    const register = await makeProject({ tools: { ok: 'ok' }, files: { 'server.d/.keep': '' } });
    execFileSync('mkfifo', [path.join(register, 'server.d', 'register.json')]);
    // The CLI for the first (its exit code and error line); the build's own decision in-process for
    // the second, with the exit code the CLI gives it.
    const [configRun, registerRun] = await Promise.all([runCli(['build', config]), buildInProcess(register)]);
    expect(configRun.code).toBe(1);
    expect(configRun.stderr).toMatch(
      /error \[CONFIG_UNREADABLE\]: staticmcp\.json cannot be read \(not a regular file/,
    );
    expect(registerRun.code).toBe(1);
    expect(registerRun.error?.message).toMatch(/register\.json.*cannot be read \(not a regular file/);
  });

  // Only without root (root reads anything); checked by hand here with setpriv as nobody. An
  // execute-only file is reported but, like a symlink loop, does not fail the build (exit 0).
  it.skipIf(process.getuid?.() === 0)(
    'reports a script without read permission (non-root only: root reads anything)',
    async () => {
      const project = await makeProject({ tools: { ok: 'ok', secret: 'ok' } });
      await fs.chmod(path.join(project, 'tools', 'secret'), 0o111);
      const { code, report } = await buildInProcess(project);
      expect(code).toBe(0);
      expect(report.warnings).toContainEqual({
        path: 'tools/secret',
        message: 'is executable but cannot be read; run chmod +r on it',
      });
      expect(report.tools.map((tool) => tool.name)).toEqual(['ok']);
    },
  );

  it('refuses two scripts that map to one tool name, naming both, and builds the others', async () => {
    const project = await makeProject({ tools: { ok: 'ok', 'a-b': 'ok', 'a-b.sh': 'ok', 'x/y': 'ok', x_y: 'ok' } });
    const { code, report } = await buildInProcess(project);
    expect(code).toBe(1);
    expect(report.failures).toEqual([
      {
        path: 'tools/a-b, tools/a-b.sh',
        message: expect.stringContaining('these scripts all map to the tool name "a-b"'),
      },
      {
        path: 'tools/x/y, tools/x_y',
        message: expect.stringContaining('these scripts all map to the tool name "x_y"'),
      },
    ]);
    expect(report.tools.map((tool) => tool.name)).toEqual(['ok']);
  });

  it('keeps the first of two argument values that encode to one file name and reports the other', async () => {
    const project = await makeProject({
      tools: { 'echo-value': 'echo-value' },
      config: { tools: { 'echo-value': { values: { value: ['a b', 'A B', 'a_b', 'plain'] } } } },
    });
    const out = path.join(project, 'dist');
    const { code, report } = await buildInProcess(project);
    expect(code).toBe(0);
    const tool = toolReport(report, 'echo-value');
    expect(tool.precomputed).toBe(2);
    expect(tool.warnings).toEqual([
      'arguments {"value":"A B"} and {"value":"a b"} both encode to tools/echo-value/a_b.json; the first keeps the file, the other is served live',
      'arguments {"value":"a_b"} and {"value":"a b"} both encode to tools/echo-value/a_b.json; the first keeps the file, the other is served live',
    ]);
    // The file says which arguments it answers, so the bridge can tell "A B" from "a b".
    expect(await readJson(path.join(out, 'tools', 'echo-value', 'a_b.json'))).toEqual({
      content: [{ type: 'text', text: 'a b\n' }],
      _meta: { 'staticmcp/arguments': { value: 'a b' } },
    });
  });
});

describe('--out that would damage something', () => {
  async function refuses(
    args: (project: string) => string[],
    expected: RegExp,
    setup?: (project: string) => Promise<void>,
    inProject = false,
    /** Through the CLI (its exit code, stderr and stdout) rather than the build command's decision in-process. */
    viaCli = inProject,
  ): Promise<void> {
    // Alone in its own parent folder, so "nothing beside the project changed" is checkable.
    const parent = await temporaryFolder();
    const project = await makeProject({ tools: { ok: 'ok' }, files: { 'resources/doc.md': '# doc\n' } }, parent);
    await setup?.(project);
    const before = await fingerprint(project);
    const siblingsBefore = (await fs.readdir(parent)).sort();
    if (viaCli) {
      const { code, stdout, stderr } = await runCli(['build', ...args(project)], inProject ? { cwd: project } : {});
      expect(stderr).toMatch(expected);
      expect(stderr).toContain('what to do:');
      expect(code).toBe(2);
      expect(stdout).toBe('');
    } else {
      // The build's refusal in-process: what the CLI prints as `error [CODE]: message` and `what to do: hint`.
      const [, , out] = args(project);
      const { code, error } = await buildInProcess(project, { outDir: out });
      expect(`error [${error?.code}]: ${error?.message}`).toMatch(expected);
      expect(error?.hint).toEqual(expect.any(String));
      expect(code).toBe(2);
    }
    expect(await fingerprint(project)).toEqual(before);
    expect((await fs.readdir(parent)).sort()).toEqual(siblingsBefore);
  }

  it('refuses the project itself', async () => {
    await refuses(
      (project) => [project, '--out', project],
      /error \[OUT_CONTAINS_PROJECT\]: --out .* is the project folder/,
    );
  });

  it('refuses the project itself given as "."', async () => {
    await refuses(() => ['.', '--out', '.'], /OUT_CONTAINS_PROJECT/, undefined, true);
  });

  it('refuses a folder that contains the project', async () => {
    await refuses(
      (project) => [project, '--out', path.dirname(project)],
      /--out .* is a folder that contains the project folder/,
    );
  });

  it('refuses the tools folder and a folder inside resources/', async () => {
    await refuses((project) => [project, '--out', path.join(project, 'tools')], /--out .* is the tools folder/);
    await refuses(
      (project) => [project, '--out', path.join(project, 'resources', 'tree')],
      /OUT_INSIDE_INPUT.*inside the resources folder/,
    );
  });

  it('refuses the build cache and a folder inside it, which a deploy would publish', async () => {
    await refuses(
      (project) => [project, '--out', path.join(project, '.staticmcp')],
      /OUT_INSIDE_PRIVATE\]: --out .* is the build cache \(\.staticmcp\); a deployed tree would publish/,
    );
    await refuses(
      (project) => [project, '--out', path.join(project, '.staticmcp', 'site')],
      /OUT_INSIDE_PRIVATE\]: --out .* is inside the build cache/,
    );
  });

  it('refuses a folder inside prompts/', async () => {
    await refuses(
      (project) => [project, '--out', path.join(project, 'prompts', 'tree')],
      /OUT_INSIDE_INPUT.*inside the prompts folder/,
    );
  });

  it('refuses a non-empty folder that is not a previous tree, deleting nothing', async () => {
    await refuses(
      (project) => [project, '--out', path.join(project, 'notes')],
      /error \[OUT_NOT_A_TREE\]: --out .* is a non-empty folder that staticmcp did not write/,
      async (project) => {
        await fs.mkdir(path.join(project, 'notes'));
        await fs.writeFile(path.join(project, 'notes', 'keep.txt'), 'precious\n');
      },
    );
  });

  it('refuses a file', async () => {
    await refuses(
      (project) => [project, '--out', path.join(project, 'resources', 'doc.md')],
      /OUT_INSIDE_INPUT|OUT_NOT_A_FOLDER/,
    );
    await refuses(
      (project) => [project, '--out', path.join(project, 'file.txt')],
      /OUT_NOT_A_FOLDER/,
      (project) => fs.writeFile(path.join(project, 'file.txt'), 'x'),
    );
  });
});

describe('usage errors', () => {
  // An unknown flag and a bad --concurrency exit 2 through the CLI in test/cli/command-line.test.ts
  // (build --bogus; dev --concurrency 0, the same check of the same declared option).
  it('exits 2 for a project that does not exist and --tools that is no folder, creating nothing', async () => {
    const missing = path.join(await temporaryFolder(), 'missing');
    const [run, tools] = await Promise.all([
      runCli(['build', missing]),
      // The build's own refusal, in-process: the exit code the CLI gives it, and its code.
      buildInProcess(await makeProject({}), { toolsDir: missing }),
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/PROJECT_NOT_FOUND.*does not exist/);
    expect(tools.code).toBe(2);
    expect(tools.error?.code).toBe('TOOLS_NOT_FOUND');
    expect(await fs.readdir(path.dirname(missing))).toEqual([]);
  });
});

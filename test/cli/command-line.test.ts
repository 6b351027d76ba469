// The command line: each command's options are declared once (src/cli/commands/<name>.ts), so the
// fast parser and yargs hand a handler the same values; help texts are snapshots; usage errors
// exit 2 with what to do (yargs' output and the commands' refusals in-process, one of each through
// the CLI); every command and flag the CLI suggests exists; `serve` on a terminal says what it is
// waiting for, and the command line it prints starts a working server.
import { describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { runCli } from '../helpers/cli.js';
import { fingerprint } from '../helpers/files.js';
import { runRefusedInProcess, runYargsInProcess } from '../helpers/in-process-cli.js';
import { CLI, mainModulePath, REPO_ROOT } from '../helpers/paths.js';
import { makeProject } from '../helpers/projects.js';
import { temporaryFolder } from '../helpers/temp-folders.js';
import { RawBridge } from '../helpers/raw-bridge.js';
import { COMMAND_NAMES, loadAllCommands, loadCommand } from '../../src/cli/command-list.js';
import { type CommandSpec, readArguments } from '../../src/cli/command-spec.js';
import { parseFast } from '../../src/cli/parse-fast.js';
import { parseWithYargs } from '../../src/cli/parse-with-yargs.js';

/** What yargs hands the handler of `spec` for `argv` (the command runs nothing: it records). */
async function readWithYargs(spec: CommandSpec, argv: string[]): Promise<unknown> {
  let received: unknown;
  const recording: CommandSpec = {
    ...spec,
    run: async (args) => {
      received = args;
      return 0;
    },
  };
  expect(await parseWithYargs([spec.name, ...argv], [recording])).toBe(0);
  return received;
}

describe('one declaration, two parsers', () => {
  it.each([
    ['build', ['my-server', '--out', 'site', '--concurrency', '4', '--force', '--json']],
    ['build', ['--tools', './scripts']],
    ['build', ['--out=site', 'p', '--out', 'last']],
    [
      'serve',
      ['tree', '--http', '--port', '0', '--host', '::1', '--allowed-host', 'a.lan', '--allowed-host', 'b.lan:81'],
    ],
    ['serve', ['--live', 'project', '--live-concurrency', '3']],
    ['serve', ['https://example.com/', '--fetch-deadline-ms', '500']],
    ['dev', ['project', '--debounce-ms', '10', '--concurrency', '2']],
    ['check', ['tree', '--json']],
    ['init', []],
    ['init', ['site', '--shards', '3']],
    ['build', ['p', '--shard', '2/3', '--out', 'part-2']],
    ['merge', ['part-1', 'part-2', '--out', 'site', 'part-3', '--json']],
    ['merge', ['--out', 'site']],
  ])('%s %j: the same arguments either way', async (name, argv) => {
    const spec = (await loadCommand(name))!;
    const fast = parseFast(spec, argv);
    expect(fast).not.toBeNull();
    expect(readArguments(spec, fast!.positionals, fast!.found)).toEqual(await readWithYargs(spec, argv));
  });

  it.each([[['--help']], [['-h']], [['--version']], [['--bogus']], [['a', 'b']], [['--out']], [['--no-force']]])(
    'build %j is left to yargs, which explains help and errors',
    async (argv) => {
      expect(parseFast((await loadCommand('build'))!, argv)).toBeNull();
    },
  );
});

/**
 * Help and usage errors come from yargs, which the CLI loads for every line its fast parser
 * declines: the command's own help and refusal in-process (test/helpers/in-process-cli.ts), and
 * the first of each through the CLI as a process, which prints the same.
 */
const runHuman = (args: string[], asProcess: boolean) => (asProcess ? runCli(args) : runYargsInProcess(args));

describe('help texts', () => {
  it.each([[[]], ...COMMAND_NAMES.map((name) => [[name]])])('staticmcp %j --help', async (words) => {
    const { code, stdout, stderr } = await runHuman([...words, '--help'], words.length === 0);
    expect(code, stderr).toBe(0);
    expect(stdout).toMatchSnapshot();
  });
});

describe('usage errors', () => {
  it.each(COMMAND_NAMES)('%s --bogus: exit 2, the option named, and where the options are', async (name) => {
    const { code, stdout, stderr } = await runHuman([name, '--bogus'], name === COMMAND_NAMES[0]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      `staticmcp: Unknown argument: bogus\n  what to do: run staticmcp ${name} --help for its options\n`,
    );
  });

  it('no command, an unknown one, and --version', async () => {
    const none = await runYargsInProcess([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/Give a command: build, merge, index, serve, dev, check, init/);
    const unknown = await runYargsInProcess(['bild']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/Unknown argument: bild/);
    const version = await runCli(['--version']);
    expect(version.code).toBe(0);
    expect(version.stdout).toBe(`${JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).version}\n`);
    // main.js (the ES module entry, `node dist/cli/main.js`) prints the same, and hands other lines to the same command line.
    expect(execFileSync(process.execPath, [mainModulePath(), '--version'], { encoding: 'utf8' })).toBe(version.stdout);
    const viaMain = spawnSync(process.execPath, [mainModulePath(), 'bild'], { encoding: 'utf8' });
    expect(viaMain.status).toBe(2);
    expect(viaMain.stderr).toMatch(/Unknown argument: bild/);
  });

  it('a value a check refuses, and an option that needs a value', async () => {
    const concurrency = await runCli(['dev', '.', '--concurrency', '0']);
    expect(concurrency.code).toBe(2);
    expect(concurrency.stderr).toMatch(/^staticmcp dev: --concurrency must be a whole number of at least 1\n/);
    // Quoted as typed, by either parser (the fast parser's refusal in-process, as the CLI prints it).
    const port = await runRefusedInProcess(['serve', '--http', '--port', '0x10']);
    expect(port.code).toBe(2);
    expect(port.stderr).toMatch(/^staticmcp serve: --port 0x10 is not a port number\n/);
    // A negated flag is yargs' to read; help labels --port [number], yet the text still arrives as
    // typed. Yargs' lines in-process, as the usage errors above (the CLI hands them the same parser).
    const portThroughYargs = await runYargsInProcess(['serve', '--http', '--no-allow-remote-live', '--port', '0x10']);
    expect(portThroughYargs.code).toBe(2);
    expect(portThroughYargs.stderr).toMatch(/^staticmcp serve: --port 0x10 is not a port number\n/);
    const out = await runYargsInProcess(['build', '--out']);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/Not enough arguments following: out/);
    // A mistyped folder is named as missing, not as a project to build.
    const missing = await runCli(['serve', 'no-such-folder']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^staticmcp serve: no-such-folder does not exist \(or is not a folder\)\n/);
    expect(missing.stderr).not.toContain('build');
    const mergeWithoutOut = await runRefusedInProcess(['merge', 'part-1', 'part-2']);
    expect(mergeWithoutOut.code).toBe(2);
    expect(mergeWithoutOut.stderr).toMatch(/^staticmcp merge: merge needs --out, the folder of the merged tree\n/);
  });
});

/** A project of one tool built by the CLI into its dist/ (the bundle test's build), once for the tests that serve it. */
let builtByCli: Promise<string> | undefined;

function buildOneToolProject(): Promise<string> {
  builtByCli ??= (async () => {
    const project = await makeProject({ tools: { ok: 'ok' } });
    const viaBundle = await runCli(['build', project]);
    expect(viaBundle.code, viaBundle.stderr).toBe(0);
    return project;
  })();
  return builtByCli;
}

describe('the command-line bundle', () => {
  // An ordinary build line runs from dist/cli/staticmcp-build.cjs; an install without it (a damaged
  // or hand-copied one) runs the same line from the modules, with the same tree.
  it('builds the same tree with the bundle and, where it is missing, from the modules', async () => {
    const project = await buildOneToolProject();
    const dist = path.dirname(path.dirname(CLI));
    const bare = path.join(await temporaryFolder('staticmcp-bare-install-'), 'dist');
    cpSync(dist, bare, { recursive: true });
    rmSync(path.join(bare, 'cli', 'staticmcp-build.cjs'));
    for (const shared of ['package.json', 'node_modules', 'templates', 'schemas', 'staticmcp.schema.json'])
      symlinkSync(path.join(REPO_ROOT, shared), path.join(bare, '..', shared));
    const viaModules = spawnSync(
      process.execPath,
      [path.join(bare, 'cli', 'staticmcp.cjs'), 'build', project, '--out', path.join(project, 'modules')],
      { encoding: 'utf8' },
    );
    expect(viaModules.status, viaModules.stderr).toBe(0);
    expect(await fingerprint(path.join(project, 'modules'))).toEqual(await fingerprint(path.join(project, 'dist')));
  });
});

describe('what the CLI suggests exists', () => {
  /** Every string the CLI's own code may print, as source text. */
  function cliSources(folder = path.join(REPO_ROOT, 'src')): string[] {
    return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
      const file = path.join(folder, entry.name);
      if (entry.isDirectory()) return cliSources(file);
      return entry.name.endsWith('.ts') ? [readFileSync(file, 'utf8')] : [];
    });
  }

  it('every "staticmcp <command> … --flag" in src names a command and flags it declares', async () => {
    const commands = new Map((await loadAllCommands()).map((spec) => [spec.name, spec]));
    const suggestions = cliSources()
      .join('\n')
      .matchAll(/staticmcp (build|serve|dev|check|init)\b([^'`"\n;)]*)/g);
    let flagsSeen = 0;
    // Both groups always take part in a match.
    for (const [whole, name = '', rest = ''] of suggestions) {
      const spec = commands.get(name)!;
      for (const [flag] of rest.matchAll(/--[a-z][a-z-]*/g)) {
        flagsSeen += 1;
        expect(['--help', '--version', ...Object.keys(spec.options).map((option) => `--${option}`)], whole).toContain(
          flag,
        );
      }
    }
    expect(flagsSeen).toBeGreaterThan(3);
  });
});

describe('serve on a terminal', () => {
  const hasScript = spawnSync('script', ['--version']).status === 0;

  it.skipIf(!hasScript)('prints one line saying what it waits for, and a command line that serves', async () => {
    // Built by the CLI: the tree the printed command line serves is the one a user has.
    const project = await buildOneToolProject();
    // A real pseudo-terminal on stdin: `script` runs serve inside one; closing its input (EOF on
    // the terminal) ends serve.
    const quoted = [process.execPath, CLI, 'serve', project].map((word) => `'${word}'`).join(' ');
    const onTerminal = spawnSync('script', ['-qec', quoted, '/dev/null'], {
      input: '',
      encoding: 'utf8',
      timeout: 30_000,
    });
    const lines = onTerminal.stdout.split(/\r?\n/).filter((line) => line.startsWith('staticmcp serve:'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /an MCP server is waiting for a client on stdin .*Let a client start it with: node \S+ serve \S+/,
    );

    // The command line it printed, run by a shell as a client would, answers MCP.
    const printed = /start it with: (.*?) \(Claude Code/.exec(lines[0] ?? '')?.[1] ?? '';
    expect(printed).toContain(project);
    const initialize = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } };
    const client = spawnSync('sh', ['-c', printed], {
      input: `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: initialize })}\n${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })}\n`,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(client.status, client.stderr).toBe(0);
    const answers = client.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(answers[1]).toMatchObject({ id: 2, result: { tools: [{ name: 'ok' }] } });
    expect(client.stderr).not.toContain('waiting for a client');
  });

  it('says nothing of the kind when a client is on stdin', async () => {
    const bridge = new RawBridge([await buildOneToolProject()]);
    await bridge.initialize();
    await bridge.close();
    expect(bridge.stderr).toBe('');
  });
});

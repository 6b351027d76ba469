// staticmcp as the npm registry would hold it: `npm pack` of a staged copy of the package (its
// package.json `files`, with the dist/ this test run compiled, so the tarball holds the code under
// test, never a stale dist/), optionally with PUBLISHED_ON_NPM flipped by the release's own script
// (scripts/mark-published.mjs) on the staged dist; and the npm commands the tests run around it,
// in an environment free of a surrounding `npm test`'s settings. Shared by the packed-install,
// deploy-commands, release-flip and readme-walkthrough tests (test/helpers/shared-install.ts).
import { execFile, spawn } from 'node:child_process';
import { promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { COMMAND_BUNDLE_PATHS, COMMAND_LINE_BUNDLE_PATH, stampBundle } from '../../scripts/bundle-cli.mjs';
import { CLI, REPO_ROOT } from './paths.js';

/** npm's own settings from a surrounding `npm test` (prefix, dry-run, …) must not steer a command. */
export const NPM_ENV: Record<string, string> = Object.fromEntries(
  Object.entries(process.env).filter(
    (entry): entry is [string, string] =>
      entry[1] !== undefined &&
      (!/^npm_/i.test(entry[0]) || /^npm_config_(cache|userconfig|registry)$/i.test(entry[0])),
  ),
);

export interface CommandRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end (3 minutes at most: a stuck npm fails the test, it never hangs it). */
export function runCommand(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<CommandRun> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd: options.cwd, env: options.env ?? NPM_ENV, timeout: 180_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

export const PACKAGE_JSON = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  files: string[];
  dependencies?: Record<string, string>;
  engines: { node: string };
};

export interface PackedPackage {
  tarball: string;
  /** The paths inside the package, sorted. */
  files: string[];
}

/**
 * Stages the package in `work/stage` (`work/stage-published`) and returns that folder: what
 * `npm pack` or `npm publish` packs there is the package. With `published`, the staged
 * dist/shared/staticmcp-command.js is flipped as the release workflow flips the source before it
 * builds, and so are the command bundles' copies of it (dist/cli/staticmcp-<command>.cjs, serve's has none).
 */
export async function stageThisBuild(work: string, options: { published?: boolean } = {}): Promise<string> {
  const stage = path.join(work, options.published ? 'stage-published' : 'stage');
  await fs.mkdir(stage);
  // package.json "files" besides dist/ (staged from this run's build below): templates, the config schema.
  const shipped = PACKAGE_JSON.files.filter((entry) => !entry.startsWith('dist') && !entry.startsWith('!'));
  for (const entry of ['package.json', 'README.md', 'LICENSE', ...shipped]) {
    await fs.cp(path.join(REPO_ROOT, entry), path.join(stage, entry), { recursive: true });
  }
  await fs.cp(path.dirname(path.dirname(CLI)), path.join(stage, 'dist'), { recursive: true });
  if (options.published) {
    const flip = await runCommand(
      process.execPath,
      [
        path.join(REPO_ROOT, 'scripts', 'mark-published.mjs'),
        path.join(stage, 'dist', 'shared', 'staticmcp-command.js'),
      ],
      { cwd: stage },
    );
    if (flip.code !== 0) throw new Error(`mark-published failed on the staged dist: ${flip.stderr}`);
    // The command bundles hold their own copy of the switch, built from the source (which the
    // release flips before it builds): flipped here in their text, stamped again so the code
    // cache never serves a stale compile. (The installed package has no dependencies: the
    // unbundled modules, which import them, cannot stand in for the bundles.)
    for (const bundle of [...Object.values(COMMAND_BUNDLE_PATHS), COMMAND_LINE_BUNDLE_PATH]) {
      const file = path.join(stage, 'dist', bundle);
      const code = (await fs.readFile(file, 'utf8')).replace(/^[^\n]*\n/, '');
      const flipped = code.replace(/\bPUBLISHED_ON_NPM=!1;/g, 'PUBLISHED_ON_NPM=!0;');
      if (flipped === code || code.split('PUBLISHED_ON_NPM=!1;').length !== 2)
        throw new Error(`${bundle} holds no single PUBLISHED_ON_NPM=!1; to flip: did the bundle's minifier change?`);
      await fs.writeFile(file, stampBundle(flipped));
    }
  }
  return stage;
}

/** Stages the package in `work/stage` (stageThisBuild) and packs it there with `npm pack`. */
export async function packThisBuild(work: string): Promise<PackedPackage> {
  const stage = await stageThisBuild(work);
  const pack = await runCommand('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', stage], {
    cwd: stage,
  });
  if (pack.code !== 0) throw new Error(`npm pack failed: ${pack.stderr}`);
  const [report] = JSON.parse(pack.stdout) as [{ filename: string; files: { path: string }[] }];
  return {
    tarball: path.join(stage, report.filename),
    files: report.files.map((file) => file.path).sort(),
  };
}

/**
 * Starts `command args…` as an MCP client starts a stdio server, sends initialize on stdin and
 * returns the first line it answers (then closes stdin, and waits for the process to end).
 */
export function initializeOverStdio(
  command: string,
  args: readonly string[],
  options: { env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {},
): Promise<{ answer: Record<string, unknown>; stderr: string }> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: options.env ?? NPM_ENV,
      cwd: options.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const exited = new Promise((done) => child.on('exit', done));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no answer to initialize within ${timeoutMs} ms; stderr: ${stderr}`));
    }, timeoutMs);
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      const newline = stdout.indexOf('\n');
      if (newline < 0) return;
      clearTimeout(timer);
      child.stdin.end();
      void exited.then(() => resolve({ answer: JSON.parse(stdout.slice(0, newline)), stderr }));
    });
    child.on('error', reject);
    child.stdin.write(
      `${JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'staticmcp-tests', version: '1' },
        },
      })}\n`,
    );
  });
}

// Helpers for the build integration tests: throwaway projects made of the real one-purpose
// scripts in test/fixtures/scripts/, the real CLI run as a child process, and whole-folder
// snapshots to prove what a build did (and did not) touch.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import type { BuildReport, ToolReport } from '../../src/builder/build-report.js';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The CLI compiled for this test run by test/global-setup.ts. */
export const CLI = inject('cli');
export const FIXTURE_SCRIPTS = path.join(REPO_ROOT, 'test', 'fixtures', 'scripts');

export interface ProjectSpec {
  /** Tool path inside tools/ → fixture script name in test/fixtures/scripts/. */
  tools?: Record<string, string>;
  /** staticmcp.json content. */
  config?: unknown;
  /** Other files: project-relative path → content. */
  files?: Record<string, string | Buffer>;
}

const madeFolders: string[] = [];

/** A fresh temporary folder, removed by `removeTemporaryFolders`. */
export async function temporaryFolder(prefix = 'staticmcp-test-'): Promise<string> {
  const folder = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), prefix)));
  madeFolders.push(folder);
  return folder;
}

export async function removeTemporaryFolders(): Promise<void> {
  for (const folder of madeFolders.splice(0)) {
    // Give back permissions a test may have taken away, so the folder can be removed.
    await fs.chmod(folder, 0o755).catch(() => {});
    await fs.rm(folder, { recursive: true, force: true });
  }
}

export async function copyFixtureScript(fixture: string, destination: string): Promise<void> {
  await fs.mkdir(path.dirname(destination), { recursive: true });
  await fs.copyFile(path.join(FIXTURE_SCRIPTS, fixture), destination);
  await fs.chmod(destination, 0o755);
}

/** Makes a project in a new temporary folder (or as `<parent>/project`) and returns its path. */
export async function makeProject(spec: ProjectSpec, parent?: string): Promise<string> {
  const root = parent ? path.join(parent, 'project') : await temporaryFolder('staticmcp-project-');
  await fs.mkdir(path.join(root, 'tools'), { recursive: true });
  for (const [toolPath, fixture] of Object.entries(spec.tools ?? {})) {
    await copyFixtureScript(fixture, path.join(root, 'tools', toolPath));
  }
  if (spec.config !== undefined)
    await fs.writeFile(path.join(root, 'staticmcp.json'), JSON.stringify(spec.config, null, 2));
  for (const [file, content] of Object.entries(spec.files ?? {})) {
    await fs.mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await fs.writeFile(path.join(root, file), content);
  }
  return root;
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `node dist/cli/main.js …args` to the end. */
export function runCli(args: readonly string[], options: { cwd?: string } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: options.cwd ?? REPO_ROOT,
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      resolve({
        code,
        signal,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
      });
    });
  });
}

/** `staticmcp build <project> --json …extra`, with the report parsed. */
export async function buildJson(project: string, ...extra: string[]): Promise<CliResult & { report: BuildReportJson }> {
  const result = await runCli(['build', project, '--json', ...extra]);
  let report: BuildReportJson;
  try {
    report = JSON.parse(result.stdout) as BuildReportJson;
  } catch {
    throw new Error(`build printed no JSON report (exit ${result.code}):\n${result.stdout}\n${result.stderr}`);
  }
  return { ...result, report };
}

/** The --json report is the build's own report type, as JSON. */
export type BuildReportJson = BuildReport;
export type ToolReportJson = ToolReport;

/** Every failure of a report as one line of text, for assertion messages. */
export function problemsOf(report: BuildReportJson): string {
  return JSON.stringify([...report.failures, ...report.tools.flatMap((tool) => tool.failures)]);
}

export function toolReport(report: BuildReportJson, name: string): ToolReportJson {
  const found = report.tools.find((tool) => tool.name === name);
  if (!found)
    throw new Error(`no tool "${name}" in the report; tools: ${report.tools.map((tool) => tool.name).join(', ')}`);
  return found;
}

/** Every file under `root` (relative `/` path → bytes); symlinks and special files are listed by kind. */
export async function readTree(root: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  async function walk(folder: string, prefix: string): Promise<void> {
    for (const entry of (await fs.readdir(folder, { withFileTypes: true })).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    )) {
      const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) await walk(full, relative);
      else if (entry.isFile()) files.set(relative, await fs.readFile(full));
      else if (entry.isSymbolicLink()) files.set(relative, Buffer.from(`symlink → ${await fs.readlink(full)}`));
      else files.set(relative, Buffer.from('special file'));
    }
  }
  await walk(root, '');
  return files;
}

/** A comparable fingerprint of a folder: path → sha256 of content (plus mode), for "nothing changed". */
export async function fingerprint(root: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  for (const [file, bytes] of await readTree(root)) {
    const stats = await fs.lstat(path.join(root, file));
    result[file] = `${(stats.mode & 0o7777).toString(8)} ${createHash('sha256').update(bytes).digest('hex')}`;
  }
  return result;
}

export async function readJson<T = Record<string, unknown>>(file: string): Promise<T> {
  return JSON.parse(await fs.readFile(file, 'utf8')) as T;
}

export async function exists(file: string): Promise<boolean> {
  try {
    await fs.lstat(file);
    return true;
  } catch {
    return false;
  }
}

/** Waits (without a deadline of its own: the test timeout is the limit) until `file` exists. */
export async function waitForFile(file: string): Promise<void> {
  while (!(await exists(file))) await new Promise((resolve) => setTimeout(resolve, 25));
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export const isRoot = process.getuid?.() === 0;

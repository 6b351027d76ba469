// Running the real CLI to its end as a child process, and reading `build --json` reports.
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import type { BuildReport, ToolReport } from '../../src/builder/build-report.js';
import { CLI, REPO_ROOT } from './paths.js';

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `node <compiled CLI> …args` to the end; killed (code null) after `timeoutMs` when given. */
export function runCli(
  args: readonly string[],
  options: { cwd?: string; timeoutMs?: number; env?: Record<string, string> } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: options.cwd ?? REPO_ROOT,
      env: { ...process.env, NO_COLOR: '1', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    const timer =
      options.timeoutMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        code,
        signal,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
      });
    });
  });
}

/**
 * The environment of a CLI run with a TMPDIR of its own (one a killed run's leftovers land in),
 * which keeps the compile cache every other run reads: the CLI keeps it in the temp folder
 * (src/cli/start-cli.ts), and a run without it compiles its bundle afresh.
 */
export function envWithTmpdir(tmpdir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const compileCache = process.env.NODE_COMPILE_CACHE || path.join(os.tmpdir(), 'node-compile-cache');
  return { ...process.env, TMPDIR: tmpdir, NODE_COMPILE_CACHE: compileCache, ...extra };
}

/** The --json report is the build's own report type, as JSON. */
export type BuildReportJson = BuildReport;
export type ToolReportJson = ToolReport;

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

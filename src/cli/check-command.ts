// `staticmcp check [tree|URL] [--json]`: finds the tree (a folder, a built project's output
// folder, or an http(s) URL), runs the checks of check/check-tree.ts, and reports for humans on
// stderr or as JSON on stdout. Exit 0 ok, 1 problems found, 2 nothing to check (bad usage).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { StaticMcpError } from '../staticmcp-error.js';
import type { CheckReport, TreeProblem } from '../check/check-tree.js';
import type { TreeSource } from '../mcp/tree-source.js';
import { printError } from './print-error.js';
import { outputFolderOf } from './serve-command.js';

export interface CheckOptions {
  source: string;
  json: boolean;
}

async function isFile(file: string): Promise<boolean> {
  try {
    return (await fs.stat(file)).isFile();
  } catch {
    return false;
  }
}

/** The tree folder for `given`: itself when it holds mcp.json, else the project's output folder. */
async function findTreeFolder(given: string): Promise<string> {
  const folder = path.resolve(given);
  const stat = await fs.stat(folder).catch(() => undefined);
  if (!stat?.isDirectory()) {
    throw new StaticMcpError(
      'CHECK_NOT_FOUND',
      `${given} is not a folder`,
      'give a tree folder (e.g. dist/), a project folder that was built, or an http(s) URL',
    );
  }
  if (await isFile(path.join(folder, 'mcp.json'))) return folder;
  const output = await outputFolderOf(folder);
  if (await isFile(path.join(output, 'mcp.json'))) return output;
  throw new StaticMcpError(
    'CHECK_NO_TREE',
    `${given} holds no mcp.json (nor ${path.relative(folder, output)}/mcp.json), so it is not a StaticMCP tree`,
    `run staticmcp build ${given} first, or point staticmcp check at a tree folder or URL`,
  );
}

async function openSource(
  given: string,
): Promise<{ source: TreeSource; files?: string[]; listingProblems?: TreeProblem[] }> {
  if (/^https?:\/\//i.test(given)) {
    const { UrlSource } = await import('../serve/url-source.js');
    try {
      return { source: new UrlSource(given) };
    } catch {
      throw new StaticMcpError(
        'CHECK_BAD_URL',
        `${given} is not a valid URL`,
        'give the http(s) address the tree is deployed at',
      );
    }
  }
  const root = await findTreeFolder(given);
  const { FolderSource } = await import('../serve/folder-source.js');
  const { listTreeFiles } = await import('../check/list-tree-files.js');
  const { files, problems } = await listTreeFiles(root);
  return {
    source: new FolderSource(root, path.relative(process.cwd(), root) || '.'),
    files,
    listingProblems: problems,
  };
}

/** The summary for humans: a clean result on stdout (unless stdout carries --json), problems on stderr. */
function printHuman(name: string, report: CheckReport, json: boolean): void {
  const { checked } = report;
  const counts = [
    `${checked.tools} tool${checked.tools === 1 ? '' : 's'}`,
    `${checked.resources} resource${checked.resources === 1 ? '' : 's'}`,
    `${checked.prompts} prompt${checked.prompts === 1 ? '' : 's'}`,
    ...(report.skipped.length === 0 || checked.callFiles > 0 ? [`${checked.callFiles} call files`] : []),
  ].join(', ');
  const kind = report.staticmcpProfile ? 'staticmcp profile' : 'StaticMCP standard';
  const lines: string[] = [];
  if (report.ok) {
    const success = `✓ ${name}: no problems (${kind}; ${counts}${checked.hashedFiles > 0 ? '; content hash matches' : ''})`;
    if (json) lines.push(success);
    else process.stdout.write(`${success}\n`);
  } else {
    lines.push(
      `✗ ${name}: ${report.problems.length} problem${report.problems.length === 1 ? '' : 's'} (${kind}; ${counts})`,
    );
    for (const problem of report.problems)
      lines.push(`  ✗ ${problem.path}: ${problem.message}`, `      what to do: ${problem.hint}`);
  }
  for (const note of report.skipped) lines.push(`  not checked: ${note}`);
  if (lines.length > 0) process.stderr.write(`${lines.join('\n')}\n`);
}

export async function runCheckCommand(options: CheckOptions): Promise<number> {
  let opened: Awaited<ReturnType<typeof openSource>>;
  try {
    opened = await openSource(options.source);
  } catch (error) {
    printError(error);
    return error instanceof StaticMcpError ? 2 : 1;
  }
  const { source, files, listingProblems } = opened;
  try {
    const { checkTree } = await import('../check/check-tree.js');
    const report = await checkTree({ source, files, listingProblems });
    if (options.json) process.stdout.write(`${JSON.stringify({ tree: source.displayName, ...report }, null, 2)}\n`);
    printHuman(source.displayName, report, options.json);
    return report.ok ? 0 : 1;
  } catch (error) {
    printError(error);
    // No tree at all (no mcp.json, unreachable URL) is a usage error; anything else a bug.
    return error instanceof StaticMcpError ? 2 : 1;
  } finally {
    source.close();
  }
}

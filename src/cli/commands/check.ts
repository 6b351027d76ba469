// `staticmcp check [tree|project|URL] [--json]`: its declaration, and the handler that finds the tree (a folder, a built project's output
// folder, or an http(s) URL), runs the checks of check/check-tree.ts, and reports for humans on
// stderr or as JSON on stdout. Exit 0 ok, 1 problems found, 2 nothing to check (bad usage).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { StaticMcpError } from '../../core/staticmcp-error.js';
import type { CheckReport, TreeProblem } from '../../check/check-tree.js';
import type { TreeSource } from '../../core/tree/tree-source.js';
import type { PackFileSource } from '../../core/packs/pack-reader.js';
import type { ProjectConfig } from '../../project/config.js';
import { defineCommand } from '../command-spec.js';
import { exitCodeOf } from '../exit-codes.js';
import { commandLine } from '../invocation.js';
import { printError } from '../print-error.js';
import { writeHumanLines } from '../../shared/terminal-text.js';

export const command = defineCommand({
  name: 'check',
  describe: "validate a tree (ours or another generator's, a folder or a URL) and report what is wrong",
  positional: {
    name: 'source',
    describe: 'tree folder, project folder (checks its tree and its staticmcp.json), or http(s) URL of a deployed tree',
    default: '.',
  },
  options: {
    json: { type: 'boolean', describe: 'print {ok, problems, checked, skipped} as JSON on stdout' },
  },
  run: ({ positional, options }) => runCheckCommand({ source: positional ?? '.', json: options.json }),
});

interface CheckOptions {
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

/** A checked project: its configuration, read strictly as the build reads it. */
type CheckedProject = { root: string; config: ProjectConfig };

/**
 * The tree folder for `given`: itself when it holds mcp.json; otherwise `given` is a project, and
 * the tree is its output folder (staticmcp.json's "out", else dist/).
 */
async function findTreeFolder(given: string): Promise<{ root: string; project?: CheckedProject }> {
  const folder = path.resolve(given);
  const stat = await fs.stat(folder).catch(() => undefined);
  if (!stat?.isDirectory()) {
    throw new StaticMcpError(
      'CHECK_NOT_FOUND',
      `${given} is not a folder`,
      'give a tree folder (e.g. dist/), a project folder that was built, or an http(s) URL',
    );
  }
  if (await isFile(path.join(folder, 'mcp.json'))) return { root: folder };
  const { readConfig, resolveOutputFolder } = await import('../../project/config.js');
  const config = await readConfig(folder);
  const output = resolveOutputFolder(folder, config);
  if (await isFile(path.join(output, 'mcp.json'))) return { root: output, project: { root: folder, config } };
  throw new StaticMcpError(
    'CHECK_NO_TREE',
    `${given} holds no mcp.json (nor ${path.relative(folder, output)}/mcp.json), so it is not a StaticMCP tree`,
    `run ${commandLine(['build', given])} first, or point staticmcp check at a tree folder or URL`,
  );
}

interface OpenedSource {
  source: TreeSource;
  files?: string[];
  packFiles?: PackFileSource;
  listingProblems?: TreeProblem[];
  treeRoot?: string;
  project?: CheckedProject;
  /** The tree's address, for a URL (its host's answer to a missing file is checked too). */
  siteUrl?: URL;
}

async function openSource(given: string): Promise<OpenedSource> {
  if (/^https?:\/\//i.test(given)) {
    const [{ UrlSource }, { ManifestPackedSource }] = await Promise.all([
      import('../../hosts/node/url-source.js'),
      import('../../core/packs/manifest-packed-source.js'),
    ]);
    let urlSource: InstanceType<typeof UrlSource>;
    try {
      urlSource = new UrlSource(given);
    } catch {
      throw new StaticMcpError(
        'CHECK_BAD_URL',
        `${given} is not a valid URL`,
        'give the http(s) address the tree is deployed at',
      );
    }
    // Read as serve <URL> reads it (a packed tool's calls from its packs); the packs themselves
    // are downloaded whole, each once, by the pack checks.
    return {
      source: new ManifestPackedSource(urlSource, urlSource),
      packFiles: urlSource,
      siteUrl: urlSource.urlOf(''),
    };
  }
  const { root, project } = await findTreeFolder(given);
  const { FolderSource } = await import('../../hosts/node/folder-source.js');
  const { FolderPackFiles } = await import('../../hosts/node/folder-pack-files.js');
  const { ManifestPackedSource } = await import('../../core/packs/manifest-packed-source.js');
  const { listTreeFiles } = await import('../../check/list-tree-files.js');
  const { files, problems } = await listTreeFiles(root);
  const packFiles = new FolderPackFiles(root);
  return {
    // Read as serve reads it: a packed tool's calls from its packs.
    source: new ManifestPackedSource(new FolderSource(root, path.relative(process.cwd(), root) || '.'), packFiles),
    packFiles,
    files,
    listingProblems: problems,
    treeRoot: root,
    project,
  };
}

/** A project's staticmcp.json `tools` keys that name no tool of its tree (the build only warns). */
async function checkToolKeys(project: CheckedProject, treeRoot: string): Promise<TreeProblem[]> {
  let names: string[] = [];
  try {
    const manifest = JSON.parse(await fs.readFile(path.join(treeRoot, 'mcp.json'), 'utf8'));
    const tools: unknown = manifest?.capabilities?.tools;
    if (Array.isArray(tools)) names = tools.map((tool) => tool?.name).filter((name) => typeof name === 'string');
  } catch {
    return []; // An unreadable manifest is already a problem of the tree's own checks.
  }
  const { CONFIG_FILE, findUnknownToolKeys } = await import('../../project/config.js');
  return findUnknownToolKeys(project.config, names).map((unknown) => ({
    path: `${path.relative(process.cwd(), path.join(project.root, CONFIG_FILE)) || CONFIG_FILE}#/tools/${unknown.key.replaceAll('~', '~0').replaceAll('/', '~1')}`,
    message: unknown.message,
    hint: 'rename the key to a tool name (the tree lists them in mcp.json), or remove it, then build again',
  }));
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
    else writeHumanLines(process.stdout, [success]);
  } else {
    lines.push(
      `✗ ${name}: ${report.problems.length} problem${report.problems.length === 1 ? '' : 's'} (${kind}; ${counts})`,
    );
    for (const problem of report.problems)
      lines.push(`  ✗ ${problem.path}: ${problem.message}`, `      what to do: ${problem.hint}`);
  }
  for (const note of report.skipped) lines.push(`  not checked: ${note}`);
  writeHumanLines(process.stderr, lines);
}

/**
 * What `staticmcp check <given>` decides, without printing: the tree it opens (a folder, a
 * project's output folder, or a URL) and every problem found in it. Tests call it in-process.
 */
export async function checkSource(given: string): Promise<{ name: string; report: CheckReport }> {
  const { source, files, packFiles, listingProblems, treeRoot, project, siteUrl } = await openSource(given);
  try {
    const { checkTree } = await import('../../check/check-tree.js');
    const report = await checkTree({ source, files, listingProblems, packFiles });
    const extraProblems = project && treeRoot ? await checkToolKeys(project, treeRoot) : [];
    if (siteUrl) {
      const { probeMissingFile } = await import('../../check/probe-missing-file.js');
      const fallback = await probeMissingFile(siteUrl);
      if (fallback) extraProblems.push(fallback);
    }
    if (extraProblems.length > 0) {
      report.problems.push(...extraProblems);
      report.ok = false;
    }
    return { name: source.displayName, report };
  } finally {
    source.close();
  }
}

async function runCheckCommand(options: CheckOptions): Promise<number> {
  try {
    const { name, report } = await checkSource(options.source);
    if (options.json) process.stdout.write(`${JSON.stringify({ tree: name, ...report }, null, 2)}\n`);
    printHuman(name, report, options.json);
    return report.ok ? 0 : 1;
  } catch (error) {
    printError(error);
    // A project whose staticmcp.json is broken is a problem found (1), like a broken tree; no
    // tree at all (no folder, no mcp.json, an unreachable URL) is refused (2).
    return exitCodeOf(error);
  }
}

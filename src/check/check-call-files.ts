// `staticmcp check`, the call files found by listing the folder: each reachable by its key, answering
// the arguments it records, servable; and the content hash over every file.
import { callFilePath, omittedDefaultCallFilePaths } from '../core/tree/call-key.js';
import { createTreeHash, sortTreePaths } from '../tree-writer/content-hash.js';
import { isBuildOwnedPath } from '../tree-writer/tree-ownership.js';
import { readCallFile } from '../core/tree/lenient-files.js';
import { whyNeverServed } from './servable-call-files.js';
import { EXTENSION_KEY, MANIFEST_FILE, WORKER_FILE } from '../core/tree/manifest.js';
import type { TreeSource } from '../core/tree/tree-source.js';
import { isObject, type JsonObject } from '../core/tree/json-object.js';
import type { CheckedTool } from './check-manifest.js';
import { at, type CheckCounts, REBUILD, type Report } from './tree-problem.js';

/** The tool a file under `tools/` answers for: `tools/<name>.json` or `tools/<name>/…`. */
function toolOfCallFile(filePath: string): string {
  const rest = filePath.slice('tools/'.length);
  const slash = rest.indexOf('/');
  return slash >= 0 ? rest.slice(0, slash) : rest.replace(/\.json$/, '');
}

/** Every listed file: call files parsed (and, in our trees, their keys checked), the content hash recomputed. */
export async function checkListedFiles(
  files: readonly string[],
  source: TreeSource,
  extension: JsonObject | undefined,
  tools: CheckedTool[],
  report: Report,
  checked: CheckCounts,
): Promise<number> {
  const toolsByName = new Map(tools.map((tool) => [tool.name, tool]));
  const listed = new Set(files);
  const callFilesPerTool = new Map<string, number>();
  const hash = createTreeHash();
  let callFiles = 0;
  for (const filePath of sortTreePaths(files)) {
    // What users add beside the build's files (CNAME, robots.txt, .git, public/ copies) is theirs,
    // and the edge worker is the generator's code: neither is the tree's content, nor hashed.
    if (filePath === MANIFEST_FILE || filePath === WORKER_FILE || !isBuildOwnedPath(filePath)) continue;
    const isCallFile = filePath.startsWith('tools/');
    // Without our extension there is no hash to compare, so only call files need reading.
    if (!extension && !isCallFile) continue;
    let text: string;
    try {
      const outcome = await source.read(filePath);
      if (outcome.status !== 'ok') {
        report(
          filePath,
          'cannot be read through the tree (a link that leaves the folder?)',
          'replace it with a regular file inside the tree',
        );
        continue;
      }
      text = outcome.text;
    } catch (error) {
      report(filePath, (error as Error).message, 'make the file readable');
      continue;
    }
    if (extension) {
      hash.add(filePath, text);
      checked.hashedFiles += 1;
    }
    if (!isCallFile) continue;
    callFiles += 1;
    if (!filePath.endsWith('.json')) {
      report(filePath, 'is not a call file (tools/ holds only .json files)', 'remove it, or put it outside tools/');
      continue;
    }
    const toolName = toolOfCallFile(filePath);
    callFilesPerTool.set(toolName, (callFilesPerTool.get(toolName) ?? 0) + 1);
    const kind = checkCallFile(filePath, text, toolsByName.get(toolName), toolName, extension !== undefined, report);
    // A copy at a left-out-defaults key (for other bridges) is not one more precomputed call.
    if (kind === 'copy') callFilesPerTool.set(toolName, (callFilesPerTool.get(toolName) ?? 1) - 1);
    if (kind !== 'unreadable' && !extension)
      checkServable(filePath, toolsByName.get(toolName), toolName, listed, report);
  }
  if (!extension) return callFiles;

  const recorded = extension.contentHash;
  if (typeof recorded === 'string') {
    const actual = hash.digest();
    if (actual !== recorded) {
      report(
        at(EXTENSION_KEY, 'contentHash'),
        `is ${recorded}, but the files hash to ${actual}: a file was added, removed or edited after the build`,
        `${REBUILD} (serve keys its caches and cursors on this hash, so a hand edit must come with a new one)`,
      );
    }
  }
  const toolExtensions = isObject(extension.tools) ? extension.tools : {};
  for (const tool of tools) {
    const entry = toolExtensions[tool.name];
    const expected = isObject(entry) && typeof entry.precomputed === 'number' ? entry.precomputed : undefined;
    const found = callFilesPerTool.get(tool.name) ?? 0;
    if (expected !== undefined && expected !== found) {
      report(
        at(EXTENSION_KEY, 'tools', tool.name, 'precomputed'),
        `says ${expected} call files, but tools/ holds ${found} for ${tool.name}`,
        REBUILD,
      );
    }
  }
  return callFiles;
}

/** Another generator's call file: reported when no call the bridge can receive is answered from it. */
export function checkServable(
  filePath: string,
  tool: CheckedTool | undefined,
  toolName: string,
  listed: ReadonlySet<string>,
  report: Report,
): void {
  if (!tool) {
    report(
      filePath,
      `answers tool ${JSON.stringify(toolName)}, which mcp.json does not list, so no call ever reads it`,
      'list the tool in mcp.json, or delete the file',
    );
    return;
  }
  const why = whyNeverServed(filePath, tool, listed);
  if (why === undefined) return;
  report(
    filePath,
    `is never served: ${why}`,
    'put it where the bridge looks for its arguments (tools/<tool>/<value>/….json, a folder per argument, raw or encoded values; docs/cli.md "Checking a tree"), or widen the tool\'s inputSchema',
  );
}

/** Checks one call file: 'copy' when it sits at a key with defaulted arguments left out (for other bridges). */
export function checkCallFile(
  filePath: string,
  text: string,
  tool: CheckedTool | undefined,
  toolName: string,
  ours: boolean,
  report: Report,
): 'call' | 'copy' | 'unreadable' {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    report(
      filePath,
      `is not valid JSON (${(error as Error).message}), so the call it answers fails`,
      `fix or delete it, or ${REBUILD}`,
    );
    return 'unreadable';
  }
  // Other generators' files are read leniently (raw JSON becomes text); only our profile is stricter.
  if (!ours) return 'call';
  if (!isObject(value) || !Array.isArray(value.content)) {
    report(filePath, 'has no "content" array, so it is not a CallToolResult', REBUILD);
    return 'call';
  }
  if (!tool) {
    report(
      filePath,
      `answers tool ${JSON.stringify(toolName)}, which mcp.json does not list`,
      `delete it, or ${REBUILD}`,
    );
    return 'call';
  }
  const { recordedArguments } = readCallFile(value);
  if (!recordedArguments) {
    report(
      filePath,
      'does not record the arguments it answers (_meta["staticmcp/arguments"]), so the bridge will not serve it',
      REBUILD,
    );
    return 'call';
  }
  const expected = callFilePath(tool.name, tool.parameterOrder, recordedArguments);
  if (expected === filePath) return 'call';
  const copies = omittedDefaultCallFilePaths(tool.name, tool.parameterOrder, tool.inputSchema, recordedArguments, true);
  if (copies.includes(filePath)) return 'copy';
  report(
    filePath,
    `records arguments ${JSON.stringify(recordedArguments)}, which belong at ${expected}: the bridge never serves it for the call this path stands for`,
    `move it back to ${expected}, or ${REBUILD}`,
  );
  return 'call';
}

// `staticmcp check`: what is wrong with a tree, ours or another generator's, read through the
// bridge's own sources and lenient readers, so "check passes" means "serve can use it". Trees
// with our extension are held to our profile (call keys, recorded arguments, content hash);
// others only to the StaticMCP standard.
import { StaticMcpError } from '../core/staticmcp-error.js';
import { checkDiscoveryFiles } from './check-discovery-files.js';
import { EXTENSION_KEY, isOurExtension, MANIFEST_FILE } from '../core/tree/manifest.js';
import { CachedTreeReader } from '../core/tree-reading/cached-tree-reader.js';
import type { ReadOutcome, TreeSource } from '../core/tree/tree-source.js';
import { isObject, type JsonObject } from '../core/tree/json-object.js';
import { at, type CheckCounts, REBUILD, type Report, type TreeProblem } from './tree-problem.js';
import {
  type CheckedTool,
  checkAppLinks,
  type ListedResource,
  checkHeader,
  checkTemplates,
  checkTools,
} from './check-manifest.js';
import { checkExtensionFiles, checkPrompts, checkResources } from './check-named-files.js';
import { checkListedFiles } from './check-call-files.js';
import type { PackFileSource } from '../core/packs/pack-reader.js';
import { SEARCH_FOLDER } from '../core/search/search-index-format.js';

export type { CheckCounts, TreeProblem } from './tree-problem.js';
export interface CheckReport {
  ok: boolean;
  /** Whether the tree carries our extension (and was held to our profile). */
  staticmcpProfile: boolean;
  problems: TreeProblem[];
  checked: CheckCounts;
  /** What was not checked, and why (a URL cannot be listed). */
  skipped: string[];
}

export interface CheckInput {
  source: TreeSource;
  /** Every tree-relative file, for a folder; undefined for a URL, which cannot be listed. */
  files?: readonly string[];
  /** What listing the folder found unusable (names that are not UTF-8, nests too deep). */
  listingProblems?: readonly TreeProblem[];
  /**
   * Binary reads of the same folder, for a packed tree's packs; `source` must then read packed
   * call files through them (ManifestPackedSource), as serve does.
   */
  packFiles?: PackFileSource;
}
async function readManifest(source: TreeSource): Promise<string> {
  let outcome: ReadOutcome;
  try {
    outcome = await source.read(MANIFEST_FILE);
  } catch (error) {
    throw new StaticMcpError(
      'CHECK_UNREACHABLE',
      `${source.displayName} cannot be read: ${(error as Error).message}`,
      'check the address (and your connection), or check a local copy of the tree',
    );
  }
  if (outcome.status !== 'ok') {
    throw new StaticMcpError(
      'CHECK_NO_TREE',
      `${source.displayName} has no ${MANIFEST_FILE}, so it is not a StaticMCP tree`,
      'point staticmcp check at a tree folder (the output of staticmcp build, e.g. dist/) or the URL it is deployed at',
    );
  }
  return outcome.text;
}

/** Throws a StaticMcpError when there is no tree to check at all (no mcp.json, unreachable). */
export async function checkTree(input: CheckInput): Promise<CheckReport> {
  const { source } = input;
  const problems: TreeProblem[] = [...(input.listingProblems ?? [])];
  const report = (path: string, message: string, hint: string): void => {
    problems.push({ path, message, hint });
  };
  const checked: CheckCounts = {
    tools: 0,
    resources: 0,
    resourceTemplates: 0,
    prompts: 0,
    callFiles: 0,
    hashedFiles: 0,
  };
  const skipped: string[] = [];
  const finish = (staticmcpProfile: boolean): CheckReport => ({
    ok: problems.length === 0,
    staticmcpProfile,
    problems,
    checked,
    skipped,
  });

  const manifestText = await readManifest(source);
  let manifest: unknown;
  try {
    manifest = JSON.parse(manifestText);
  } catch (error) {
    report(MANIFEST_FILE, `is not valid JSON (${(error as Error).message})`, `fix the syntax, or ${REBUILD}`);
    return finish(false);
  }
  if (!isObject(manifest)) {
    report(
      MANIFEST_FILE,
      'is not a JSON object',
      `write the manifest as an object with protocolVersion, serverInfo and capabilities, or ${REBUILD}`,
    );
    return finish(false);
  }
  const rawExtension = isObject(manifest[EXTENSION_KEY]) ? manifest[EXTENSION_KEY] : undefined;
  // A search-only extension (staticmcp index over another generator's tree) leaves the tree foreign.
  const ours = isOurExtension(rawExtension);
  const extension = ours ? rawExtension : undefined;
  const searchTable = rawExtension?.search;
  const reader = new CachedTreeReader(source);

  checkHeader(manifest, report);
  const tools = checkTools(manifest, report);
  checked.tools = tools.length;
  const listedResources: ListedResource[] = [];
  checked.resources = await checkResources(manifest, extension, reader, report, (listed) =>
    listedResources.push(listed),
  );
  checked.resourceTemplates = checkTemplates(manifest, report);
  checkAppLinks(manifest, listedResources, report);
  checked.prompts = await checkPrompts(manifest, ours, reader, report);
  if (extension) await checkExtensionFiles(extension, tools, reader, report);
  if (extension?.skills !== undefined) await (await import('./check-skills.js')).checkSkills(extension, reader, report);
  await checkDiscoveryFiles(source, manifest, ours, report);

  if (input.files === undefined) {
    skipped.push(
      extension?.packs !== undefined && input.packFiles
        ? 'plain call files under tools/: a URL cannot be listed, so only the manifest, the files it names and the packs were read'
        : 'call files under tools/: a URL cannot be listed, so only the manifest and the files it names were read',
    );
    if (ours) skipped.push('the content hash: it covers every file, and a URL cannot be listed');
    if (extension?.packs !== undefined) {
      if (input.packFiles) checked.callFiles = await checkPackedCallsAtUrl(extension, tools, input.packFiles, report);
      else skipped.push('the packs: this source cannot read them');
    }
    if (searchTable !== undefined) skipped.push('the search index: a URL cannot be listed, and check reads all of it');
  } else {
    let files = input.files.filter((file) => !file.startsWith(SEARCH_FOLDER));
    if (extension?.packs !== undefined && input.packFiles) {
      const { checkPacks, toolFolderOf } = await import('./check-packs.js');
      const toolNames = new Set(tools.map((tool) => tool.name));
      const { packedCallFiles, packedTools } = await checkPacks(extension, files, input.packFiles, toolNames, report);
      // The tree as a reader sees it: the packs' calls in place of the pack files, the plain
      // call files of packed tools (reported above) left out, as no reader reads them.
      const isPackedPlainFile = (file: string): boolean => packedTools.has(toolFolderOf(file) ?? '');
      files = [...files.filter((file) => !file.startsWith('packs/') && !isPackedPlainFile(file)), ...packedCallFiles];
    }
    // The search index (issue #25) is derived from files the hash covers, and is checked on its
    // own; after the packs, so a document that takes its text from a call finds it among the calls
    // a reader reads (`files`: plain and packed).
    if (searchTable !== undefined && input.packFiles) {
      const { checkSearchIndex } = await import('./check-search-index.js');
      const calls = new Set(files);
      await checkSearchIndex(searchTable, input.files, input.packFiles, report, (treePath) => calls.has(treePath));
    }
    checked.callFiles = await checkListedFiles(files, source, extension, tools, report, checked);
    if (ours) {
      const { checkLlmsFiles } = await import('./check-llms-txt.js');
      await checkLlmsFiles(input.files, source, searchTable !== undefined, report);
    }
  }
  return finish(ours);
}

/**
 * A deployed packed tree's packs (`check <URL>`): every index and pack downloaded once, whole, and
 * verified; each call they hold checked as its pack arrives (its recorded arguments, its key), and
 * each packed tool's count of calls held against the manifest. The call files of unpacked tools
 * cannot be found without a listing. Returns the number of packed call files checked.
 */
async function checkPackedCallsAtUrl(
  extension: JsonObject,
  tools: CheckedTool[],
  packFiles: PackFileSource,
  report: Report,
): Promise<number> {
  const [{ checkPacks }, { checkCallFile }] = await Promise.all([
    import('./check-packs.js'),
    import('./check-call-files.js'),
  ]);
  const toolsByName = new Map(tools.map((tool) => [tool.name, tool]));
  const callsPerTool = new Map<string, number>();
  let callFiles = 0;
  const decoder = new TextDecoder();
  const { packedTools, brokenTools } = await checkPacks(
    extension,
    undefined,
    packFiles,
    new Set(toolsByName.keys()),
    report,
    (name, body) => {
      callFiles += 1;
      const toolName = name.slice('tools/'.length, name.indexOf('/', 'tools/'.length));
      const kind = checkCallFile(name, decoder.decode(body), toolsByName.get(toolName), toolName, true, report);
      // A copy at a left-out-defaults key (for other bridges) is not one more precomputed call.
      if (kind !== 'copy') callsPerTool.set(toolName, (callsPerTool.get(toolName) ?? 0) + 1);
    },
  );
  const toolExtensions = isObject(extension.tools) ? extension.tools : {};
  // A tool whose packs are missing or damaged is reported as such; its count would only repeat it.
  for (const toolName of [...packedTools].filter((name) => !brokenTools.has(name))) {
    const entry = toolExtensions[toolName];
    const expected = isObject(entry) && typeof entry.precomputed === 'number' ? entry.precomputed : undefined;
    // tools/<tool>.json stays a plain file beside a tool's packs (the all-defaults copy): never a call of its own here.
    const found = callsPerTool.get(toolName) ?? 0;
    if (expected !== undefined && expected !== found) {
      report(
        at(EXTENSION_KEY, 'tools', toolName, 'precomputed'),
        `says ${expected} call files, but the packs of ${toolName} hold ${found}`,
        REBUILD,
      );
    }
  }
  return callFiles;
}

// `staticmcp check`: what is wrong with a tree, ours or another generator's, read through the
// bridge's own sources and lenient readers, so "check passes" means "serve can use it". Trees
// with our extension are held to our profile (call keys, recorded arguments, content hash);
// others only to the StaticMCP standard.
import { StaticMcpError } from '../core/staticmcp-error.js';
import { resourceFilePaths } from '../core/mcp/resource-reads.js';
import { callFilePath, omittedDefaultCallFilePaths } from '../core/tree/call-key.js';
import { createTreeHash, sortTreePaths } from '../tree-writer/content-hash.js';
import { isBuildOwnedPath } from '../tree-writer/tree-ownership.js';
import { readCallFile } from '../core/tree/lenient-files.js';
import { TOOL_NAME, TOOL_NAME_IN_WORDS } from '../core/tree/name-rules.js';
import { whyNeverServed } from './servable-call-files.js';
import { checkDiscoveryFiles } from './check-discovery-files.js';
import {
  DEFAULT_CACHE_TTL_SECONDS,
  EXTENSION_KEY,
  MANIFEST_FILE,
  MAX_CACHE_TTL_SECONDS,
  promptFilePath,
  WORKER_FILE,
} from '../core/tree/manifest.js';
import { CachedTreeReader } from '../core/mcp/cached-tree-reader.js';
import type { ReadOutcome, TreeSource } from '../core/mcp/tree-source.js';
import { isObject, type JsonObject } from '../core/tree/json-object.js';

export interface TreeProblem {
  /** A tree-relative file, or a place in the manifest as `mcp.json#/json/pointer`. */
  path: string;
  /** What is wrong. */
  message: string;
  /** What to do about it. */
  hint: string;
}

export interface CheckCounts {
  tools: number;
  resources: number;
  resourceTemplates: number;
  prompts: number;
  callFiles: number;
  /** Files that went into the content hash (0 when it was not recomputed). */
  hashedFiles: number;
}

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
}

const REBUILD = 'rebuild the tree with staticmcp build';

/** A place in the manifest, as a JSON Pointer. */
function at(...parts: (string | number)[]): string {
  return `${MANIFEST_FILE}#/${parts.map((part) => String(part).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
}

/** The tool a file under `tools/` answers for: `tools/<name>.json` or `tools/<name>/…`. */
function toolOfCallFile(filePath: string): string {
  const rest = filePath.slice('tools/'.length);
  const slash = rest.indexOf('/');
  return slash >= 0 ? rest.slice(0, slash) : rest.replace(/\.json$/, '');
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
  const extension = isObject(manifest[EXTENSION_KEY]) ? manifest[EXTENSION_KEY] : undefined;
  const ours = extension !== undefined;
  const reader = new CachedTreeReader(source);

  checkHeader(manifest, report);
  const tools = checkTools(manifest, report);
  checked.tools = tools.length;
  checked.resources = await checkResources(manifest, extension, reader, report);
  checked.resourceTemplates = checkTemplates(manifest, report);
  checked.prompts = await checkPrompts(manifest, ours, reader, report);
  if (extension) await checkExtensionFiles(extension, tools, reader, report);
  await checkDiscoveryFiles(source, manifest, ours, report);

  if (input.files === undefined) {
    skipped.push(
      'call files under tools/: a URL cannot be listed, so only the manifest and the files it names were read',
    );
    if (ours) skipped.push('the content hash: it covers every file, and a URL cannot be listed');
  } else {
    checked.callFiles = await checkListedFiles(input.files, source, extension, tools, report, checked);
  }
  return finish(ours);
}

type Report = (path: string, message: string, hint: string) => void;

function checkHeader(manifest: JsonObject, report: Report): void {
  if (typeof manifest.protocolVersion !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(manifest.protocolVersion)) {
    report(
      at('protocolVersion'),
      manifest.protocolVersion === undefined
        ? 'is missing'
        : `is ${JSON.stringify(manifest.protocolVersion)}, not a YYYY-MM-DD date`,
      'set it to the MCP protocol version the tree follows, e.g. "2025-11-25"',
    );
  }
  if (!isObject(manifest.serverInfo)) {
    report(at('serverInfo'), 'is missing or not an object', 'add "serverInfo": {"name": …, "version": …}');
  } else {
    for (const key of ['name', 'version']) {
      const value = manifest.serverInfo[key];
      if (typeof value !== 'string' || value === '')
        report(at('serverInfo', key), 'is missing or not a non-empty string', `give the server a ${key} (a string)`);
    }
  }
  if (!isObject(manifest.capabilities)) {
    report(at('capabilities'), 'is missing or not an object', 'add "capabilities": {"tools": […], "resources": […]}');
    return;
  }
  for (const key of ['tools', 'resources']) {
    if (Array.isArray(manifest.capabilities[key])) continue;
    const topLevel = Array.isArray(manifest[key]);
    report(
      at('capabilities', key),
      topLevel
        ? `is missing; the list is at the top level ("${key}"), which staticmcp serve tolerates but the standard does not`
        : 'is missing or not an array',
      `move the list to capabilities.${key} (an empty array when there are none)`,
    );
  }
  for (const key of ['resourceTemplates', 'prompts']) {
    const value = manifest.capabilities[key];
    if (value !== undefined && !Array.isArray(value))
      report(at('capabilities', key), 'is not an array', 'make it an array, or leave it out');
  }
}

/** The lists the bridge would read (capabilities.<key>, or the top level, as loaded-tree.ts does). */
function listOf(manifest: JsonObject, key: string): unknown[] {
  const capabilities = isObject(manifest.capabilities) ? manifest.capabilities : {};
  const list = Array.isArray(capabilities[key]) ? capabilities[key] : manifest[key];
  return Array.isArray(list) ? list : [];
}

function listPath(manifest: JsonObject, key: string): (string | number)[] {
  const capabilities = isObject(manifest.capabilities) ? manifest.capabilities : {};
  return Array.isArray(capabilities[key]) || !Array.isArray(manifest[key]) ? ['capabilities', key] : [key];
}

interface CheckedTool {
  name: string;
  /** Parameters in the order of key segments: our extension's, else the inputSchema's. */
  parameterOrder: string[];
  inputSchema: JsonObject;
}

function checkTools(manifest: JsonObject, report: Report): CheckedTool[] {
  const tools: CheckedTool[] = [];
  const seen = new Set<string>();
  const base = listPath(manifest, 'tools');
  listOf(manifest, 'tools').forEach((raw, index) => {
    if (!isObject(raw)) {
      report(at(...base, index), 'is not an object', 'describe each tool as {name, description, inputSchema}');
      return;
    }
    const name = raw.name;
    if (typeof name !== 'string') {
      report(at(...base, index, 'name'), 'is missing or not a string', 'give the tool a name');
      return;
    }
    if (!TOOL_NAME.test(name)) {
      report(
        at(...base, index, 'name'),
        `tool name ${JSON.stringify(name)} does not match ${TOOL_NAME.source}, and MCP clients reject the whole server over one such name`,
        `rename the tool using only ${TOOL_NAME_IN_WORDS}; for a staticmcp project, rename the script or set "name" in its .meta.json`,
      );
    }
    if (seen.has(name)) {
      report(
        at(...base, index, 'name'),
        `tool name ${JSON.stringify(name)} is listed twice`,
        'give every tool its own name',
      );
      return;
    }
    seen.add(name);
    const schema = raw.inputSchema;
    if (!isObject(schema) || schema.type !== 'object') {
      report(
        at(...base, index, 'inputSchema'),
        isObject(schema) ? `has type ${JSON.stringify(schema.type)}, not "object"` : 'is missing or not an object',
        'give the tool an inputSchema {"type": "object", "properties": {…}} (MCP requires an object schema)',
      );
    }
    const properties = isObject(schema) && isObject(schema.properties) ? Object.keys(schema.properties) : [];
    tools.push({ name, parameterOrder: properties, inputSchema: isObject(schema) ? schema : { type: 'object' } });
  });
  return tools;
}

async function checkResources(
  manifest: JsonObject,
  extension: JsonObject | undefined,
  reader: CachedTreeReader,
  report: Report,
): Promise<number> {
  const stateResources = extension && isObject(extension.stateResources) ? extension.stateResources : {};
  const seen = new Set<string>();
  const base = listPath(manifest, 'resources');
  const list = listOf(manifest, 'resources');
  for (const [index, raw] of list.entries()) {
    if (!isObject(raw)) {
      report(at(...base, index), 'is not an object', 'describe each resource as {uri, name, description, mimeType}');
      continue;
    }
    const uri = raw.uri;
    if (typeof raw.name !== 'string')
      report(at(...base, index, 'name'), 'is missing or not a string', 'give the resource a human-readable name');
    if (typeof uri !== 'string' || uri === '') {
      report(
        at(...base, index, 'uri'),
        'is missing or not a non-empty string',
        'give the resource its URI (e.g. "docs://guide")',
      );
      continue;
    }
    if (seen.has(uri)) {
      report(at(...base, index, 'uri'), `${uri} is listed twice`, 'list each resource once');
      continue;
    }
    seen.add(uri);
    // State resources are read live by running their script; they have no file by design.
    if (typeof stateResources[uri] === 'string') continue;
    await checkResourceFile(uri, extension !== undefined, reader, report);
  }
  return list.length;
}

async function checkResourceFile(uri: string, ours: boolean, reader: CachedTreeReader, report: Report): Promise<void> {
  const candidates = resourceFilePaths(uri, ours);
  for (const candidate of candidates) {
    const file = await reader.readJson(candidate);
    if (file.kind === 'missing') continue;
    if (file.kind === 'broken') {
      report(
        candidate,
        `resource ${uri}: ${file.reason}`,
        `write it as JSON {"uri", "mimeType", "text"}, or ${REBUILD}`,
      );
      return;
    }
    const value = file.value;
    const written =
      isObject(value) && Array.isArray(value.contents)
        ? value.contents.filter(isObject)
        : isObject(value)
          ? [value]
          : [];
    for (const item of written) {
      if (typeof item.uri === 'string' && item.uri !== uri) {
        report(
          candidate,
          `says it holds ${item.uri}, but mcp.json lists it for ${uri}`,
          `make the two URIs agree, or ${REBUILD}`,
        );
        return;
      }
    }
    // Our profile writes one shape; anything else in our tree means the file was not written by us.
    if (ours && !(isObject(value) && (typeof value.text === 'string' || typeof value.blob === 'string'))) {
      report(
        candidate,
        `resource ${uri} is not in the {uri, mimeType, text|blob} shape this tree's generator writes`,
        REBUILD,
      );
    }
    return;
  }
  // The last candidate is the encoded path, where our profile writes the file.
  const expected = candidates.at(-1);
  if (expected !== undefined)
    report(
      expected,
      `is missing: resource ${uri} has no file, so resources/read fails`,
      `${REBUILD}, or remove the resource from mcp.json`,
    );
}

function checkTemplates(manifest: JsonObject, report: Report): number {
  const base = listPath(manifest, 'resourceTemplates');
  const list = listOf(manifest, 'resourceTemplates');
  list.forEach((raw, index) => {
    if (!isObject(raw) || typeof raw.uriTemplate !== 'string' || typeof raw.name !== 'string') {
      report(
        at(...base, index),
        'needs a uriTemplate and a name (strings)',
        'describe each template as {uriTemplate, name, description?, mimeType?}',
      );
    }
  });
  return list.length;
}

async function checkPrompts(
  manifest: JsonObject,
  ours: boolean,
  reader: CachedTreeReader,
  report: Report,
): Promise<number> {
  const base = listPath(manifest, 'prompts');
  const list = listOf(manifest, 'prompts');
  for (const [index, raw] of list.entries()) {
    if (!isObject(raw) || typeof raw.name !== 'string') {
      report(at(...base, index, 'name'), 'is missing or not a string', 'give the prompt a name');
      continue;
    }
    // Prompt files are our extension; other generators keep prompts however they like.
    if (!ours) continue;
    const filePath = promptFilePath(raw.name);
    const file = await reader.readJson(filePath);
    if (file.kind !== 'ok') {
      report(
        filePath,
        file.kind === 'missing' ? `is missing: prompt ${raw.name} cannot be rendered` : file.reason,
        `${REBUILD}, or remove the prompt from mcp.json`,
      );
    }
  }
  return list.length;
}

async function checkExtensionFiles(
  extension: JsonObject,
  tools: CheckedTool[],
  reader: CachedTreeReader,
  report: Report,
): Promise<void> {
  const toolExtensions = isObject(extension.tools) ? extension.tools : undefined;
  if (!toolExtensions) {
    report(at(EXTENSION_KEY, 'tools'), 'is missing or not an object', REBUILD);
  } else {
    const names = new Set(tools.map((tool) => tool.name));
    for (const tool of tools) {
      const entry = toolExtensions[tool.name];
      if (
        !isObject(entry) ||
        !Array.isArray(entry.parameterOrder) ||
        !entry.parameterOrder.every((name) => typeof name === 'string')
      ) {
        report(
          at(EXTENSION_KEY, 'tools', tool.name),
          'is missing, or has no parameterOrder (an array of names)',
          REBUILD,
        );
        continue;
      }
      tool.parameterOrder = entry.parameterOrder as string[];
    }
    for (const name of Object.keys(toolExtensions)) {
      if (!names.has(name))
        report(at(EXTENSION_KEY, 'tools', name), `describes a tool that capabilities.tools does not list`, REBUILD);
    }
  }
  if (typeof extension.contentHash !== 'string')
    report(at(EXTENSION_KEY, 'contentHash'), 'is missing or not a string', REBUILD);
  // The owner's TTL (2026-07-28 ttlMs, _headers max-age): a bad value would be ignored by every
  // bridge and the default used instead, which is not what the owner asked for.
  if (extension.cache !== undefined) {
    const ttl = isObject(extension.cache) ? extension.cache.ttlSeconds : undefined;
    if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 0 || ttl > MAX_CACHE_TTL_SECONDS) {
      report(
        at(EXTENSION_KEY, 'cache', 'ttlSeconds'),
        `must be a whole number of seconds from 0 to ${MAX_CACHE_TTL_SECONDS} (bridges use ${DEFAULT_CACHE_TTL_SECONDS} instead)`,
        REBUILD,
      );
    }
  }
  if (typeof extension.completions === 'string') {
    const file = await reader.readJson(extension.completions);
    if (file.kind !== 'ok')
      report(
        extension.completions,
        file.kind === 'missing' ? 'is missing: completions cannot be answered' : file.reason,
        REBUILD,
      );
  }
}

/** Every listed file: call files parsed (and, in our trees, their keys checked), the content hash recomputed. */
async function checkListedFiles(
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
function checkServable(
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
    'put it where the bridge looks for its arguments (tools/<tool>/<value>/….json, a folder per argument, raw or encoded values; README "Checking a tree"), or widen the tool\'s inputSchema',
  );
}

/** Checks one call file: 'copy' when it sits at a key with defaulted arguments left out (for other bridges). */
function checkCallFile(
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

// The manifest of a tree, read once at start and indexed: tools by name, resources by their exact
// URI string (never normalised by a URL parser), prompts by name, our extension when the tree is ours.
import { EXTENSION_KEY, isOurExtension, MANIFEST_FILE } from '../tree/manifest.js';
import type { ReadOutcome, TreeSource } from '../tree/tree-source.js';
import { isObject, type JsonObject } from '../tree/json-object.js';
import { readTreeExtension, type TreeExtension, type TreeToolExtension } from './tree-extension.js';
import type { PackFileSource, PackIndexCache } from '../packs/pack-reader.js';
import type { PackTable } from '../packs/pack-table.js';
import { parseResourceList, type ResourceListParts } from '../tree/resource-list.js';
// Types only: the search modules load when a manifest names a search index.
import type { SearchReader } from '../search/search-reader.js';

export interface TreeTool {
  definition: JsonObject & { name: string; inputSchema: JsonObject };
  /** Property names in declaration order. */
  declaredParameters: string[];
  extension?: TreeToolExtension;
  /** Our search or fetch tool (issue #25), answered from the tree's search index, not a call file. */
  searchTool?: 'search' | 'fetch';
}

export interface TreeResource {
  definition: JsonObject & { uri: string; name: string };
}

export interface TreePrompt {
  definition: JsonObject & { name: string };
}

export interface LoadedTree {
  source: TreeSource;
  serverInfo: JsonObject & { name: string; version: string };
  instructions?: string;
  tools: TreeTool[];
  toolsByName: Map<string, TreeTool>;
  resources: TreeResource[];
  resourcesByUri: Map<string, TreeResource>;
  templates: JsonObject[];
  prompts: TreePrompt[];
  promptsByName: Map<string, TreePrompt>;
  extension?: TreeExtension;
  /** Identifies this build of the tree (cursors are bound to it). */
  manifestHash: string;
  /** Answers the search and fetch tools, when the tree has a search index and the host its bytes. */
  search?: SearchReader;
  /**
   * The pack table of a packed tree (our extension's `packs`, parsed with the manifest), or what is
   * wrong with it; undefined when the tree names no packs. Hosts decide from it, once, whether
   * the tree's calls are read from packs.
   */
  packs?: { table: PackTable } | { problem: string };
  /**
   * The resource list past the inline entries (our extension's `resourceList`): its part files,
   * read a page at a time by `resources/list`; undefined when the whole list is inline (or the
   * table is unusable, told to `onProblem`: the inline entries still serve).
   */
  resourceList?: ResourceListParts;
}

export interface LoadTreeOptions {
  /**
   * Binary reads of the same tree: a host that gives them answers the search and fetch tools of a
   * tree with a search index (hosts that do not, list neither).
   */
  packFiles?: PackFileSource;
  /**
   * The index and whole-pack cache the search reader uses: the edge worker passes the one its
   * packed calls use, so an isolate holds one bounded cache, not one per reader.
   */
  packCache?: PackIndexCache;
  /** Told why a tree's search index is not used or a part of it was refused. */
  onProblem?: (text: string) => void;
}

/** Reads and indexes `mcp.json`; throws an Error with a readable message when it is unusable. */
export async function loadTree(source: TreeSource, options: LoadTreeOptions = {}): Promise<LoadedTree> {
  const outcome = await source.read(MANIFEST_FILE);
  if (outcome.status !== 'ok')
    throw new Error(
      `${source.displayName} has no ${MANIFEST_FILE}: is it a StaticMCP tree (the output of staticmcp build)?`,
    );
  let manifest: unknown;
  try {
    manifest = JSON.parse(outcome.text);
  } catch (error) {
    throw new Error(`${MANIFEST_FILE} in ${source.displayName} is not valid JSON (${(error as Error).message})`);
  }
  if (!isObject(manifest)) throw new Error(`${MANIFEST_FILE} in ${source.displayName} is not a JSON object`);
  const capabilities = isObject(manifest.capabilities) ? manifest.capabilities : {};
  // Some generators put the lists at the top level.
  const listOf = (key: string): unknown[] => {
    const list = Array.isArray(capabilities[key]) ? capabilities[key] : manifest[key as keyof typeof manifest];
    return Array.isArray(list) ? list : [];
  };
  const tools: TreeTool[] = [];
  const toolsByName = new Map<string, TreeTool>();
  for (const raw of listOf('tools')) {
    if (!isObject(raw) || typeof raw.name !== 'string' || toolsByName.has(raw.name)) continue;
    const inputSchema = isObject(raw.inputSchema) ? raw.inputSchema : { type: 'object' };
    const definition = {
      ...raw,
      name: raw.name,
      inputSchema: isObject(raw.inputSchema) ? raw.inputSchema : { type: 'object', properties: {} },
    };
    const properties = isObject(inputSchema.properties) ? inputSchema.properties : {};
    const tool: TreeTool = { definition, declaredParameters: Object.keys(properties) };
    tools.push(tool);
    toolsByName.set(raw.name, tool);
  }
  // A search-only extension (staticmcp index over another generator's tree) leaves the tree foreign.
  const extension = readTreeExtension(
    isOurExtension(manifest[EXTENSION_KEY]) ? manifest[EXTENSION_KEY] : undefined,
    (name) => toolsByName.get(name)?.declaredParameters ?? [],
  );
  for (const tool of tools) tool.extension = extension?.tools[tool.definition.name];

  const rawExtension = manifest[EXTENSION_KEY];
  const packs = isObject(rawExtension) ? await readPackTable(rawExtension) : undefined;
  const search =
    options.packFiles !== undefined && isObject(rawExtension) && rawExtension.search !== undefined
      ? await loadSearch(rawExtension, source, toolsByName, options.packFiles, { ...options, packs })
      : undefined;
  if (search) {
    for (const tool of search.tools) {
      tools.push(tool);
      toolsByName.set(tool.definition.name, tool);
    }
  }

  const resources: TreeResource[] = [];
  const resourcesByUri = new Map<string, TreeResource>();
  for (const raw of listOf('resources')) {
    if (!isObject(raw) || typeof raw.uri !== 'string' || resourcesByUri.has(raw.uri)) continue;
    const resource = { definition: { ...raw, uri: raw.uri, name: typeof raw.name === 'string' ? raw.name : raw.uri } };
    resources.push(resource);
    resourcesByUri.set(raw.uri, resource);
  }
  const parsedList = isObject(rawExtension)
    ? parseResourceList(rawExtension.resourceList, resources.length)
    : undefined;
  if (parsedList !== undefined && 'problem' in parsedList)
    options.onProblem?.(`${MANIFEST_FILE}: ${parsedList.problem}; only the resources it lists inline are listed`);
  const resourceList = parsedList !== undefined && !('problem' in parsedList) ? parsedList : undefined;
  const templates = listOf('resourceTemplates').filter(
    (raw): raw is JsonObject => isObject(raw) && typeof raw.uriTemplate === 'string',
  );

  const prompts: TreePrompt[] = [];
  const promptsByName = new Map<string, TreePrompt>();
  for (const raw of listOf('prompts')) {
    if (!isObject(raw) || typeof raw.name !== 'string' || promptsByName.has(raw.name)) continue;
    const prompt = { definition: { ...raw, name: raw.name } };
    prompts.push(prompt);
    promptsByName.set(raw.name, prompt);
  }

  const info = isObject(manifest.serverInfo) ? manifest.serverInfo : {};
  const serverInfo = {
    ...info,
    name: typeof info.name === 'string' ? info.name : typeof manifest.name === 'string' ? manifest.name : 'staticmcp',
    version:
      typeof info.version === 'string'
        ? info.version
        : typeof manifest.version === 'string'
          ? manifest.version
          : '0.0.0',
  };
  const contentHash = extension?.contentHash;
  return {
    source,
    serverInfo,
    instructions: typeof manifest.instructions === 'string' ? manifest.instructions : undefined,
    tools,
    toolsByName,
    resources,
    resourcesByUri,
    templates,
    prompts,
    promptsByName,
    extension,
    manifestHash: contentHash ?? (await hashText(outcome.text)),
    ...(search ? { search: search.reader } : {}),
    ...(packs ? { packs } : {}),
    ...(resourceList ? { resourceList } : {}),
  };
}

/**
 * The extension's pack table: undefined when it names none (or an empty one). The pack modules
 * load only for a packed tree, so an unpacked tree's hosts start with no more modules.
 */
async function readPackTable(extension: JsonObject): Promise<LoadedTree['packs']> {
  if (extension.packs === undefined) return undefined;
  const { parsePackTable } = await import('../packs/pack-table.js');
  const parsed = parsePackTable(extension.packs);
  return 'table' in parsed && parsed.table.size === 0 ? undefined : parsed;
}

/**
 * The search and fetch tools over the tree's index; undefined when the manifest's table is not
 * usable (told to `onProblem`) or the tree lists a tool of either name (the tree's own tool wins).
 */
async function loadSearch(
  extension: JsonObject,
  source: TreeSource,
  toolsByName: ReadonlyMap<string, TreeTool>,
  packFiles: PackFileSource,
  { onProblem, packCache, packs }: LoadTreeOptions & { packs: LoadedTree['packs'] },
): Promise<{ reader: SearchReader; tools: TreeTool[] } | undefined> {
  if (toolsByName.has('search') || toolsByName.has('fetch')) return undefined;
  const [{ parseSearchIndexManifest }, { SearchReader }, { SEARCH_TOOL, FETCH_TOOL }, { PackIndexCache }] =
    await Promise.all([
      import('../search/search-index-format.js'),
      import('../search/search-reader.js'),
      import('../search/search-results.js'),
      import('../packs/pack-reader.js'),
    ]);
  // Inline rows' index paths are checked as the reader reads each index (pack-reader.ts).
  const parsed = parseSearchIndexManifest(extension.search, 'on-read');
  if ('problem' in parsed) {
    onProblem?.(`${MANIFEST_FILE}: ${parsed.problem}; the search and fetch tools are left out`);
    return undefined;
  }
  // One index cache for the index's parts and the packed calls fetch reads (the worker's packed
  // calls too, when it passes its own): one bound for all.
  const indexCache = packCache ?? new PackIndexCache();
  const readCall = await callReaderOf(packs, source, packFiles, indexCache, onProblem);
  // A table kept in its own file is read by the reader on its first search (mcp.json loads stay small).
  const reader = new SearchReader(packFiles, 'table' in parsed ? parsed.table : parsed, {
    onProblem,
    indexCache,
    readCall,
  });
  const tool = (definition: typeof SEARCH_TOOL | typeof FETCH_TOOL, searchTool: 'search' | 'fetch'): TreeTool => ({
    definition: structuredClone(definition) as unknown as TreeTool['definition'],
    declaredParameters: Object.keys(definition.inputSchema.properties),
    searchTool,
  });
  return { reader, tools: [tool(SEARCH_TOOL, 'search'), tool(FETCH_TOOL, 'fetch')] };
}

/**
 * How fetch reads a call a document points at, the way tools/call finds it: a packed tool's calls
 * from its packs (the hosts' `source` may not read packs itself: the worker wraps it after loading),
 * any other call file through `source`. The id is checked as a call file's path before this runs.
 */
async function callReaderOf(
  packs: LoadedTree['packs'],
  source: TreeSource,
  packFiles: PackFileSource,
  indexCache: PackIndexCache,
  onProblem: ((text: string) => void) | undefined,
): Promise<(treePath: string) => Promise<ReadOutcome>> {
  const plain = (treePath: string) => source.read(treePath);
  // A malformed table is reported by the tree's own packed reads; fetch then reads plain files only.
  if (packs === undefined || 'problem' in packs) return plain;
  const { PackedTreeSource } = await import('../packs/packed-tree-source.js');
  const packed = new PackedTreeSource(source, packFiles, packs.table, { cacheLimits: indexCache, onProblem });
  return (treePath) => packed.read(treePath);
}

/** Only for trees without our content hash (so the hashing module loads only for them, not at every start). */
async function hashText(text: string): Promise<string> {
  const { sha256Hex } = await import('../tree/sha256.js');
  return `sha256:${await sha256Hex(text)}`;
}

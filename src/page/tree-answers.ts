// The playground's answers read from the tree's own files, for hosts with no /mcp (GitHub Pages, any
// static host): the same reader, pack reader, key encoder and lenient file shapes the bridge and the
// worker use (src/core, src/hosts/edge's fetch source), so the page finds exactly the file a client
// of `staticmcp serve <site>` would get, packed tree or not.
import { applyDefaults, callFilePath } from '../core/tree/call-key.js';
import { sameJson } from '../core/tree/canonical-json.js';
import { lenientCallFilePaths } from '../core/tree/lenient-call-keys.js';
import { readCallFile, readResourceFile } from '../core/tree/lenient-files.js';
import { isObject, type JsonObject } from '../core/tree/json-object.js';
import { EXTENSION_KEY, MANIFEST_FILE, promptFilePath } from '../core/tree/manifest.js';
import { renderPromptTemplate } from '../core/tree/prompt-template.js';
import { resourceFilePath } from '../core/tree/resource-key.js';
import { CachedTreeReader } from '../core/tree-reading/cached-tree-reader.js';
import { loadTree, type LoadedTree, type TreeTool } from '../core/tree-reading/loaded-tree.js';
import { couldBePrecomputed } from '../core/mcp/precomputable-call.js';
import { ManifestPackedSource } from '../core/packs/manifest-packed-source.js';
import { createAssetTreeSource } from '../hosts/edge/asset-tree-source.js';

/** An answer, or why there is none (the page then shows the command that answers it). */
export type TreeAnswer = { result: JsonObject } | { miss: string };

export interface TreeFiles {
  tree: LoadedTree;
  /** mcp.json has `staticmcp.search` (a search index, issue 25): the page offers a search box. */
  hasSearch: boolean;
  callTool(name: string, args: JsonObject): Promise<TreeAnswer>;
  readResource(uri: string, mimeType: string | undefined): Promise<TreeAnswer>;
  getPrompt(name: string, args: Record<string, string>): Promise<TreeAnswer>;
  /** Per tool, per parameter, the values of the tree's completions.json; undefined when it has none. */
  readToolValues(): Promise<Record<string, Record<string, string[]>> | undefined>;
}

/** The declared arguments only, as the server keys them (tool-calls.ts declaredOnly). */
function declaredOnly(tool: TreeTool, args: JsonObject): JsonObject {
  if (tool.declaredParameters.length === 0 && !tool.extension) return args;
  return Object.fromEntries(Object.entries(args).filter(([name]) => tool.declaredParameters.includes(name)));
}

/** Opens the tree at `siteRoot` (a URL ending in `/`) through same-origin fetches only. */
export async function openTreeFiles(siteRoot: URL): Promise<TreeFiles> {
  const assets = createAssetTreeSource({ fetch: (request) => fetch(request) }, siteRoot);
  const source = new ManifestPackedSource(assets, assets);
  // mcp.json is read once: loadTree indexes it, and its raw text says what loadTree does not keep.
  let manifestText = '';
  const tree = await loadTree(
    {
      displayName: source.displayName,
      revalidateAfterMs: source.revalidateAfterMs,
      async read(path, etag) {
        const outcome = await source.read(path, etag);
        if (path === MANIFEST_FILE && outcome.status === 'ok') manifestText = outcome.text;
        return outcome;
      },
      close: () => source.close(),
    },
    { packFiles: assets },
  );
  let hasSearch = false;
  try {
    const raw: unknown = JSON.parse(manifestText);
    hasSearch = isObject(raw) && isObject(raw[EXTENSION_KEY]) && raw[EXTENSION_KEY].search !== undefined;
  } catch {
    // loadTree has parsed it already; nothing more to learn.
  }
  const reader = new CachedTreeReader(source);

  async function readJson(path: string): Promise<{ value: unknown } | { miss: string }> {
    const file = await reader.readJson(path);
    if (file.kind === 'missing') return { miss: `${path} is not in this tree` };
    if (file.kind === 'broken') return { miss: `${path} cannot be read (${file.reason})` };
    return { value: file.value };
  }

  return {
    tree,
    hasSearch,
    async readToolValues() {
      const path = tree.extension?.completions;
      if (path === undefined) return undefined;
      const file = await readJson(path);
      if ('miss' in file || !isObject(file.value)) return undefined;
      const tools = file.value['ref/tool'];
      if (!isObject(tools)) return {};
      const values: Record<string, Record<string, string[]>> = {};
      for (const [tool, parameters] of Object.entries(tools)) {
        if (!isObject(parameters)) continue;
        values[tool] = Object.fromEntries(
          Object.entries(parameters).map(([name, list]) => [
            name,
            Array.isArray(list) ? list.filter((value) => typeof value === 'string') : [],
          ]),
        );
      }
      return values;
    },
    async callTool(name, given) {
      // The search and fetch tools read the tree's search index, as every host answers them.
      if (tree.search && (name === 'search' || name === 'fetch'))
        return {
          result: (await (name === 'search' ? tree.search.search(given) : tree.search.fetch(given))) as JsonObject,
        };
      const tool = tree.toolsByName.get(name);
      if (!tool) return { miss: `${name} is not a tool of this tree` };
      const withDefaults = declaredOnly(tool, applyDefaults(tool.definition.inputSchema, given));
      if (!couldBePrecomputed(tool, withDefaults)) return { miss: 'this call was not precomputed' };
      const paths = tool.extension
        ? [callFilePath(name, tool.extension.parameterOrder, withDefaults)]
        : lenientCallFilePaths(name, tool.declaredParameters, [declaredOnly(tool, given), withDefaults]);
      for (const path of paths) {
        const file = await readJson(path);
        if ('miss' in file) continue;
        const { result, recordedArguments } = readCallFile(file.value);
        // Two argument sets can share a file name: the file must say it answers exactly these.
        if (recordedArguments && !sameJson(recordedArguments, withDefaults) && !sameJson(recordedArguments, given))
          continue;
        return { result };
      }
      return { miss: 'this call was not precomputed' };
    },
    async readResource(uri, mimeType) {
      const file = await readJson(resourceFilePath(uri));
      if ('miss' in file) return { miss: `${uri} has no stored copy in this tree` };
      return { result: { contents: readResourceFile(file.value, uri, mimeType) } };
    },
    async getPrompt(name, values) {
      const file = await readJson(promptFilePath(name));
      if ('miss' in file) return file;
      const stored = file.value;
      if (isObject(stored) && typeof stored.template === 'string')
        return {
          result: {
            messages: [
              { role: 'user', content: { type: 'text', text: renderPromptTemplate(stored.template, values) } },
            ],
          },
        };
      if (isObject(stored) && Array.isArray(stored.messages)) {
        const render = (value: unknown): unknown =>
          typeof value === 'string'
            ? renderPromptTemplate(value, values)
            : Array.isArray(value)
              ? value.map(render)
              : isObject(value)
                ? Object.fromEntries(Object.entries(value).map(([key, item]) => [key, render(item)]))
                : value;
        return { result: { messages: stored.messages.map(render) as JsonObject[] } };
      }
      return { miss: `${promptFilePath(name)} holds no template or messages` };
    },
  };
}

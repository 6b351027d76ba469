// A tree's search documents (issue #25), from its files alone: the one definition the build's
// search step, `staticmcp merge` and `staticmcp index` share, so the same tree gives the same
// documents (and so the same index bytes) whichever of them indexes it. Portable: it reads through
// `TreeDocumentFiles`, which a TreeWriter (build, merge) or a folder (index) provides.
// - Text resources of the manifest's resource list, inline and in its parts (blobs, MCP App pages and state resources read
//   live skipped): id = the resource's file (resources/….json, or the raw name another generator used),
//   title = its title, else its name; text = its text contents; metadata = {uri, mimeType}.
// - Precomputed calls of the tools `settings.tools` names, plain (tools/<tool>/….json) or packed
//   (packs/<tool>/, one record per call whose first name is the call's own file): id = the call's
//   file; a left-out-default copy is not a document of its own (in a pack: the record's other
//   names; plain: a file whose recorded arguments key another file the tree holds). text = the
//   result's text items joined by a blank line (its structured content as JSON when it has none);
//   error and empty results skipped (call-text.ts, shared with fetch, which reads the call again:
//   a call's document is marked `textFrom: "call"` and the index keeps no copy of its text).
//   title = the tool's template over the arguments (`{name}`), else the argument values joined by
//   ", ", else the tool's name. A call file that records no
//   arguments (another generator's) takes them from its path segments, in parameter order.
// - url, stored as the host answers it before making it absolute (document-url.ts): a resource's
//   own page (its `_meta` "staticmcp/url": a canonical URL, or a built site's page path), else, in
//   a tree of ours, the landing page's view of the document (`?doc=<id>`, or
//   `staticmcp.html?doc=<id>` when a site brought its own index.html); in another generator's
//   tree, which has no such view, publicUrl + "/" + id, or "" without a publicUrl.
// A file that cannot be read or parsed is skipped and told to `onSkip`, never thrown.
import { isObject, type JsonObject } from '../tree/json-object.js';
import { readCallFile } from '../tree/lenient-files.js';
import { callFilePath } from '../tree/call-key.js';
import { EXTENSION_KEY } from '../tree/manifest.js';
import { findTreePathProblem } from '../tree/tree-path.js';
import { parseIndex, parsePack } from '../packs/pack-format.js';
import type { IndexedDocument } from './search-results.js';
import { callDocumentText, toolOfCallFile } from './call-text.js';
import { type KeptSources, parseJson } from './resource-document-source.js';
import type { DocumentSettings, TreeDocumentFiles } from './tree-document-files.js';
import { readOrSkip, resourceDocumentBatches, urlOf, type ViewSite, viewSiteOf } from './resource-documents.js';

export { toolOfCallFile };
export type { DocumentSettings, KeptSources, TreeDocumentFiles };

/** A call's document points at its call (`textFrom`): the index keeps its text once, in the call. */
export type SearchDocument = IndexedDocument;

/** `template` with each {name} replaced by that argument's value ("" when absent). */
function fillTemplate(template: string, args: JsonObject): string {
  return template.replace(/\{([^{}]+)\}/g, (_, name: string) => {
    const value = args[name];
    return value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  });
}

interface ToolShape {
  parameterOrder: string[];
}

/** Each tool's parameter order: our extension's, else its inputSchema's property order. */
function toolShapes(manifest: JsonObject): Map<string, ToolShape> {
  const shapes = new Map<string, ToolShape>();
  const capabilities = isObject(manifest.capabilities) ? manifest.capabilities : {};
  const extension = isObject(manifest[EXTENSION_KEY]) ? manifest[EXTENSION_KEY] : {};
  const extensionTools = isObject(extension.tools) ? extension.tools : {};
  for (const tool of Array.isArray(capabilities.tools) ? capabilities.tools : []) {
    if (!isObject(tool) || typeof tool.name !== 'string') continue;
    const recorded = Object.hasOwn(extensionTools, tool.name) ? extensionTools[tool.name] : undefined;
    const order =
      isObject(recorded) && Array.isArray(recorded.parameterOrder)
        ? recorded.parameterOrder.filter((name): name is string => typeof name === 'string')
        : Object.keys(
            isObject(tool.inputSchema) && isObject(tool.inputSchema.properties) ? tool.inputSchema.properties : {},
          );
    shapes.set(tool.name, { parameterOrder: order });
  }
  return shapes;
}

/**
 * The arguments a plain call file's path spells, in parameter order, for files that record none:
 * a segment each, the last parameter taking the rest (docusaurus-smg keys its one `uri` argument
 * by the document's path, `/` and all).
 */
function argumentsOfPath(filePath: string, tool: string, order: readonly string[]): JsonObject {
  const segments = filePath.slice(`tools/${tool}/`.length, -'.json'.length).split('/');
  const args: JsonObject = {};
  if (order.length === 0 || segments.length < order.length) return args;
  order.forEach((name, position) => {
    args[name] = position < order.length - 1 ? segments[position]! : segments.slice(position).join('/');
  });
  return args;
}

function callDocument(
  id: string,
  tool: string,
  value: unknown,
  order: readonly string[],
  settings: DocumentSettings,
  site: ViewSite,
): SearchDocument | undefined {
  const read = callDocumentText(value);
  if ('problem' in read) return undefined;
  const { text, recordedArguments } = read;
  const args = recordedArguments ?? argumentsOfPath(id, tool, order);
  const template = settings.tools[tool]?.title;
  const values = Object.values(args).map((item) => (typeof item === 'string' ? item : JSON.stringify(item)));
  const title = template !== undefined ? fillTemplate(template, args) : values.join(', ') || tool;
  return {
    id,
    title,
    text,
    url: urlOf(settings, id, site),
    metadata: { tool, arguments: args },
    textFrom: 'call',
  };
}

async function* packedCallDocuments(
  tool: string,
  files: TreeDocumentFiles,
  settings: DocumentSettings,
  order: readonly string[],
  onSkip: (treePath: string, reason: string) => void,
  site: ViewSite,
): AsyncGenerator<SearchDocument> {
  const rows = files.packs?.get(tool) ?? [];
  const packFiles = files.packFiles;
  if (packFiles === undefined) return;
  const packPaths = new Set<string>();
  for (const row of rows) {
    const read = await packFiles.readBytes(row.index).catch((error: unknown) => {
      onSkip(row.index, `cannot be read (${error instanceof Error ? error.message : String(error)})`);
      return undefined;
    });
    if (read === undefined) continue;
    if (read.status === 'missing') {
      onSkip(row.index, 'is missing: the calls of its key range are not indexed');
      continue;
    }
    const index = parseIndex(read.bytes, row.index);
    if ('status' in index) {
      onSkip(row.index, index.reason);
      continue;
    }
    for (const pack of index.packs) packPaths.add(pack.path);
  }
  for (const packPath of [...packPaths].sort()) {
    const read = await packFiles.readBytes(packPath).catch(() => undefined);
    if (read === undefined || read.status === 'missing') {
      onSkip(packPath, 'is missing or cannot be read: its calls are not indexed');
      continue;
    }
    const pack = parsePack(read.bytes, packPath);
    if ('status' in pack) {
      onSkip(packPath, pack.reason);
      continue;
    }
    for (const { record } of pack.records) {
      const [id] = record.names;
      if (id === undefined || findTreePathProblem(id) !== undefined || toolOfCallFile(id) !== tool) continue;
      const parsed = parseJson(record.body);
      if (parsed === undefined) {
        onSkip(id, `in ${packPath} is not JSON`);
        continue;
      }
      const document = callDocument(id, tool, parsed.value, order, settings, site);
      if (document) yield document;
    }
  }
}

/**
 * The tree's documents, one at a time (the index writer sorts them by id: the order here does not
 * change its bytes). Skipped files are told to `onSkip` (path, why).
 */
export async function* listTreeDocuments(
  files: TreeDocumentFiles,
  settings: DocumentSettings,
  onSkip: (treePath: string, reason: string) => void = () => {},
): AsyncGenerator<SearchDocument> {
  for await (const batch of listTreeDocumentBatches(files, settings, onSkip)) yield* batch;
}

/** listTreeDocuments a batch at a time (the build's index writer takes them so: one await a batch). */
export async function* listTreeDocumentBatches(
  files: TreeDocumentFiles,
  settings: DocumentSettings,
  onSkip: (treePath: string, reason: string) => void = () => {},
): AsyncGenerator<SearchDocument[]> {
  if (settings.resources) yield* resourceDocumentBatches(files, settings, onSkip);
  const indexed = Object.keys(settings.tools);
  if (indexed.length === 0) return;
  const shapes = toolShapes(files.manifest);
  const site = viewSiteOf(files);
  for (const tool of indexed.sort()) {
    if (!files.packs?.has(tool)) continue;
    for await (const document of packedCallDocuments(
      tool,
      files,
      settings,
      shapes.get(tool)?.parameterOrder ?? [],
      onSkip,
      site,
    ))
      yield [document];
  }
  for (const filePath of files.paths()) {
    const tool = toolOfCallFile(filePath);
    if (tool === undefined || !Object.hasOwn(settings.tools, tool) || files.packs?.has(tool)) continue;
    const bytes = await readOrSkip(files, filePath, onSkip);
    if (bytes === undefined) continue;
    const parsed = parseJson(bytes);
    if (parsed === undefined) {
      onSkip(filePath, 'is not JSON');
      continue;
    }
    const order = shapes.get(tool)?.parameterOrder ?? [];
    const { recordedArguments } = readCallFile(parsed.value);
    if (recordedArguments !== undefined) {
      // A left-out-default copy: its arguments key another file of the tree, the call's own.
      const own = callFilePath(tool, order, recordedArguments);
      if (own !== filePath && files.has(own)) continue;
    }
    const document = callDocument(filePath, tool, parsed.value, order, settings, site);
    if (document) yield [document];
  }
}

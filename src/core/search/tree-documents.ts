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
import type { Stemming } from './stem.js';
import { isObject, type JsonObject } from '../tree/json-object.js';
import { readCallFile } from '../tree/lenient-files.js';
import { callFilePath } from '../tree/call-key.js';
import { isAppResource } from '../tree/mcp-apps.js';
import { isSkillUri } from '../tree/skills.js';
import { EXTENSION_KEY, isOurExtension } from '../tree/manifest.js';
import { findTreePathProblem } from '../tree/tree-path.js';
import { resourceFilePaths } from '../tree/resource-key.js';
import { resourceEntryLists } from '../tree/resource-list.js';
import { callKeyOf, KEY_KIND, parseIndex, parsePack } from '../packs/pack-format.js';
import { DEFAULT_PACK_CACHE_LIMITS, type PackFileSource, PackReader } from '../packs/pack-reader.js';
import { type PackTable, RESOURCE_PACK_GROUP } from '../packs/pack-table.js';
import type { IndexedDocument } from './search-results.js';
import { StringSet } from './string-set.js';
import { callDocumentText, toolOfCallFile } from './call-text.js';
import { DOCUMENT_URL_META_KEY, documentViewUrl, MOVED_LANDING_FILE } from './document-url.js';
import {
  type KeptSources,
  keptResourceDocument,
  parseJson,
  resourceText,
  sourceKeyOf,
} from './resource-document-source.js';

export { toolOfCallFile };
export type { KeptSources };

/** Which documents to make (staticmcp.json's `search`, or `staticmcp index`'s options). */
export interface DocumentSettings {
  resources: boolean;
  /** Tools whose precomputed calls are documents; `title` a template over argument names. */
  tools: Readonly<Record<string, { title?: string }>>;
  /** Without its trailing slashes. */
  publicUrl?: string;
  /** How the index stems words (search.language, search.stemming); absent: Porter. */
  stemming?: Stemming;
}

/** What the documents are made from: the manifest's lists, and the tree's files. */
export interface TreeDocumentFiles {
  /** The manifest (as written, or about to be: the build has not written it yet). */
  manifest: JsonObject;
  /** The tree's packs (absent: no packed tool is read). */
  packs?: PackTable;
  /** Every plain file of the tree, tree-relative. */
  paths(): Iterable<string>;
  has(treePath: string): boolean;
  /** A file's bytes, or undefined when the tree lacks it. May throw on I/O failures (told to onSkip). */
  read(treePath: string): Promise<Uint8Array | undefined>;
  /** Binary reads below packs/ (a packed tool's indexes and packs). */
  packFiles?: PackFileSource;
  /**
   * The build's (search-index-step.ts): a file's content digest and synchronous read, and whether
   * the index writer kept the document of a source key. A resource whose source it kept is listed
   * without being read: its `text` reads the file only when asked for (llms-full.txt's first ones).
   */
  keptSources?: KeptSources;
}

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

/** Whether the tree is ours (it has the landing page's document view), and where that page is. */
interface ViewSite {
  ours: boolean;
  landingFile: string;
}

function viewSiteOf(files: TreeDocumentFiles): ViewSite {
  const extension = isObject(files.manifest[EXTENSION_KEY]) ? files.manifest[EXTENSION_KEY] : undefined;
  return { ours: isOurExtension(extension), landingFile: files.has(MOVED_LANDING_FILE) ? MOVED_LANDING_FILE : '' };
}

function urlOf(settings: DocumentSettings, id: string, site: ViewSite, page?: unknown): string {
  if (typeof page === 'string' && page !== '') return page;
  if (site.ours) return documentViewUrl(id, site.landingFile);
  return settings.publicUrl ? `${settings.publicUrl}/${id}` : '';
}

async function readOrSkip(
  files: TreeDocumentFiles,
  treePath: string,
  onSkip: (treePath: string, reason: string) => void,
): Promise<Uint8Array | undefined> {
  try {
    return await files.read(treePath);
  } catch (error) {
    onSkip(treePath, `cannot be read (${error instanceof Error ? error.message : String(error)})`);
    return undefined;
  }
}

/**
 * A resource file from the tree's resource packs (`staticmcp index` over a packed tree: the build
 * and merge index before they pack); null when the packs do not hold it either, undefined when
 * they cannot be read (told to onSkip).
 */
async function readPackedResource(
  files: TreeDocumentFiles,
  treePath: string,
  onSkip: (treePath: string, reason: string) => void,
): Promise<Uint8Array | null | undefined> {
  const rows = files.packs?.get(RESOURCE_PACK_GROUP);
  if (rows === undefined || files.packFiles === undefined) return null;
  let reader = packReaders.get(files);
  if (!reader) {
    reader = new PackReader(files.packFiles, DEFAULT_PACK_CACHE_LIMITS);
    packReaders.set(files, reader);
  }
  const found = await reader.lookup(rows, KEY_KIND.call, callKeyOf(treePath), treePath).catch((error: unknown) => ({
    status: 'refused' as const,
    reason: error instanceof Error ? error.message : String(error),
  }));
  if (found.status === 'ok') return found.body;
  if (found.status === 'missing') return null;
  onSkip(treePath, found.reason);
  return undefined;
}

/** One pack reader per tree being listed (its index cache shared by the tree's resources). */
const packReaders = new WeakMap<TreeDocumentFiles, PackReader>();

async function* resourceDocuments(
  files: TreeDocumentFiles,
  settings: DocumentSettings,
  onSkip: (treePath: string, reason: string) => void,
): AsyncGenerator<SearchDocument> {
  const { manifest } = files;
  const extension = isObject(manifest[EXTENSION_KEY]) ? manifest[EXTENSION_KEY] : undefined;
  const ours = isOurExtension(extension);
  const stateResources = isObject(extension?.stateResources) ? extension.stateResources : {};
  // Asked once: the tree's files do not change while its documents are listed.
  const site = viewSiteOf(files);
  // Every URI listed so far (a repeated one is skipped), held outside the heap (string-set.ts).
  const seen = new StringSet();
  const readPart = async (treePath: string): Promise<unknown> => {
    const bytes = files.has(treePath) ? await files.read(treePath) : undefined;
    return bytes === undefined ? undefined : (parseJson(bytes)?.value ?? null);
  };
  // The inline list, then the parts our extension names (core/tree/resource-list.ts).
  for await (const resources of resourceEntryLists(manifest, readPart, onSkip))
    for (const resource of resources) {
      if (!isObject(resource) || typeof resource.uri !== 'string' || !seen.add(resource.uri)) continue;
      const { uri } = resource;
      // Read live from the project: no file to index. An MCP App's page is a UI, not a document.
      // A skill's files are instructions an agent loads through the Skills extension, not documents.
      if (Object.hasOwn(stateResources, uri) || isAppResource(resource) || isSkillUri(uri)) continue;
      const declaredMime = typeof resource.mimeType === 'string' ? resource.mimeType : undefined;
      const title =
        typeof resource.title === 'string' ? resource.title : typeof resource.name === 'string' ? resource.name : uri;
      const pageOf = (id: string) =>
        urlOf(settings, id, site, isObject(resource._meta) ? resource._meta[DOCUMENT_URL_META_KEY] : undefined);
      const candidates = resourceFilePaths(uri, ours);
      // keptResourceDocument asks for the first candidate's digest, which only a file the tree has has.
      if (files.keptSources !== undefined && candidates[0] !== undefined) {
        const kept = keptResourceDocument(files.keptSources, candidates, {
          uri,
          title,
          url: pageOf,
          mimeType: declaredMime,
        });
        if (kept !== undefined) {
          yield kept;
          continue;
        }
      }
      let found: { id: string; bytes: Uint8Array } | undefined;
      for (const candidate of candidates) {
        const bytes = files.has(candidate)
          ? await readOrSkip(files, candidate, onSkip)
          : await readPackedResource(files, candidate, onSkip);
        if (bytes === null) continue;
        if (bytes !== undefined) found = { id: candidate, bytes };
        break;
      }
      if (found === undefined) {
        onSkip(resourceFilePaths(uri, ours).at(-1) ?? uri, `the file of the resource ${uri} is not in the tree`);
        continue;
      }
      const read = resourceText(found.bytes, uri, declaredMime);
      if (read === undefined) {
        onSkip(found.id, 'is not JSON');
        continue;
      }
      // Binary resources are not documents.
      if (read.text === undefined) continue;
      const { contents } = read;
      const mimeType = declaredMime ?? (typeof contents[0]?.mimeType === 'string' ? contents[0].mimeType : undefined);
      const url = pageOf(found.id);
      const digest = files.keptSources?.digestOf(found.id);
      yield {
        id: found.id,
        title,
        text: read.text,
        url,
        metadata: { uri, ...(mimeType !== undefined ? { mimeType } : {}) },
        // Kept under it for the next build, which then need not read the file.
        ...(mimeType !== undefined && declaredMime !== undefined && digest !== undefined && found.id === candidates[0]
          ? { sourceKey: sourceKeyOf(found.id, title, url, uri, mimeType, digest) }
          : {}),
      };
    }
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
  if (settings.resources) yield* resourceDocuments(files, settings, onSkip);
  const indexed = Object.keys(settings.tools);
  if (indexed.length === 0) return;
  const shapes = toolShapes(files.manifest);
  const site = viewSiteOf(files);
  for (const tool of indexed.sort()) {
    if (files.packs?.has(tool))
      yield* packedCallDocuments(tool, files, settings, shapes.get(tool)?.parameterOrder ?? [], onSkip, site);
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
    if (document) yield document;
  }
}

// The build's search step (issue #25): documents are made from the tree being written
// (core/search/tree-documents.ts, the one lister merge and `staticmcp index` use too, so all three
// index a tree alike) and their index is written below packs/search.index/
// (tree-writer/search-index-spill-writer.ts); the returned value is mcp.json's `staticmcp.search`, whose
// presence declares the search and fetch tools to our readers (other bridges never list them).
// On by default for the text resources (`"search": false` turns it off; call results only for the
// tools `search.tools` names); a project without text resources and no setting gets no index.
// Runs after the content hash (the index is derived from files it covers) and before the pack step
// (which takes call files out). A project tool named search or fetch wins: no index, one warning
// saying how to rename it. A shard part writes none: the merge indexes the merged tree with the
// settings the part's record carries (searchToIndex), so its index is the one-machine build's.
// A rebuild whose documents are the previous build's links that build's index files instead of
// writing them again (search-index-reuse.ts says how it decides); merge and `staticmcp index`
// always write theirs (writeTreeSearchIndex).
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { JsonObject } from '../core/tree/json-object.js';
import {
  type DocumentSettings,
  type KeptSources,
  listTreeDocumentBatches,
  type SearchDocument,
} from '../core/search/tree-documents.js';
import type { ProjectConfig } from '../project/config.js';
import { removeTree } from '../tree-writer/remove-tree.js';
import { removeDeadWritersFiles } from '../tree-writer/interrupted-write.js';
import { EXTENSION_KEY, isOurExtension } from '../core/tree/manifest.js';
import { DEFAULT_MAX_LLMS_FULL_BYTES, LLMS_FULL_FILE, LLMS_FILE, LlmsTxtWriter } from '../tree-writer/llms-txt.js';
import type { SearchIndexExtension } from '../tree-writer/search-index-output.js';
import type { KeptSearchDocuments } from '../tree-writer/search-kept-documents.js';
import type { KeptLlmsEntries } from '../tree-writer/llms-kept-entries.js';
import type { SpillingSearchIndexOptions } from '../tree-writer/search-index-spill-writer.js';
import { scratchFolderOf } from '../tree-writer/swap-folders.js';
import type { TreeWriter } from '../tree-writer/tree-writer.js';
import type { BuildProblem } from './build-report.js';
import {
  isDocumentFile,
  type ReusableSearchIndex,
  type SearchIndexOutcome,
  searchInputsDigest,
  searchWriterIdentity,
} from './search-index-reuse.js';
import type { TreeOutput } from './tree-output.js';
import { SearchPackReuse } from './search-pack-reuse.js';
import { isAppResource } from '../core/tree/mcp-apps.js';
import { isSkillUri } from '../core/tree/skills.js';
import { isTextResource, type ProjectResource } from '../project/project-resource.js';
import { stemmingOfLanguage } from '../core/search/stem.js';
import { noteStageMemory } from './stage-memory.js';

export interface SearchStepInput {
  config: ProjectConfig;
  /**
   * The manifest as it will be written (its resource and tool lists, and our extension's tools and
   * state resources): the documents are made from it and the files, as merge and index make them.
   */
  manifest: JsonObject;
  toolNames: readonly string[];
  /** publicUrl without its trailing slashes. */
  publicUrl: string | undefined;
  output: TreeOutput;
  /** A `build --shard` part: its documents are indexed by the merge, not here. */
  shardPart: boolean;
  /** The generator (name and version), part of the reuse digests. */
  generator: string;
  /** The previous build's index, reusable as far as its files go (undefined: --force, no record). */
  previous?: ReusableSearchIndex;
  /**
   * The file the index writer keeps each document's share in (search-kept-documents.ts), and
   * whether the previous build's entries are read (not with --force); undefined: none kept.
   */
  kept?: { file: string; readPrevious: boolean };
  /** The document files' hash, when hashContentAndDocuments took it with the content hash; absent: taken here. */
  documentFilesHash?: string;
}

const OUR_TOOLS = ['search', 'fetch'];

/** What an index holds, besides the urls' publicUrl. */
export type SearchSettings = Omit<DocumentSettings, 'publicUrl'>;

/**
 * What staticmcp.json's `search` asks to index, or undefined when nothing: absent = the text
 * resources (default on), `false` = off, `true` = the text resources, an object = its `resources`
 * (default true) and the call results of its `tools`.
 */
export function documentSettingsOf(config: ProjectConfig): SearchSettings | undefined {
  const setting = config.search;
  if (setting === false) return undefined;
  if (setting === undefined || setting === true) return { resources: true, tools: {} };
  const stemming = stemmingOfLanguage(setting.language, setting.stemming);
  // Only "none" is written down: the default's settings (and the digests and shard records made
  // of them) stay what they were.
  return {
    resources: setting.resources !== false,
    tools: setting.tools ?? {},
    ...(stemming === 'none' ? { stemming } : {}),
  };
}

/** A tree being written (build, merge) as the document lister reads it: the writer's files. */
export function writerDocumentFiles(writer: TreeWriter, manifest: JsonObject) {
  return {
    manifest,
    paths: () => writer.paths(),
    has: (treePath: string) => writer.has(treePath),
    read: async (treePath: string) => (writer.has(treePath) ? writer.read(treePath) : undefined),
  };
}

/**
 * Every document of the tree being written, a batch at a time (650,000 call results never sit in
 * memory together); a resource whose source `kept` holds is listed without reading its file, an
 * unchanged run of list entries' documents by the previous build's edit state (search-list-runs.ts).
 */
async function listDocuments(
  writer: TreeWriter,
  manifest: JsonObject,
  settings: DocumentSettings,
  counts: { skipped: number },
  hasSource: ((sourceKey: string) => boolean) | undefined,
  editState: SpillingSearchIndexOptions['editState'],
): Promise<AsyncIterable<SearchDocument[]>> {
  await writer.flush();
  const digestOf = (treePath: string) => writer.digestOf(treePath);
  const { listRunSources } = await import('../tree-writer/search-list-runs.js');
  const keptSources: KeptSources | undefined = hasSource && {
    digestOf,
    readSync: (treePath) => (writer.has(treePath) ? writer.read(treePath) : undefined),
    has: hasSource,
    ...listRunSources(editState),
  };
  const files = { ...writerDocumentFiles(writer, manifest), ...(keptSources ? { keptSources } : {}) };
  return listTreeDocumentBatches(files, settings, () => {
    counts.skipped += 1;
  });
}

/** The warning of files the lister could not read as documents, if any. */
function skippedWarnings(skipped: number): BuildProblem[] {
  return skipped > 0
    ? [
        {
          path: 'staticmcp.json',
          message: `${skipped} files could not be read as documents and are not in the search index`,
        },
      ]
    : [];
}

/** One warning per search.tools entry that names no tool of the manifest. */
function unknownToolWarnings(manifest: JsonObject, settings: DocumentSettings): BuildProblem[] {
  const warnings: BuildProblem[] = [];
  const tools = (manifest as { capabilities?: { tools?: { name?: unknown }[] } }).capabilities?.tools ?? [];
  for (const tool of Object.keys(settings.tools).sort()) {
    if (!tools.some((candidate) => candidate.name === tool))
      warnings.push({
        path: 'staticmcp.json',
        message: `search.tools.${tool} names no tool, so nothing of it is indexed`,
      });
  }
  return warnings;
}

/** Whether some of `resources` is a text document (an MCP App's page is a UI, a skill's file an instruction: tree-documents.ts skips them too). */
export function hasTextResources(resources: readonly ProjectResource[]): boolean {
  return resources.some(
    (resource) =>
      isTextResource(resource) &&
      !isAppResource({ uri: resource.uri, mimeType: resource.mimeType ?? null }) &&
      !isSkillUri(resource.uri),
  );
}

/**
 * What the build indexes, or undefined when it writes no index: search off, a project tool named
 * search or fetch (ours are left out), or search left at its default in a project with no text
 * resource (nothing to find). A shard part decides the same (its record carries the answer, and
 * the merge indexes the merged tree with it); only `shardPart` keeps the part itself from indexing.
 */
export function searchToIndex(
  config: ProjectConfig,
  toolNames: readonly string[],
  hasTextResources: boolean,
): SearchSettings | undefined {
  const settings = documentSettingsOf(config);
  if (settings === undefined || OUR_TOOLS.some((name) => toolNames.includes(name))) return undefined;
  if (config.search === undefined && !hasTextResources) return undefined;
  return settings;
}

/** The one warning of a project whose own search or fetch tool wins over ours. */
function clashWarnings(config: ProjectConfig, toolNames: readonly string[], hasTextResources: boolean): BuildProblem[] {
  const clash = OUR_TOOLS.filter((name) => toolNames.includes(name));
  if (clash.length === 0 || config.search === false) return [];
  // Left at its default in a project with nothing to index: there would be no tools to leave out.
  if (config.search === undefined && !hasTextResources) return [];
  const names = clash.map((name) => `"${name}"`).join(' and ');
  return [
    {
      path: 'staticmcp.json',
      message: `search is on, but the project has its own tool${clash.length > 1 ? 's' : ''} named ${names}, which win${clash.length > 1 ? '' : 's'}: the tree's search and fetch tools are left out (ChatGPT looks for tools named exactly search and fetch); rename ${clash.length > 1 ? 'those scripts' : 'that script'} (e.g. tools/${clash[0]} → tools/find-${clash[0]}) to get them, or set "search": false to silence this`,
    },
  ];
}

/** Writes the index of the tree being written; returns mcp.json's `staticmcp.search` when it did. */
export async function writeTreeSearchIndex(
  output: TreeOutput,
  manifest: JsonObject,
  settings: DocumentSettings,
  maxLlmsFullBytes = DEFAULT_MAX_LLMS_FULL_BYTES,
  kept?: KeptSearchDocuments,
  keptTerms?: SpillingSearchIndexOptions['keptTerms'],
  keptLlms?: KeptLlmsEntries,
  packs?: { previous?: ReusableSearchIndex },
  editState?: SpillingSearchIndexOptions['editState'],
): Promise<{
  extension: SearchIndexExtension;
  warnings: BuildProblem[];
  skipped: number;
  files: string[];
  packKeys?: Record<string, string>;
}> {
  const counts = { skipped: 0 };
  const files: string[] = [];
  const packReuse = packs ? new SearchPackReuse(output, packs.previous, (linked) => files.push(linked)) : undefined;
  // The writer (and node:crypto) load only for projects that search. Its sorted runs go beside
  // the output folder, in the build's own scratch folder, never into the tree.
  const { writeSearchIndexSpilling } = await import('../tree-writer/search-index-spill-writer.js');
  const { keptSourceLookup } = await import('../tree-writer/search-edit-state.js');
  const scratchFolder = scratchFolderOf(output.writer.outDir, process.pid);
  try {
    await mkdir(scratchFolder, { recursive: true });
    // A tree of ours also gets llms.txt and llms-full.txt, from the documents as they pass
    // (llms-full.txt's entries wait in their kept parts or the scratch folder, not in memory).
    const llms = isOurExtension(manifest[EXTENSION_KEY])
      ? new LlmsTxtWriter(manifest, settings.publicUrl, maxLlmsFullBytes, scratchFolder, keptLlms)
      : undefined;
    const hasSource = kept && keptSourceLookup(kept, editState?.previous, settings.stemming ?? 'porter');
    const documents = await listDocuments(output.writer, manifest, settings, counts, hasSource, editState);
    const options = {
      scratchFolder,
      ...(llms ? { onDocument: (document: SearchDocument) => llms.add(document) } : {}),
      stemming: settings.stemming,
      ...(kept ? { kept } : {}),
      ...(keptTerms ? { keptTerms } : {}),
      ...(packReuse ? { packReuse: (folder: string) => packReuse.forPart(folder) } : {}),
      noteMemory: noteStageMemory,
      ...(editState ? { editState } : {}),
    };
    const extension = await writeSearchIndexSpilling(documents, options, (filePath, bytes) => {
      files.push(filePath);
      return output.write(filePath, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    });
    const warnings = [...unknownToolWarnings(manifest, settings), ...skippedWarnings(counts.skipped)];
    if (llms) {
      const indexFile = path.join(scratchFolder, LLMS_FILE);
      const index = llms.writeIndexFile(indexFile);
      await output.writeFromFile(LLMS_FILE, indexFile, index.digest, index.sizeBytes);
      const fullFile = path.join(scratchFolder, LLMS_FULL_FILE);
      const full = llms.writeFullFile(fullFile);
      await output.writeFromFile(LLMS_FULL_FILE, fullFile, full.digest, full.sizeBytes);
      // Put in place before the scratch folder goes.
      await output.writer.flush();
      files.push(LLMS_FILE, LLMS_FULL_FILE);
      noteStageMemory('search/llms');
      if (llms.leftOutCount > 0)
        warnings.push({
          path: LLMS_FULL_FILE,
          message: `leaves out ${llms.leftOutCount} documents past limits.maxLlmsFullBytes (${maxLlmsFullBytes} bytes); llms.txt lists them all (raise the limit in staticmcp.json to include them)`,
        });
    }
    return {
      extension,
      warnings,
      skipped: counts.skipped,
      files: files.sort(compareStrings),
      ...(packReuse ? { packKeys: packReuse.made } : {}),
    };
  } finally {
    await removeTree(scratchFolder);
  }
}

function compareStrings(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/**
 * The build's index: the previous build's files linked as they are when `input.previous` was made
 * from the same inputs (search-index-reuse.ts), else written anew; with what the record of this
 * build needs (`outcome`).
 */
export async function writeSearchIndexStep(
  input: SearchStepInput,
  hasTextResources: boolean,
): Promise<{ extension?: SearchIndexExtension; warnings: BuildProblem[]; outcome?: SearchIndexOutcome }> {
  const warnings = clashWarnings(input.config, input.toolNames, hasTextResources);
  const settings = searchToIndex(input.config, input.toolNames, hasTextResources);
  if (settings === undefined || input.shardPart) return { warnings };
  const documentSettings: DocumentSettings = {
    ...settings,
    ...(input.publicUrl ? { publicUrl: input.publicUrl } : {}),
  };
  // Decided from digests the writer already holds: no document is read when the index is reused.
  const documentFilesHash =
    input.documentFilesHash ?? (await input.output.writer.hashWritten(isDocumentFile(documentSettings)));
  const identity = searchWriterIdentity(input.generator, documentSettings);
  const inputs = searchInputsDigest(identity, input.manifest, documentSettings, documentFilesHash);
  const { previous } = input;
  if (previous && previous.inputs === inputs) {
    for (const file of previous.files)
      await input.output.writeFromFile(
        file.path,
        path.join(previous.outDir, file.path),
        Buffer.from(file.sha256, 'hex'),
        file.size,
      );
    const { extension, skipped } = previous;
    return {
      extension,
      warnings: [...warnings, ...unknownToolWarnings(input.manifest, documentSettings), ...skippedWarnings(skipped)],
      outcome: {
        inputs,
        skipped,
        extension,
        files: previous.files.map((file) => ({ path: file.path, sha256: file.sha256 })),
        reused: true,
        ...(previous.packKeys ? { packKeys: { ...previous.packKeys } } : {}),
      },
    };
  }
  // The previous index's files, known by digest and identity: those that come out the same are
  // left in place without being read back (known-previous-files.ts).
  if (previous) input.output.writer.knownPrevious.add(previous.files);
  const kept = await openKeptDocuments(input.kept, identity);
  const keptTerms = kept ? await openKeptTerms(input.kept!.file, identity, kept) : undefined;
  const keptLlms = kept
    ? await openKeptLlmsEntries(input.kept!, identity, documentSettings.stemming ?? 'porter')
    : undefined;
  const { openSearchEditState } = await import('../tree-writer/search-edit-state-recorder.js');
  const editState = kept && keptLlms ? openSearchEditState(input.kept!.file, kept, keptLlms) : undefined;
  let written: Awaited<ReturnType<typeof writeTreeSearchIndex>>;
  try {
    written = await writeTreeSearchIndex(
      input.output,
      input.manifest,
      documentSettings,
      input.config.limits.maxLlmsFullBytes,
      kept,
      keptTerms,
      keptLlms,
      { ...(previous ? { previous } : {}) },
      editState,
    );
    await input.output.writer.flush();
    kept?.commit();
    keptLlms?.commit();
    keptTerms?.writer?.commit(kept?.committedChecksum);
    editState?.recorder.commit();
  } finally {
    editState?.recorder.discard();
    kept?.discard();
    keptTerms?.writer?.discard();
    keptLlms?.discard();
  }
  return {
    extension: written.extension,
    warnings: [...warnings, ...written.warnings],
    outcome: {
      inputs,
      skipped: written.skipped,
      extension: written.extension,
      files: written.files.map((filePath) => ({
        path: filePath,
        sha256: input.output.writer.digestOf(filePath)!.toString('hex'),
      })),
      reused: false,
      ...(written.packKeys ? { packKeys: written.packKeys } : {}),
    },
  };
}

/**
 * The previous term records kept beside the kept documents' file, when they go with the previous
 * file `kept` read (search-kept-terms.ts), and the writer of this build's.
 */
async function openKeptTerms(documentsFile: string, identity: string, kept: KeptSearchDocuments) {
  const { KeptTermsWriter, readKeptTerms, NEW_TERMS_MARK } = await import('../tree-writer/search-kept-terms.js');
  const { maxKeptSearchBytes } = await import('../tree-writer/search-kept-keys.js');
  const file = keptTermsFileOf(documentsFile);
  await removeDeadWritersFiles(file, NEW_TERMS_MARK);
  await removeDeadWritersFiles(`${file}.json`, NEW_TERMS_MARK);
  const maxBytes = maxKeptSearchBytes(process.env);
  const previous = readKeptTerms(file, identity, kept.previousChecksum, maxBytes);
  return { ...(previous ? { previous } : {}), writer: new KeptTermsWriter(file, identity, maxBytes) };
}

/**
 * llms-full.txt's entries of the previous build (.staticmcp/llms-full-entries.bin), and this
 * build's writer; keyed by the search writer's source digests (the one it makes of each document).
 */
async function openKeptLlmsEntries(kept: { file: string; readPrevious: boolean }, identity: string, stemming: string) {
  const { KeptLlmsEntries, NEW_ENTRIES_MARK } = await import('../tree-writer/llms-kept-entries.js');
  const { keptSourceDigestOf } = await import('../tree-writer/search-kept-keys.js');
  const file = path.join(path.dirname(kept.file), 'llms-full-entries.bin');
  await removeDeadWritersFiles(file, NEW_ENTRIES_MARK);
  return new KeptLlmsEntries(file, identity, kept.readPrevious, (sourceKey) => keptSourceDigestOf(stemming, sourceKey));
}

/** The kept term records' file, beside the kept documents' (.staticmcp/search-terms.bin). */
function keptTermsFileOf(documentsFile: string): string {
  return path.join(path.dirname(documentsFile), 'search-terms.bin');
}

/** The kept documents' file for this writer, or undefined when none is kept. */
async function openKeptDocuments(
  kept: SearchStepInput['kept'],
  identity: string,
): Promise<KeptSearchDocuments | undefined> {
  if (kept === undefined) return undefined;
  // Loaded only by builds that write an index, as the writer is.
  const { KeptSearchDocuments, NEW_FILE_MARK } = await import('../tree-writer/search-kept-documents.js');
  const { maxKeptSearchBytes } = await import('../tree-writer/search-kept-keys.js');
  // A build killed while writing the new file left it: it would otherwise stay for good.
  await removeDeadWritersFiles(kept.file, NEW_FILE_MARK);
  const maxBytes = maxKeptSearchBytes(process.env);
  if (maxBytes === 0) return undefined;
  await mkdir(path.dirname(kept.file), { recursive: true });
  return new KeptSearchDocuments(kept.file, identity, maxBytes, kept.readPrevious);
}

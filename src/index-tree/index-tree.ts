// `staticmcp index <tree>`: adds the search index, the search and fetch tools' declaration
// (`staticmcp.search` in mcp.json) and the edge worker to a tree that already exists, ours or one
// another StaticMCP generator wrote (a docusaurus-smg site becomes a searchable remote MCP server
// without its project). The documents are made by the lister the build and merge use
// (core/search/tree-documents.ts), so indexing a tree of ours gives the index a build with the
// same settings writes. Written like a build: every file of the tree goes into a new folder beside
// the output (hard links, nothing read twice), which is swapped in at the end, so a killed run
// leaves the previous tree (tree-writer.ts, interrupted-write.ts); in place by default, or into
// --out with the source untouched.
// What changes: packs/search.index/ (a previous index is replaced), mcp.json (our extension's
// `search`; another generator's tree gets an extension holding only `search`, which keeps it
// foreign to our readers: isOurExtension), `_worker.js` (this staticmcp's), and, when the tree
// lacks them, `_routes.json` and `.assetsignore` (the worker's deploy files). Another generator's
// `_headers` gains the packs/ rule; ours keeps its own (its content hash covers it).
// Refused: a folder without mcp.json, a malformed mcp.json, a tree whose own tools are named search
// or fetch, a --tool the tree does not have. A file that cannot be read (a link, a device, too
// big, not JSON) is skipped with a warning; the report counts them.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { BuildProblem } from '../builder/build-report.js';
import { listTreeFiles } from '../check/list-tree-files.js';
import { type DocumentSettings, listTreeDocuments } from '../core/search/tree-documents.js';
import { SEARCH_FOLDER } from '../core/search/search-index-format.js';
import { type Stemming, stemmingOfLanguage } from '../core/search/stem.js';
import { parsePackTable } from '../core/packs/pack-table.js';
import { StaticMcpError } from '../core/staticmcp-error.js';
import { treeJsonFile } from '../core/tree/canonical-json.js';
import { isObject, type JsonObject } from '../core/tree/json-object.js';
import { EXTENSION_KEY, isOurExtension, MANIFEST_FILE, WORKER_FILE } from '../core/tree/manifest.js';
import { LLMS_FILE, LLMS_FULL_FILE, LlmsTxtWriter, llmsFiles, teeDocuments } from '../tree-writer/llms-txt.js';
import { findTreePathProblem, showTreePath } from '../core/tree/tree-path.js';
import { FolderPackFiles } from '../hosts/node/folder-pack-files.js';
import { DEFAULT_MAX_PART_FILE_BYTES, readPartFile } from '../merge/read-part-file.js';
import { readRegularFile } from '../shared/read-regular-file.js';
import { checkOutputFolder } from '../tree-writer/check-output-folder.js';
import { HEADERS_FILE, runtimeFiles, withPacksHeaderRule, workerDeployFiles } from '../tree-writer/deploy-files.js';
import { recoverInterruptedWrite } from '../tree-writer/interrupted-write.js';
import { removeTree } from '../tree-writer/remove-tree.js';
import { writeSearchIndexSpilling } from '../tree-writer/search-index-spill-writer.js';
import { scratchFolderOf } from '../tree-writer/swap-folders.js';
import { TreeWriter } from '../tree-writer/tree-writer.js';

export interface IndexTreeOptions {
  /** The tree folder, as the user gave it (for messages). */
  tree: string;
  /** Where the indexed tree goes; the tree itself when absent (in place). */
  outDir?: string;
  /** Tools whose precomputed calls are documents, each with its title template (`--tool NAME[=TITLE]`). */
  tools: { name: string; title?: string }[];
  /** Text resources are documents (default true). */
  resources?: boolean;
  /** The site the tree is deployed at: each document's url is its file there (else ""). */
  publicUrl?: string;
  /** The largest tree file read (default: merge's 100 MiB). */
  maxFileBytes?: number;
  /** The documents' language, as staticmcp.json's search.language: "en" (default) stems, others do not. */
  language?: string;
}

export interface IndexTreeReport {
  ok: true;
  tree: string;
  outDir: string;
  documents: number;
  /** Files skipped (unreadable, malformed), each with why. */
  skipped: BuildProblem[];
  warnings: BuildProblem[];
  /** What was put back or removed of the folders an interrupted run left beside the tree or --out. */
  recovered: string[];
  durationMs: number;
}

const OUR_TOOLS = ['search', 'fetch'];

/** --language when given, else what the tree's own index used (a rebuilt index stems as the build did). */
function stemmingOf(language: string | undefined, previousIndex: unknown): Stemming {
  if (language !== undefined) return stemmingOfLanguage(language, undefined);
  return isObject(previousIndex) && previousIndex.stemming === 'none' ? 'none' : 'porter';
}
/** A gh-pages worktree's git folder: never copied, kept in place. */
const GIT_FOLDER = '.git';

async function readManifest(treeDir: string, given: string): Promise<JsonObject> {
  let text: string;
  try {
    text = await readRegularFile(path.join(treeDir, MANIFEST_FILE), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw new StaticMcpError(
        'NOT_A_TREE',
        `${given} is not a StaticMCP tree: it has no ${MANIFEST_FILE}`,
        'Pass the folder a StaticMCP generator wrote (mcp.json at its top); to make one from a project, run staticmcp build.',
      );
    }
    throw new StaticMcpError(
      'TREE_MANIFEST_UNREADABLE',
      `${given}/${MANIFEST_FILE} cannot be read (${code ?? 'error'})`,
      'Make it a readable regular file (not a link), then run staticmcp index again.',
    );
  }
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch {
    manifest = undefined;
  }
  if (!isObject(manifest) || !isObject(manifest.capabilities)) {
    throw new StaticMcpError(
      'TREE_MANIFEST_BROKEN',
      `${given}/${MANIFEST_FILE} is not a StaticMCP manifest (${manifest === undefined ? 'not JSON' : 'no capabilities object'})`,
      'Build the tree again with its generator; staticmcp check shows what is wrong with it.',
    );
  }
  return manifest;
}

function toolNamesOf(manifest: JsonObject): string[] {
  const capabilities = manifest.capabilities as JsonObject;
  return (Array.isArray(capabilities.tools) ? capabilities.tools : []).flatMap((tool) =>
    isObject(tool) && typeof tool.name === 'string' ? [tool.name] : [],
  );
}

function refuseTools(manifest: JsonObject, given: string, options: IndexTreeOptions): void {
  const names = toolNamesOf(manifest);
  const clash = OUR_TOOLS.filter((name) => names.includes(name));
  if (clash.length > 0) {
    const named = clash.map((name) => `"${name}"`).join(' and ');
    throw new StaticMcpError(
      'SEARCH_TOOLS_TAKEN',
      `${given} has its own tool${clash.length > 1 ? 's' : ''} named ${named}: a client would not know which search is meant, and ChatGPT looks for exactly these names; nothing was written`,
      `Rename ${clash.length > 1 ? 'those tools' : 'that tool'} where the tree is made and build it again (in a staticmcp project: tools/${clash[0]} → tools/find-${clash[0]}; a staticmcp build then indexes the text resources itself), then run staticmcp index on the new tree.`,
    );
  }
  for (const tool of options.tools) {
    if (!names.includes(tool.name)) {
      throw new StaticMcpError(
        'TOOL_NOT_IN_TREE',
        `--tool ${tool.name}: ${given} has no tool of that name${names.length > 0 ? ` (its tools: ${names.join(', ')})` : ' (it has no tools)'}`,
        'Pass --tool with the name of one of the tree’s tools, whose precomputed calls are to be searchable.',
      );
    }
  }
}

function contains(parent: string, child: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/**
 * Files the run writes itself instead of copying: the manifest, the worker, a previous index, and
 * another generator's `_headers` (which gains the packs/ rule).
 */
function isReplaced(treePath: string, ours: boolean): boolean {
  return (
    treePath === MANIFEST_FILE ||
    treePath === WORKER_FILE ||
    treePath.startsWith(SEARCH_FOLDER) ||
    // A tree of ours gets llms.txt and llms-full.txt from the documents indexed, as a build does.
    (ours && (treePath === LLMS_FILE || treePath === LLMS_FULL_FILE)) ||
    (!ours && treePath === HEADERS_FILE)
  );
}

export async function indexTree(options: IndexTreeOptions): Promise<IndexTreeReport> {
  const startedAt = performance.now();
  const given = options.tree;
  const source = path.resolve(given);
  const outDir = path.resolve(options.outDir ?? given);
  const inPlace = outDir === source;
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_PART_FILE_BYTES;
  // A tree an interrupted run (index or build) left beside itself is put back first.
  const recovered = await recoverInterruptedWrite(source);
  const stats = await fs.stat(source).catch(() => null);
  if (!stats?.isDirectory()) {
    throw new StaticMcpError(
      'TREE_NOT_FOUND',
      `${given} is not a folder`,
      'Pass the folder of a StaticMCP tree (mcp.json at its top).',
    );
  }
  const manifest = await readManifest(source, given);
  refuseTools(manifest, given, options);
  if (!inPlace) {
    if (contains(source, outDir) || contains(outDir, source)) {
      throw new StaticMcpError(
        'OUT_OVERLAPS_TREE',
        `--out ${options.outDir} ${contains(source, outDir) ? 'is inside' : 'contains'} the tree ${given}; the indexed tree would be read back as part of it`,
        'Index into a folder of its own (or leave out --out to index the tree in place).',
      );
    }
    recovered.push(...(await recoverInterruptedWrite(outDir)));
    await checkOutputFolder(outDir, [{ folder: source, what: `tree ${given}`, input: true }]);
  }

  const skipped: BuildProblem[] = [];
  const warnings: BuildProblem[] = [];
  const listed = await listTreeFiles(source);
  for (const problem of listed.problems) skipped.push({ path: problem.path, message: problem.message });
  const files = listed.files.filter(
    (file) => file.split('/', 1)[0] !== GIT_FOLDER && findTreePathProblem(file) === undefined,
  );
  const present = new Set(files);

  const rawExtension = manifest[EXTENSION_KEY];
  const ours = isOurExtension(rawExtension);
  let packs: ReturnType<typeof parsePackTable> = { table: new Map() };
  if (ours && isObject(rawExtension) && rawExtension.packs !== undefined) {
    packs = parsePackTable(rawExtension.packs);
    if ('problem' in packs) {
      warnings.push({ path: MANIFEST_FILE, message: `${packs.problem}: the packed calls are not indexed` });
      packs = { table: new Map() };
    }
  }
  const settings: DocumentSettings = {
    resources: options.resources !== false,
    tools: Object.fromEntries(
      options.tools.map((tool) => [tool.name, tool.title !== undefined ? { title: tool.title } : {}]),
    ),
    ...(options.publicUrl ? { publicUrl: options.publicUrl.replace(/\/+$/, '') } : {}),
    stemming: stemmingOf(options.language, ours ? (rawExtension as JsonObject).search : undefined),
  };
  const readTreeFile = async (treePath: string): Promise<Uint8Array | undefined> => {
    if (!present.has(treePath)) return undefined;
    const file = await readPartFile('index', path.join(source, treePath), given, treePath, maxFileBytes, true);
    return file.content;
  };
  const documents = listTreeDocuments(
    {
      manifest,
      packs: packs.table,
      paths: () => files,
      has: (treePath) => present.has(treePath),
      read: readTreeFile,
      packFiles: new FolderPackFiles(source),
    },
    settings,
    (treePath, reason) => skipped.push({ path: showTreePath(treePath), message: reason }),
  );

  const writer = await TreeWriter.open(outDir);
  // The index's sorted runs go beside the output folder, never into the tree (removed below).
  const scratchFolder = scratchFolderOf(outDir, process.pid);
  let documentCount = 0;
  try {
    // Streamed: one document at a time, so a 650,000-document tree fits in flat memory.
    const llms = ours ? new LlmsTxtWriter(manifest, settings.publicUrl) : undefined;
    const indexed = teeDocuments(documents, llms);
    const index = await writeSearchIndexSpilling(
      indexed,
      { scratchFolder, stemming: settings.stemming },
      async (filePath, bytes) => {
        await writer.write(filePath, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      },
    );
    if (llms) for (const [filePath, bytes] of llmsFiles(llms)) await writer.write(filePath, bytes);
    documentCount = index.documentCount;
    if (documentCount === 0)
      warnings.push({
        path: MANIFEST_FILE,
        message: `no document to index: the tree has no text resource${options.tools.length > 0 ? ' and the tools named have no readable precomputed call' : ' (pass --tool NAME to index the precomputed calls of a tool)'}; search answers no result`,
      });
    for (const treePath of files) {
      if (isReplaced(treePath, ours)) continue;
      const from = path.join(source, treePath);
      try {
        const file = await readPartFile('index', from, given, treePath, maxFileBytes, false);
        await writer.writeFromFile(treePath, from, file.digest);
      } catch (error) {
        if (!(error instanceof StaticMcpError)) throw error;
        // A link, a device, a file over the cap: not carried into the indexed tree.
        // The message without the file's name: the report gives it beside.
        const named = `${given}/${showTreePath(treePath)} `;
        const why = error.message.startsWith(named) ? error.message.slice(named.length) : error.message;
        skipped.push({ path: showTreePath(treePath), message: `${why}; left out` });
      }
    }
    // Last in the extension, where a build puts it.
    const extension: JsonObject = ours && isObject(rawExtension) ? { ...rawExtension } : {};
    delete extension.search;
    extension.search = index as unknown as JsonObject;
    await writer.write(MANIFEST_FILE, treeJsonFile({ ...manifest, [EXTENSION_KEY]: extension }));
    const runtime = runtimeFiles();
    if (runtime) {
      for (const [treePath, content] of runtime) await writer.write(treePath, content);
      for (const [treePath, content] of workerDeployFiles())
        if (!present.has(treePath)) await writer.write(treePath, content);
    } else {
      warnings.push({
        path: WORKER_FILE,
        message:
          'not written: this staticmcp was compiled without its edge worker bundle, so the tree answers search only through staticmcp serve; run npm run build in the staticmcp package',
      });
    }
    if (!ours) {
      // The index is named by its content: caches may keep it for good (ours already has the rule, or its hash covers _headers).
      const headers = present.has(HEADERS_FILE) ? await readTreeFile(HEADERS_FILE) : undefined;
      const text = headers === undefined ? '' : Buffer.from(headers).toString('utf8');
      if (!text.includes('/packs/*'))
        await writer.write(HEADERS_FILE, text === '' ? withPacksHeaderRule('').slice(1) : withPacksHeaderRule(text));
    }
    await writer.flush();
  } catch (error) {
    await writer.discard();
    throw error;
  } finally {
    await removeTree(scratchFolder);
  }
  // In place, the tree's .git (a gh-pages worktree) stays; --out never copies it.
  await writer.commit({ keep: (name) => inPlace && name === GIT_FOLDER });
  return {
    ok: true,
    tree: source,
    outDir,
    documents: documentCount,
    // A file both unreadable as a document and left out of the copy is one file skipped.
    skipped: [...new Map(skipped.map((problem) => [problem.path, problem])).values()],
    warnings,
    recovered,
    durationMs: performance.now() - startedAt,
  };
}

// Discovery of resource files in runs (issue #39, "Edits in a second"): consecutive files of one
// folder that a saved run (document-runs.ts) describes, and that the up-to-date walk saw with the
// same names and identities byte for byte, are taken whole: their store rows and record entries
// copied, no lookup, stat, parse or read a document. Any other file goes through discovery's own
// steps, one at a time, and what they make is gathered into the runs the next build takes. Only
// documents that need nothing but their bytes and their name are in a run: no sidecar anywhere,
// none registered, no warning, no page URL, and an identity the record trusts.
import path from 'node:path';
import { removeDeadWritersFiles } from '../tree-writer/interrupted-write.js';
import type { DocumentCache } from './document-cache.js';
import { FIXED_BYTES, TRUSTED_IDENTITY } from './document-record.js';
import { type DocumentRun, DocumentRunReader, DocumentRunWriter } from './document-runs.js';
import { FileResource, type FileResourceStore } from './file-resource-store.js';
import type { ProjectResource } from './project-resource.js';
import type { WalkedIdentities } from './walked-identities.js';

const RUNS_FILE = path.join('.staticmcp', 'cache', 'document-runs.bin');
/** Beside the file, `<mark><pid>`: the runs being written. */
const RUNS_MARK = '.new-';
/**
 * Documents a run holds at most: an edit costs its run the steps of each of its documents, and a
 * run its compares and its digest.
 */
const MAX_RUN_DOCUMENTS = 256;
const SITE_PAGE = 2;
const PATH_AT = 4 + FIXED_BYTES;

/**
 * A folder's path from the project's root, as the up-to-date walk names it: the resources
 * folder's prefix and the folder under it (each '' or ending in `/`), without the last `/`.
 */
function folderOf(keyPrefix: string, folderInResources: string): string {
  const joined = `${keyPrefix}${folderInResources}`;
  return joined.endsWith('/') ? joined.slice(0, -1) : joined;
}

/** What discovery's own step made of one file. */
export type NotedResource = { resource: ProjectResource; warnings: readonly string[] } | { problem: string };

export class ResourceRuns {
  private constructor(
    private readonly reader: DocumentRunReader | undefined,
    private readonly writer: DocumentRunWriter | undefined,
    private readonly documents: DocumentCache,
    private readonly walked: WalkedIdentities | undefined,
    /** The resources folder from the project's root, followed by `/` (or '' for the root). */
    private readonly keyPrefix: string,
  ) {}
  /**
   * The runs of a discovery whose resources need nothing but their bytes and names (`plain`), and
   * that has a previous record: read when the walk is there to check them against, written
   * whenever the record is.
   */
  static async open(
    projectRoot: string,
    documents: DocumentCache,
    walked: WalkedIdentities | undefined,
    keyPrefix: string,
    plain: boolean,
  ): Promise<ResourceRuns | undefined> {
    // A first build (no record yet) gathers none: it parses every document, and the runs are
    // for the edits after it, the first of which gathers them.
    if (!plain || !documents.keepsRecord || documents.previousDocuments === 0) return undefined;
    const file = path.join(projectRoot, RUNS_FILE);
    await removeDeadWritersFiles(file, RUNS_MARK);
    const key = `${documents.recordKey} ${keyPrefix}`;
    const reader = walked !== undefined ? DocumentRunReader.open(file, key) : undefined;
    let writer: DocumentRunWriter | undefined;
    try {
      writer = new DocumentRunWriter(file, `${file}${RUNS_MARK}${process.pid}`, key, MAX_RUN_DOCUMENTS);
    } catch {
      // Not written: the next build takes no run, as with none.
    }
    return new ResourceRuns(reader, writer, documents, walked, keyPrefix);
  }

  /**
   * Takes the saved run that starts at `files[index]` when every one of its files is there and
   * untouched: its resources go to `resources`; returns how many files it covered (0: none taken,
   * nothing changed).
   */
  take(
    files: readonly { relativePath: string }[],
    index: number,
    store: FileResourceStore,
    resources: ProjectResource[],
  ): number {
    if (this.reader === undefined || this.walked === undefined) return 0;
    const run = this.reader.take(`${this.keyPrefix}${files[index]!.relativePath}`);
    if (run === undefined || !this.coversFiles(run, files, index)) return 0;
    if (!this.walked.matchRun(run.folder, run.names, run.identities)) return 0;
    if (!this.documents.reuseRun(run.entries, run.count)) return 0;
    const firstPosition = store.addRun(run);
    for (let position = firstPosition; position < firstPosition + run.count; position += 1)
      resources.push(new FileResource(store, position));
    this.writer?.addBlock(run);
    return run.count;
  }

  /** Whether `files` from `index` on are the run's files, in its folder, in its order. */
  private coversFiles(run: DocumentRun, files: readonly { relativePath: string }[], index: number): boolean {
    if (index + run.count > files.length) return false;
    const first = files[index]!.relativePath;
    const folderInResources = first.slice(0, first.lastIndexOf('/') + 1);
    if (folderOf(this.keyPrefix, folderInResources) !== run.folder) return false;
    let nameAt = 0;
    for (let offset = 0; offset < run.count; offset += 1) {
      const end = run.names.indexOf('/', nameAt);
      const relativePath = files[index + offset]!.relativePath;
      if (
        end < 0 ||
        relativePath.length !== folderInResources.length + end - nameAt ||
        !relativePath.startsWith(folderInResources) ||
        !relativePath.startsWith(run.names.slice(nameAt, end), folderInResources.length)
      )
        return false;
      nameAt = end + 1;
    }
    return true;
  }

  /** Gathers what discovery's own step made of a file into the run being written, when it can be in one. */
  note(relativePath: string, loaded: NotedResource): void {
    const entry = this.documents.takeLastEntry();
    const { writer } = this;
    if (writer === undefined) return;
    if (
      'problem' in loaded ||
      loaded.warnings.length > 0 ||
      !(loaded.resource instanceof FileResource) ||
      loaded.resource.overridden ||
      entry === undefined ||
      (entry[4]! & TRUSTED_IDENTITY) === 0 ||
      (entry[4]! & SITE_PAGE) !== 0
    ) {
      writer.endRun();
      return;
    }
    const { store, position } = loaded.resource;
    const slash = relativePath.lastIndexOf('/');
    const pathAt = PATH_AT + Buffer.byteLength(this.keyPrefix);
    const entryView = Buffer.from(entry.buffer, entry.byteOffset, entry.byteLength);
    writer.add(folderOf(this.keyPrefix, relativePath.slice(0, slash + 1)), {
      name: relativePath.slice(slash + 1),
      mimeType: loaded.resource.mimeType,
      path: entry.subarray(pathAt, PATH_AT + entryView.readUInt32LE(PATH_AT - 4)),
      text: store.isTextAt(position),
      title: store.titleBytesOf(position),
      description: store.descriptionBytesOf(position),
      entry,
    });
  }

  /** Puts the runs this build gathered in place of the previous ones. */
  save(): void {
    this.reader?.close();
    this.writer?.save();
  }

  /** Writes no runs (the previous file stays: its runs describe files, and still hold). */
  discard(): void {
    this.reader?.close();
    this.writer?.discard();
  }
}

// The search index writer for corpora of any size (issue #25): the same files, byte for byte, as
// writeSearchIndex (test/helpers/in-memory-search-index.ts, which holds the whole corpus in
// memory), in memory flat with the corpus. Documents stream in (any order, once each); what they
// leave in memory is their id and a few numbers (search-document-columns.ts). Their postings
// (term, arrival, tf, docLength) collect in a bounded run that is sorted by term and written to
// `scratchFolder` when full; the runs are k-way merged into the term records (each term's postings
// renumbered by id order and sorted), which go to a scratch file and are then packed in one pass
// (search-posting-runs.ts, search-record-packer.ts). Titles, fetch bodies and excerpt sources go
// to three scratch files as they arrive and are packed from there (search-document-packs.ts).
// Files are handed to `writeFile` as each pack or index closes, never held together. The caller owns `scratchFolder`
// (the build puts it beside its output folder, swap-folders.ts, and removes it;
// interrupted-write.ts removes the one a killed build left).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { KEY_KIND } from '../core/packs/pack-format.js';
import { DEFAULT_TITLE_BLOCK_SIZE, SEARCH_FOLDER, type SearchPackRow } from '../core/search/search-index-format.js';
import { IndexKeyCounter, type KeyCounts } from './search-key-counter.js';
import { assertPlainTreePath } from '../core/tree/tree-path.js';
import { DEFAULT_TARGET_INDEX_BYTES, DEFAULT_TARGET_PACK_BYTES } from './pack-writer.js';
import {
  searchExtensionOf,
  type SearchDocument,
  type SearchIndexExtension,
  type SearchIndexOptions,
} from './search-index-output.js';
import {
  SEARCH_FILE_LIMITS,
  TERM_INDEX_BYTES,
  TERM_PACK_BYTES,
  TITLE_INDEX_BYTES,
  TITLE_PACK_BYTES,
} from './search-index-targets.js';
import { weightAverageLengthOf } from '../core/search/postings.js';
import { type PackReuse, packRecords, type RecordSource, type WriteIndexFile } from './search-record-packer.js';
import { RepeatedStemLists } from './search-stem-lists.js';
import { mergeRuns, PostingRun, termRecordSource } from './search-posting-runs.js';
import {
  type ChangedDocument,
  type KeptTermsWriter,
  MAX_PATCHED_DOCUMENTS,
  type PreviousTerms,
  patchTermRecords,
} from './search-kept-terms.js';
import { packTermsByLayout, TermLayoutRecorder } from './search-term-part.js';
import type { KeptSearchDocuments } from './search-kept-documents.js';
import { shareOf } from './search-document-share.js';
import { DocumentColumns } from './search-document-columns.js';
import { packDocumentParts } from './search-document-packs.js';
import { termPackReuse } from './search-term-pack-reuse.js';
import type { SearchEditState } from './search-edit-state.js';
import type { SearchEditStateRecorder } from './search-edit-state-recorder.js';
import { keptSourceDigestOf } from './search-kept-keys.js';

/**
 * Postings a run holds before it is sorted and written out: 4 MiB of typed arrays, plus its terms.
 * The run is the largest thing the index step holds; a larger one saves little of the merge's work
 * (a document's postings are sorted once either way) and raised the build's peak with it.
 */
export const DEFAULT_RUN_POSTINGS = 262_144;

export interface SpillingSearchIndexOptions extends SearchIndexOptions {
  /** An empty or absent folder of the caller's, for the scratch files. */
  scratchFolder: string;
  /** Postings per sorted run (DEFAULT_RUN_POSTINGS); a tiny one forces many runs (tests). */
  runPostings?: number;
  /** What the previous build kept of each document, and where this one's goes (the build's). */
  kept?: KeptSearchDocuments;
  /**
   * The previous build's term records made with `kept`'s previous file (search-kept-terms.ts), and
   * where this build's go (the build's).
   */
  keptTerms?: { previous?: PreviousTerms; writer?: KeptTermsWriter };
  /** The previous build's packs by part folder, that packs made from the same inputs link (the build's). */
  packReuse?: (folder: string) => PackReuse;
  /** Given each document as it arrives, before the index takes its share (the build's llms.txt writer). */
  onDocument?: (document: SearchDocument) => void;
  /** Told as each step of the write ends (the build's stage-memory notes, where the peak lies). */
  noteMemory?: (step: string) => void;
  /** The previous build's edit state, which `kept` matches (search-edit-state.ts), and this build's. */
  editState?: { previous?: SearchEditState; recorder?: SearchEditStateRecorder };
}

/**
 * Writes the index of `documents` (one at a time, or in batches) through `writeFile` and returns
 * mcp.json's `staticmcp.search`.
 * Throws as writeSearchIndex does: an id that is not a plain tree path or repeats, a document
 * past MAX_PACK_BYTES.
 */
export async function writeSearchIndexSpilling(
  documents: AsyncIterable<SearchDocument | readonly SearchDocument[]> | Iterable<SearchDocument>,
  options: SpillingSearchIndexOptions,
  writeFile: WriteIndexFile,
): Promise<SearchIndexExtension> {
  const targets = {
    targetPackBytes: options.targetPackBytes ?? DEFAULT_TARGET_PACK_BYTES,
    targetIndexBytes: options.targetIndexBytes ?? DEFAULT_TARGET_INDEX_BYTES,
  };
  const blockSize = options.blockSize ?? DEFAULT_TITLE_BLOCK_SIZE;
  const runLimit = Math.max(1, options.runPostings ?? DEFAULT_RUN_POSTINGS);
  const stemming = options.stemming ?? 'porter';
  const scratch = options.scratchFolder;
  const noteMemory = options.noteMemory ?? (() => {});
  // With pack reuse, each title pack is keyed by its documents' entry digests (search-scratch-records.ts).
  const keysTitlePacks = options.packReuse !== undefined;
  mkdirSync(scratch, { recursive: true });

  const columns = new DocumentColumns(scratch, keysTitlePacks);
  const runFiles: string[] = [];
  const run = new PostingRun(Math.min(runLimit, 1 << 16));
  const counter = new IndexKeyCounter(stemming);

  const flushRun = (): void => {
    if (run.used === 0) return;
    const file = path.join(scratch, `run-${runFiles.length}`);
    run.writeSorted(file);
    runFiles.push(file);
  };
  const addToRun = (arrival: number, terms: KeyCounts | { keys: string[]; counts: number[] }) => {
    if (run.used > 0 && run.used + terms.keys.length > runLimit) flushRun();
    run.addCounted(arrival, terms);
  };
  // With the previous term records at hand, a taken document's terms wait (they are needed only
  // when the records cannot be patched), and those of documents made anew are held, up to a bound.
  const previousTerms = options.kept ? options.keptTerms?.previous : undefined;
  let changed: (ChangedDocument & { arrival: number })[] | undefined = previousTerms ? [] : undefined;
  const waitingArrivals: number[] = [];
  const waitingAt: number[] = [];
  const editState = options.kept ? options.editState?.previous : undefined;
  const editRecorder = options.kept ? options.editState?.recorder : undefined;

  try {
    for await (const item of documents)
      for (const document of Array.isArray(item) ? item : [item]) {
        options.onDocument?.(document);
        assertPlainTreePath(document.id, 'A search document id');
        const arrival = columns.count;
        // A document of an unchanged list run comes with its digest (the previous build's).
        const source =
          editState === undefined && editRecorder === undefined
            ? undefined
            : (document.sourceDigest ??
              (document.sourceKey !== undefined ? keptSourceDigestOf(stemming, document.sourceKey) : undefined));
        // Unchanged since the build the edit state describes: its kept entry named as it is, its
        // columns and scratch bytes copied; nothing of it read, parsed or made.
        const previous = source && editState?.find(source);
        const termsAt =
          previous === undefined
            ? undefined
            : options.kept!.repeat(
                editState!.entryDigestAt(previous),
                source!,
                {
                  part: editState!.columns.keptPart[previous]!,
                  index: editState!.columns.keptIndex[previous]!,
                  offset: editState!.columns.keptOffset[previous]!,
                },
                editState!.columns.keptLength[previous]!,
                editState!.columns.fieldsOffset[previous]!,
              );
        if (termsAt !== undefined) {
          if (changed !== undefined) {
            waitingArrivals.push(arrival);
            waitingAt.push(termsAt);
          } else addToRun(arrival, options.kept!.termsAt(termsAt));
          editRecorder?.note(arrival, source);
          columns.addRepeated(document.id, editState!, previous!);
          continue;
        }
        const { share, digest } = shareOf(document, stemming, options.kept, counter, keysTitlePacks);
        if (changed !== undefined && share.termsAt !== undefined) {
          waitingArrivals.push(arrival);
          waitingAt.push(share.termsAt);
        } else {
          const terms = share.terms();
          addToRun(arrival, terms);
          if (changed !== undefined && changed.length < MAX_PATCHED_DOCUMENTS)
            changed.push({ arrival, number: 0, keys: terms.keys, counts: terms.counts, tokenCount: share.tokenCount });
          else changed = undefined;
        }
        editRecorder?.note(arrival, source);
        columns.add(document, share, digest);
      }
  } finally {
    columns.close();
  }
  editRecorder?.noteColumns(columns);
  // Held past the state's release: the ids' order when they are the previous build's.
  const orderHint = editState?.columns.order;
  editState?.release();
  options.kept?.endLookups();

  noteMemory('search/documents');
  const count = columns.count;
  const { tokenCount } = columns;
  const { byNumber, numberOf } = columns.numbers(orderHint);
  editRecorder?.noteOrder(byNumber);

  const averageLength = weightAverageLengthOf({ documentCount: count, tokenCount });
  const termsFile = path.join(scratch, 'terms');
  const documentsDigest = previousTerms || options.keptTerms?.writer ? columns.idsDigest(byNumber) : '';
  let termSource: RecordSource | undefined;
  // The kept records (termsFile) hold every list; those the reader finds under their word are
  // left out of the packs, found as the records are written.
  let stemLists: RepeatedStemLists | undefined;
  const newStemLists = () => {
    stemLists = stemming === 'none' ? undefined : new RepeatedStemLists();
    return stemLists?.visit;
  };
  let patchedFrom: string | undefined;
  const termFolder = `${SEARCH_FOLDER}terms/`;
  const termTargets = {
    targetPackBytes: options.targetPackBytes ?? TERM_PACK_BYTES,
    targetIndexBytes: options.targetTermIndexBytes ?? TERM_INDEX_BYTES,
  };
  // The term part written from the previous layout, when it could be.
  let byLayout: Awaited<ReturnType<typeof packTermsByLayout>>;
  const patchable =
    previousTerms !== undefined &&
    changed !== undefined &&
    previousTerms.state.documents === documentsDigest &&
    previousTerms.state.averageLength === averageLength;
  if (patchable) {
    // Every other document's postings are the previous records' (same ids, numbers and weights).
    for (const document of changed!) document.number = numberOf[document.arrival]!;
    byLayout = await packTermsByLayout(
      termFolder,
      previousTerms,
      changed!,
      count,
      averageLength,
      termsFile,
      stemming !== 'none',
      termTargets,
      options.packReuse?.(termFolder),
      writeFile,
      noteMemory,
    );
  }
  if (byLayout === undefined && patchable) {
    try {
      const patched = patchTermRecords(previousTerms!, changed!, count, averageLength, termsFile, newStemLists());
      termSource = termRecordSource(termsFile, patched, patched.origins);
      patchedFrom = previousTerms!.sha256;
    } catch {
      // Records that are not the ones their state names (KeptTermsChangedError), end early or do
      // not parse: merged from the runs, as a first build's (a failing write fails there too).
    }
  }
  if (termSource === undefined && byLayout === undefined) {
    waitingArrivals.forEach((arrival, position) => {
      addToRun(arrival, options.kept!.termsAt(waitingAt[position]!));
    });
    flushRun();
    // Every posting is in a run file now: the run's arrays (up to 16 bytes a posting of its
    // capacity) go before the merge, not after it.
    run.release();
    noteMemory('search/runs');
    termSource = mergeRuns(runFiles, numberOf, columns.tokenCounts, termsFile, averageLength, newStemLists());
  }
  run.release();
  const termReuse = termPackReuse(options.packReuse?.(termFolder), patchedFrom);
  const termPacks: SearchPackRow[] = byLayout?.packRows ?? [];
  const recorder = options.keptTerms?.writer && !byLayout ? new TermLayoutRecorder() : undefined;
  const terms =
    byLayout?.rows ??
    (await packRecords(
      termFolder,
      KEY_KIND.term,
      stemLists === undefined ? termSource! : stemLists.applyTo(termSource!),
      termTargets,
      SEARCH_FILE_LIMITS.terms,
      writeFile,
      undefined,
      termReuse.reuse,
      termPacks,
      recorder,
    ));
  noteMemory('search/terms');
  const termsWriter = options.keptTerms?.writer;
  const keptTermsSha = termsWriter?.keep(termsFile, { documents: documentsDigest, averageLength });
  if (keptTermsSha !== undefined) {
    const layout = byLayout?.layout ?? recorder?.layoutOf(termsFile, termSource!.count);
    if (layout !== undefined) termsWriter!.keepLayout(layout);
    // The packs' keys by their records' positions, for a build that patches without the layout.
    for (const pack of byLayout?.layout.packs ?? []) termReuse.reuse?.madeRange(pack.start, pack.lastPacked, pack.path);
    termReuse.keyMade(keptTermsSha);
  }
  const { titles, stored, titlePacks } = await packDocumentParts(
    columns,
    byNumber,
    blockSize,
    {
      titles: {
        targetPackBytes: options.targetPackBytes ?? TITLE_PACK_BYTES,
        targetIndexBytes: options.targetIndexBytes ?? TITLE_INDEX_BYTES,
      },
      stored: targets,
    },
    writeFile,
    options.packReuse?.(`${SEARCH_FOLDER}titles/`),
    noteMemory,
  );
  // Out of the scratch folder before the caller removes it: the next edit copies from them.
  editRecorder?.keepSpills();
  const rows = { terms, titles, documents: stored, termPacks, titlePacks };
  const { extension, files } = searchExtensionOf(count, tokenCount, blockSize, rows, options);
  for (const file of files) await writeFile(file.path, file.bytes);
  return extension;
}

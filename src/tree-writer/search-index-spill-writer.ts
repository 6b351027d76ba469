// The search index writer for corpora of any size (issue #25): the same files, byte for byte, as
// writeSearchIndex (test/helpers/in-memory-search-index.ts, which holds the whole corpus in
// memory), in memory flat with the corpus. Documents stream in (any order, once each); what they
// leave in memory is their id and four numbers. Their postings (term, arrival, tf, docLength)
// collect in a bounded run that is sorted by term and written to `scratchFolder` when full; the
// runs are k-way merged into the term records (each term's postings renumbered by id order and
// sorted), which go to a scratch file and are then packed in one pass (search-posting-runs.ts,
// search-record-packer.ts). Titles, fetch bodies and excerpt sources go to three scratch files as
// they arrive and are read back by offset in block (a block's sources after it) and key order
// (search-scratch-records.ts); with pack reuse, each title item is followed by its document's
// entry digest, which keys the title packs, so a linked pack's titles and sources are never read.
// Files are handed to `writeFile` as each pack or index closes, never held together. The caller owns `scratchFolder`
// (the build puts it beside its output folder, swap-folders.ts, and removes it;
// interrupted-write.ts removes the one a killed build left).
import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import { KEY_KIND } from '../core/packs/pack-format.js';
import { DEFAULT_TITLE_BLOCK_SIZE, SEARCH_FOLDER, type SearchPackRow } from '../core/search/search-index-format.js';
import { IndexKeyCounter, type KeyCounts } from './search-key-counter.js';
import { sipHash13Halves } from '../core/tree/siphash.js';
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
  titleFileLimits,
  TERM_INDEX_BYTES,
  TERM_PACK_BYTES,
  TITLE_INDEX_BYTES,
  TITLE_PACK_BYTES,
} from './search-index-targets.js';
import { grownTypedArray } from './grown-typed-array.js';
import { readAt, SpillWriter, WindowReader } from './spill-files.js';
import { weightAverageLengthOf } from '../core/search/postings.js';
import {
  type PackReuse,
  packRecords,
  type RecordPlace,
  type RecordSource,
  type WriteIndexFile,
} from './search-record-packer.js';
import { RepeatedStemLists } from './search-stem-lists.js';
import { mergeRuns, PostingRun, termRecordSource } from './search-posting-runs.js';
import { SpilledLengths } from './spilled-lengths.js';
import { StringArena } from './string-arena.js';
import {
  type ChangedDocument,
  documentsDigestOf,
  type KeptTermsWriter,
  MAX_PATCHED_DOCUMENTS,
  type PreviousTerms,
  patchTermRecords,
} from './search-kept-terms.js';
import { documentRecords, titleRecords } from './search-scratch-records.js';
import { packTermsByLayout, TermLayoutRecorder } from './search-term-part.js';
import type { KeptSearchDocuments } from './search-kept-documents.js';
import { hasExcerptSource, shareOf } from './search-document-share.js';

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
}

/** An entry digest's bytes (sha256). */
const DIGEST_BYTES = 32;

/** A term pack's key: the kept term records (their sha256, hex) and the positions of its first and last record there. */
function termRangeKeyOf(recordsSha: string, first: number, last: number): string {
  return createHash('sha256').update(`terms\0${recordsSha}\0${first}\0${last}`).digest('hex');
}

/**
 * The term part's pack reuse: a pack whose records are the previous records `first` to `last`
 * unchanged (patchTermRecords copied them) is the previous build's pack of those, found by the key
 * made of the previous kept records' sha256 and those positions; this build's packs get their keys
 * once its own records are kept (`keyMade`), since the key names the file the positions are in.
 */
function termPackReuse(reuse: PackReuse | undefined, previousSha: string | undefined) {
  const made: { first: number; last: number; path: string }[] = [];
  return {
    reuse: reuse && {
      find: () => undefined,
      link: (packPath: string) => reuse.link(packPath),
      made: () => {},
      findRange: (first: number, last: number) =>
        previousSha === undefined ? undefined : reuse.find(termRangeKeyOf(previousSha, first, last)),
      madeRange: (first: number, last: number, packPath: string) => {
        made.push({ first, last, path: packPath });
      },
    },
    keyMade: (recordsSha: string) => {
      for (const pack of made) reuse?.made(termRangeKeyOf(recordsSha, pack.first, pack.last), pack.path);
    },
  };
}

/** The documents' ids in number order. */
function* byIdOrder(byNumber: Uint32Array, ids: StringArena): Iterable<string> {
  for (const arrival of byNumber) yield ids.at(arrival);
}

/**
 * Writes the index of `documents` through `writeFile` and returns mcp.json's `staticmcp.search`.
 * Throws as writeSearchIndex does: an id that is not a plain tree path or repeats, a document
 * past MAX_PACK_BYTES.
 */
export async function writeSearchIndexSpilling(
  documents: AsyncIterable<SearchDocument> | Iterable<SearchDocument>,
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

  // By arrival: the id, where its title item and fetch body sit in their scratch files, its key,
  // in typed arrays (grown as documents come): a JavaScript array slot per number per document
  // was heap the rest of the index write kept, and the heap grows to a multiple of what it holds.
  // The ids as UTF-8 side by side: a string and an array slot each was heap kept to the end.
  const ids = new StringArena();
  // Each scratch file's items by arrival: lengths, their offsets summed from them (spilled-lengths.ts).
  const titleItems = new SpilledLengths(keysTitlePacks ? DIGEST_BYTES : 0);
  const bodies = new SpilledLengths();
  let keyHigh = new Uint32Array(1024);
  let keyLow = new Uint32Array(1024);
  // Each excerpt source's bytes (0: the document has none) and where it sits in its scratch file.
  const sources = new SpilledLengths();
  const titleSpill = new SpillWriter(path.join(scratch, 'titles'));
  const bodySpill = new SpillWriter(path.join(scratch, 'bodies'));
  const sourceSpill = new SpillWriter(path.join(scratch, 'excerpts'));
  const runFiles: string[] = [];
  const run = new PostingRun(Math.min(runLimit, 1 << 16));
  const counter = new IndexKeyCounter(stemming);
  let tokenCount = 0;

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
  // By arrival, as the other columns (a heap array of numbers was heap kept to the end).
  let tokenCounts = new Uint32Array(1024);

  try {
    for await (const document of documents) {
      options.onDocument?.(document);
      assertPlainTreePath(document.id, 'A search document id');
      const arrival = ids.length;
      ids.push(document.id);
      const { share, digest } = shareOf(document, stemming, options.kept, counter, keysTitlePacks);
      tokenCount += share.tokenCount;
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
      // An entry's title and url, as they end its title block entry (the id's part depends on its neighbour).
      // Encoded straight into the spill buffer: a Buffer each was garbage a document.
      const titleItemLength = titleSpill.appendUtf8(JSON.stringify([document.title, document.url]).slice(1, -1));
      const filled = arrival + 1;
      keyHigh = grownTypedArray(keyHigh, filled);
      keyLow = grownTypedArray(keyLow, filled);
      tokenCounts = grownTypedArray(tokenCounts, filled);
      tokenCounts[arrival] = share.tokenCount;
      titleItems.push(titleItemLength);
      // Its entry digest waits after its title item: the title packs are keyed by it.
      if (keysTitlePacks) titleSpill.append(digest!);
      const body = share.body;
      bodies.push(body.length);
      bodySpill.append(body);
      // A resource listed by its kept source has an excerpt source exactly when its text is not empty.
      const source = (
        document.sourceKey !== undefined && document.textFrom !== 'call'
          ? share.excerpt.length > 0
          : hasExcerptSource(document)
      )
        ? share.excerpt
        : undefined;
      sources.push(source?.length ?? 0);
      if (source !== undefined) sourceSpill.append(source);
      const [high, low] = sipHash13Halves(ids.bytesAt(arrival));
      keyHigh[arrival] = high;
      keyLow[arrival] = low;
    }
  } finally {
    titleSpill.close();
    bodySpill.close();
    sourceSpill.close();
  }
  options.kept?.endLookups();

  noteMemory('search/documents');
  // Numbers are positions in id order (UTF-8), as writeSearchIndex numbers them.
  const count = ids.length;
  const byNumber = Uint32Array.from({ length: count }, (_, arrival) => arrival).sort((left, right) =>
    ids.compareBytes(left, right),
  );
  const numberOf = new Uint32Array(count);
  byNumber.forEach((arrival, number) => {
    numberOf[arrival] = number;
    if (number > 0 && ids.compareBytes(byNumber[number - 1]!, arrival) === 0)
      throw new Error(`two search documents have the id ${ids.at(arrival)}`);
  });

  const averageLength = weightAverageLengthOf({ documentCount: count, tokenCount });
  const termsFile = path.join(scratch, 'terms');
  const documentsDigest = previousTerms || options.keptTerms?.writer ? documentsDigestOf(byIdOrder(byNumber, ids)) : '';
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
    termSource = mergeRuns(runFiles, numberOf, tokenCounts, termsFile, averageLength, newStemLists());
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
  // Where each document source lies in its title pack: its fetch record's index entry points there.
  const placePacks: RecordPlace['pack'][] = [];
  const placePackNumber = new Uint32Array(count);
  const placeOffset = new Uint32Array(count);
  const placeLength = new Uint32Array(count);
  const titleLength = titleItems.lengthOf;
  const bodyLength = bodies.lengthOf;
  const sourceLength = sources.lengthOf;
  const placeFollower = (arrival: number, place: RecordPlace) => {
    if (bodyLength[arrival] !== 0) return;
    if (placePacks.at(-1) !== place.pack) placePacks.push(place.pack);
    placePackNumber[arrival] = placePacks.length - 1;
    placeOffset[arrival] = place.offset;
    placeLength[arrival] = place.length;
  };
  const titlesFd = openSync(titleSpill.file, 'r');
  const bodiesFd = openSync(bodySpill.file, 'r');
  const sourcesFd = openSync(sourceSpill.file, 'r');
  // Titles and excerpt sources are read by number, about the order they arrived in: by window.
  const titleReader = new WindowReader(titlesFd);
  const sourceReader = new WindowReader(sourcesFd);
  try {
    const titlePacks: SearchPackRow[] = [];
    const titles = await packRecords(
      `${SEARCH_FOLDER}titles/`,
      KEY_KIND.term,
      titleRecords(
        byNumber,
        blockSize,
        ids,
        titleLength,
        (arrival) => titleReader.read(titleItems.offsetAt(arrival), titleLength[arrival]!),
        sourceLength,
        (arrival) => sourceReader.read(sources.offsetAt(arrival), sourceLength[arrival]!),
        (arrival) => bodyLength[arrival] === 0,
        keysTitlePacks
          ? (arrival) => titleReader.read(titleItems.offsetAt(arrival) + titleLength[arrival]!, DIGEST_BYTES)
          : undefined,
      ),
      {
        targetPackBytes: options.targetPackBytes ?? TITLE_PACK_BYTES,
        targetIndexBytes: options.targetIndexBytes ?? TITLE_INDEX_BYTES,
      },
      // An index of call results alone has small title blocks; one storing text, larger packs' worth.
      titleFileLimits(sourceLength.subarray(0, count).some((length) => length > 0)),
      writeFile,
      placeFollower,
      options.packReuse?.(`${SEARCH_FOLDER}titles/`),
      titlePacks,
    );
    noteMemory('search/titles');
    const stored = await packRecords(
      `${SEARCH_FOLDER}documents/`,
      KEY_KIND.call,
      documentRecords(
        ids,
        keyHigh,
        keyLow,
        bodyLength,
        (arrival) => readAt(bodiesFd, bodies.offsetAt(arrival), bodyLength[arrival]!),
        (arrival) => ({
          pack: placePacks[placePackNumber[arrival]!]!,
          offset: placeOffset[arrival]!,
          length: placeLength[arrival]!,
        }),
      ),
      targets,
      SEARCH_FILE_LIMITS.documents,
      writeFile,
    );
    noteMemory('search/stored');
    const rows = { terms, titles, documents: stored, termPacks, titlePacks };
    const { extension, tableFile } = searchExtensionOf(count, tokenCount, blockSize, rows, options);
    if (tableFile !== undefined) await writeFile(tableFile.path, tableFile.bytes);
    return extension;
  } finally {
    closeSync(titlesFd);
    closeSync(bodiesFd);
    closeSync(sourcesFd);
  }
}

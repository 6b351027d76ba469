// `/llms.txt` and `/llms-full.txt` (the llmstxt.org convention) of a content tree, from the same
// documents the search index holds, as they stream past its writer: llms.txt is the server's
// title, a one-line summary and a linked list of every document grouped by folder; llms-full.txt
// is each document's title, page and whole text, up to a byte cap (limits.maxLlmsFullBytes), then
// a last line saying how many were left out. Links are absolute with publicUrl, else relative to
// the tree's root, where both files sit, so they open on whatever host serves the tree.
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import { isObject, type JsonObject } from '../core/tree/json-object.js';
import { documentUrlBase, resolveDocumentUrl } from '../core/search/document-url.js';
import type { SearchDocument } from '../core/search/tree-documents.js';
import { sortPositions } from './sort-positions.js';
import { SpillWriter } from './spill-files.js';
import { SpilledLengths } from './spilled-lengths.js';
import { compareUtf8AsUtf16, StringArena } from './string-arena.js';
import { grownTypedArray, releaseGrown } from './grown-typed-array.js';
import type { KeptLlmsEntries } from './llms-kept-entries.js';
import { FullEntries } from './llms-full-entries.js';
import { FolderNames } from './llms-folders.js';

export const LLMS_FILE = 'llms.txt';
export const LLMS_FULL_FILE = 'llms-full.txt';
/** limits.maxLlmsFullBytes's default (staticmcp.schema.json declares it for projects). */
export const DEFAULT_MAX_LLMS_FULL_BYTES = 8 * 1024 * 1024;

/** What inline changes: whitespace other than a space, a space not between two other characters, a bracket. */
const NOT_INLINE = /[^\S ]|[[\]]| {2}|^ | $/;

/** One line of Markdown text: no line breaks, and none of the characters that would end a link. */
function inline(text: string): string {
  // Most titles are one line with single spaces: nothing to replace, and no new string made.
  if (!NOT_INLINE.test(text)) return text;
  return text
    .replace(/\s+/g, ' ')
    .replace(/[[\]]/g, (bracket) => `\\${bracket}`)
    .trim();
}

/** A link target that opens from the file's own place, `/`. */
function linkTarget(stored: string, base: string | undefined): string {
  const absolute = resolveDocumentUrl(stored, base);
  if (absolute !== '') return absolute.replace(/[()\s]/g, encodeURIComponent);
  return (stored.startsWith('?') ? `./${stored}` : stored).replace(/[()\s]/g, encodeURIComponent);
}

/** A section's `count` lines as UTF-8 side by side, each from `starts[i]` to `ends[i]`. */
interface SectionLines {
  bytes: Uint8Array;
  starts: Uint32Array;
  ends: Uint32Array;
  count: number;
}

/**
 * The arrays every section of llms.txt is read into and sorted in, sized once for the largest
 * section (a large tree's sections hold megabytes of lines each). New arrays per section would be
 * garbage waiting for a collection, piling up in glibc's heap at the build's peak; these are
 * given back at once when llms.txt is written (releaseGrown).
 */
class SectionScratch {
  bytes: Uint8Array;
  starts: Uint32Array;
  ends: Uint32Array;
  order: Uint32Array;
  /** The sorted lines, each with its line break. */
  out: Uint8Array;

  constructor(maxBytes: number, maxLines: number) {
    this.bytes = grownTypedArray(new Uint8Array(0), maxBytes);
    this.starts = grownTypedArray(new Uint32Array(0), maxLines);
    this.ends = grownTypedArray(new Uint32Array(0), maxLines);
    this.order = grownTypedArray(new Uint32Array(0), maxLines);
    this.out = grownTypedArray(new Uint8Array(0), maxBytes + maxLines);
  }

  release(): void {
    this.bytes = releaseGrown(this.bytes);
    this.starts = releaseGrown(this.starts);
    this.ends = releaseGrown(this.ends);
    this.order = releaseGrown(this.order);
    this.out = releaseGrown(this.out);
  }
}

/** Bytes read at a time from the lines' scratch file (a section's lines usually lie side by side). */
const LINE_WINDOW_BYTES = 1 << 20;

/**
 * Where llms.txt's lines wait for the end (issue #39, "Memory": ~100 bytes a document): a scratch
 * file when the writer has a scratch folder (the build's), with about 4 bytes a line in memory; else
 * memory. A section's lines are read back together when it is written.
 */
class LineStore {
  private readonly arena = new StringArena();
  private readonly spill: SpillWriter | undefined;
  /** Each spilled line's length, its offset summed from them: no offset column of 8 bytes a line. */
  private readonly spilled = new SpilledLengths();
  private writing: boolean;
  private fd: number | undefined;
  /**
   * The window of the scratch file read last, kept from section to section: a new 1 MiB buffer
   * per section was garbage that only a full collection gave back, at the build's peak.
   */
  private window: Uint8Array = new Uint8Array(0);
  private windowAt = 0;
  private windowFilled = 0;

  constructor(scratchFolder: string | undefined) {
    this.spill = scratchFolder === undefined ? undefined : new SpillWriter(path.join(scratchFolder, 'llms-lines'));
    this.writing = this.spill !== undefined;
  }

  /** Appends a line; returns its position. */
  push(line: string): number {
    if (this.spill === undefined) return this.arena.push(line);
    const position = this.spilled.count;
    this.spilled.push(this.spill.appendUtf8(line));
    return position;
  }

  /** The lines at `positions` (ascending), copied side by side into `scratch` (valid until its next use). */
  read(positions: Uint32Array, scratch: SectionScratch): SectionLines {
    const { starts, ends } = scratch;
    let total = 0;
    positions.forEach((position, index) => {
      starts[index] = total;
      total += this.lengthOf(position);
      ends[index] = total;
    });
    const { bytes } = scratch;
    const lines = { bytes, starts, ends, count: positions.length };
    if (this.spill === undefined) {
      positions.forEach((position, index) => {
        bytes.set(this.arena.bytesAt(position), starts[index]!);
      });
      return lines;
    }
    if (this.writing) {
      this.spill.close();
      this.writing = false;
    }
    this.fd ??= openSync(this.spill.file, 'r');
    // Through a window of the file: one read for many lines that lie side by side.
    positions.forEach((position, index) => {
      const at = this.spilled.offsetAt(position);
      const length = this.spilled.lengthAt(position);
      if (at < this.windowAt || at + length > this.windowAt + this.windowFilled) this.fillWindow(at, length);
      bytes.set(this.window.subarray(at - this.windowAt, at - this.windowAt + length), starts[index]!);
    });
    return lines;
  }

  /** Reads the scratch file from `at` into the window, at least `length` bytes (a line). */
  private fillWindow(at: number, length: number): void {
    const size = Math.min(Math.max(length, LINE_WINDOW_BYTES), this.spill!.bytes - at);
    if (this.window.length < size) this.window = new Uint8Array(Math.max(size, LINE_WINDOW_BYTES));
    let filled = 0;
    while (filled < size) {
      const read = readSync(this.fd!, this.window, filled, size - filled, at + filled);
      if (read === 0) throw new Error('a scratch file ended early');
      filled += read;
    }
    this.windowAt = at;
    this.windowFilled = filled;
  }

  lengthOf(position: number): number {
    return this.spill === undefined ? this.arena.bytesAt(position).length : this.spilled.lengthAt(position);
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    if (this.writing) this.spill!.close();
    this.window = new Uint8Array(0);
    this.windowFilled = 0;
    this.fd = undefined;
    this.writing = false;
  }
}

/**
 * A section's lines in the order a sort of their strings gives, each ending in a line break: a
 * view of `scratch.out`, valid until its next use.
 */
function sortedSectionBytes(section: SectionLines, scratch: SectionScratch): Uint8Array {
  const { bytes, starts, ends, count } = section;
  const order = scratch.order.subarray(0, count);
  for (let index = 0; index < count; index++) order[index] = index;
  sortPositions(order, (left, right) =>
    compareUtf8AsUtf16(bytes, starts[left]!, ends[left]!, starts[right]!, ends[right]!),
  );
  const { out } = scratch;
  let at = 0;
  for (const index of order) {
    out.set(bytes.subarray(starts[index]!, ends[index]!), at);
    at += ends[index]! - starts[index]!;
    out[at++] = 0x0a;
  }
  return out.subarray(0, at);
}

export class LlmsTxtWriter {
  /** Each section's number, by its folder. */
  private readonly sections = new Map<string, number>();
  /**
   * By line position in `lines`: its section's number (a line as a string per document would be
   * held to the end, and a JavaScript array of positions per section was heap, in V8's
   * large-object space once it held a few tens of thousands).
   */
  private sectionOfLine = new Uint32Array(256);
  private lineCount = 0;
  private readonly lines: LineStore;
  /** The ids of llms-full.txt's entries (by position), which order the file. */
  private readonly fullIds = new StringArena();
  private readonly full: FullEntries;
  private fullBytes = 0;
  private leftOut = 0;
  private readonly base: string | undefined;
  private readonly folders = new FolderNames();

  constructor(
    private readonly manifest: JsonObject,
    publicUrl: string | undefined,
    private readonly maxFullBytes = DEFAULT_MAX_LLMS_FULL_BYTES,
    /** Where llms-full.txt's entries wait (absent: in memory); the caller owns and removes it. */
    scratchFolder?: string,
    /** The previous build's entries, by source key (llms-kept-entries.ts): a kept document's text is not read. */
    private readonly kept?: KeptLlmsEntries,
  ) {
    this.base = documentUrlBase(publicUrl, undefined);
    this.full = new FullEntries(scratchFolder);
    this.lines = new LineStore(scratchFolder);
  }

  add(document: SearchDocument): void {
    const target = linkTarget(document.url, this.base);
    const folder = this.folders.of(document);
    let section = this.sections.get(folder);
    if (section === undefined) {
      section = this.sections.size;
      this.sections.set(folder, section);
    }
    const line = this.lines.push(`- [${inline(document.title) || document.id}](${target})`);
    this.lineCount = line + 1;
    this.sectionOfLine = grownTypedArray(this.sectionOfLine, this.lineCount);
    this.sectionOfLine[line] = section;
    // Past the cap every later document is left out too: its entry is never made.
    if (this.leftOut > 0) {
      this.leftOut += 1;
      return;
    }
    const key =
      this.kept === undefined
        ? undefined
        : document.sourceDigest !== undefined
          ? this.kept.keyOfDigest(document.sourceDigest, this.base)
          : document.sourceKey !== undefined
            ? this.kept.keyOf(document.sourceKey, this.base)
            : undefined;
    // An unchanged entry whose part the edit state vouches for: named as it is, never read.
    const fits = (length: number) => this.fullBytes + length <= this.maxFullBytes;
    const repeated = key && this.full.placesEntries ? this.kept!.repeat(key, fits) : undefined;
    if (repeated) {
      this.fullIds.push(document.id);
      this.full.addPlaced(repeated.length, repeated.place);
      this.fullBytes += repeated.length;
      return;
    }
    const keptEntry = key && this.kept!.lookup(key);
    const entry =
      keptEntry || `# ${inline(document.title) || document.id}\n\nSource: ${target}\n\n${document.text.trim()}\n\n`;
    // Counted without encoding: a copy of every document's text is garbage the build collects.
    const bytes = typeof entry === 'string' ? Buffer.byteLength(entry, 'utf8') : entry.length;
    if (this.fullBytes + bytes > this.maxFullBytes) {
      this.leftOut += 1;
      return;
    }
    this.fullIds.push(document.id);
    const entryBytes = typeof entry === 'string' ? Buffer.from(entry, 'utf8') : entry;
    // A kept entry is read back from its kept part when the file is written: its bytes written once.
    this.full.add(entryBytes, key ? this.kept!.add(key, entryBytes) : undefined);
    this.fullBytes += bytes;
  }

  /** How many documents llms-full.txt leaves out (past its cap). */
  get leftOutCount(): number {
    return this.leftOut;
  }

  private heading(): string {
    const info = isObject(this.manifest.serverInfo) ? this.manifest.serverInfo : {};
    const title = [info.title, info.name].find((value) => typeof value === 'string' && value.trim() !== '');
    const summary = [info.description, this.manifest.instructions].find(
      (value) => typeof value === 'string' && value.trim() !== '',
    );
    const lines = [`# ${inline(typeof title === 'string' ? title : 'Documents')}`, ''];
    if (typeof summary === 'string') lines.push(`> ${inline(summary)}`, '');
    return lines.join('\n');
  }

  /** llms.txt: sections in name order, each one's lines in string order. */
  renderIndex(): string {
    // Each piece copied as it comes: a section's is a view valid only until the next.
    const pieces: Uint8Array[] = [];
    for (const piece of this.indexPieces()) pieces.push(piece.slice());
    return Buffer.concat(pieces).toString('utf8');
  }

  /**
   * llms.txt's pieces in order, as UTF-8: the heading, then each section (its lines read back and
   * sorted one section at a time). Every piece ends in one line break, so joined they are the file.
   * A section's piece is a view valid until the next piece.
   */
  private *indexPieces(): Generator<Uint8Array> {
    // The lines grouped by section, each section's in the order they came (a counting sort).
    const sectionCount = this.sections.size;
    const start = new Uint32Array(sectionCount + 1);
    const sectionBytes = new Float64Array(sectionCount);
    for (let line = 0; line < this.lineCount; line += 1) {
      const section = this.sectionOfLine[line]!;
      start[section + 1]! += 1;
      sectionBytes[section]! += this.lines.lengthOf(line);
    }
    let maxLines = 0;
    let maxBytes = 0;
    for (let section = 0; section < sectionCount; section += 1) {
      maxLines = Math.max(maxLines, start[section + 1]!);
      maxBytes = Math.max(maxBytes, sectionBytes[section]!);
      start[section + 1]! += start[section]!;
    }
    let grouped = grownTypedArray(new Uint32Array(0), this.lineCount);
    const next = start.slice(0, sectionCount);
    for (let line = 0; line < this.lineCount; line += 1) grouped[next[this.sectionOfLine[line]!]!++] = line;
    const scratch = new SectionScratch(maxBytes, maxLines);
    try {
      yield Buffer.from(this.heading(), 'utf8');
      for (const folder of [...this.sections.keys()].sort()) {
        const section = this.sections.get(folder)!;
        const positions = grouped.subarray(start[section]!, start[section + 1]!);
        yield Buffer.from(`\n## ${inline(folder)}\n\n`, 'utf8');
        yield sortedSectionBytes(this.lines.read(positions, scratch), scratch);
      }
    } finally {
      scratch.release();
      grouped = releaseGrown(grouped);
      this.lines.close();
    }
  }

  /**
   * Writes llms.txt to `file` section by section (never whole in memory) and returns its digest
   * and size, for TreeOutput.writeFromFile.
   */
  writeIndexFile(file: string): { digest: Buffer; sizeBytes: number } {
    return writeDigested(file, this.indexPieces());
  }

  renderFull(): string {
    return this.renderFullBytes().toString('utf8');
  }

  /** llms-full.txt's pieces in order, as UTF-8 (each a copy or a view valid until the next). */
  private *fullPieces(): Generator<Uint8Array> {
    this.full.readFrom(this.kept?.finishParts());
    yield Buffer.from(`${this.heading()}\n`, 'utf8');
    // By id, so the file does not depend on the order the documents came in (build, merge, index).
    yield* this.full.bytesInOrder(this.fullIds.sortedPositions());
    if (this.leftOut > 0)
      yield Buffer.from(
        `(${this.leftOut} more documents are left out: this file stops at limits.maxLlmsFullBytes, ${this.maxFullBytes} bytes; see llms.txt for the whole list.)\n`,
        'utf8',
      );
  }

  /** llms-full.txt's bytes, joined once from the entries' (never one string of the whole file). */
  renderFullBytes(): Buffer {
    try {
      // Each piece copied as it comes: a view is valid only until the next.
      const pieces: Uint8Array[] = [];
      for (const piece of this.fullPieces()) pieces.push(piece.slice());
      return Buffer.concat(pieces);
    } finally {
      this.full.close();
    }
  }

  /**
   * Writes llms-full.txt to `file` piece by piece (never whole in memory) and returns its digest
   * (the tree writer's, digestFile) and size, for TreeOutput.writeFromFile.
   */
  writeFullFile(file: string): { digest: Buffer; sizeBytes: number } {
    try {
      return writeDigested(file, this.fullPieces());
    } finally {
      this.full.close();
    }
  }
}

/** Writes `pieces` to `file` and returns the tree writer's digest of them (digestFile) and their size. */
function writeDigested(file: string, pieces: Iterable<Uint8Array>): { digest: Buffer; sizeBytes: number } {
  const hash = createHash('sha256');
  // Linked into the tree as it is: a tree file's mode, not a scratch file's.
  const out = new SpillWriter(file, 0o666);
  try {
    for (const piece of pieces) {
      hash.update(piece);
      out.append(piece);
    }
  } finally {
    out.close();
  }
  return { digest: hash.digest(), sizeBytes: out.bytes };
}

/** The documents as they are, each also given to `llms` when there is one (the index's stream feeds both). */
export async function* teeDocuments(
  documents: AsyncIterable<SearchDocument>,
  llms: LlmsTxtWriter | undefined,
): AsyncGenerator<SearchDocument> {
  for await (const document of documents) {
    llms?.add(document);
    yield document;
  }
}

/** llms.txt and llms-full.txt as written into the tree, as UTF-8. */
export function llmsFiles(llms: LlmsTxtWriter): [string, Buffer][] {
  return [
    [LLMS_FILE, Buffer.from(llms.renderIndex(), 'utf8')],
    [LLMS_FULL_FILE, llms.renderFullBytes()],
  ];
}

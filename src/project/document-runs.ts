// Discovery's saved runs (issue #39, "Edits in a second"): `<project>/.staticmcp/cache/
// document-runs.bin` holds, for consecutive resource files of one folder that share a MIME type,
// what discovery made of them (their resource store's columns and their document-record entries),
// keyed by the up-to-date walk's bytes of those files (names and identities). An edit build whose
// walk shows the same bytes takes the whole run at once (resource-runs.ts): a few copies of byte
// ranges, not some ten steps a document.
// Layout: a header (magic, u32 key length, key), then blocks, each
//   u32 body length · u32 0 · body · sha256(key, body)
// and a body is a u32 count of sections, their u32 lengths, then the sections, each from an
// offset that is a multiple of 8 (so typed arrays view them in place): RUN_SECTIONS names them.
// Numbers are little-endian (a big-endian machine neither writes nor takes runs). Each block
// carries its own digest and is checked when it is read: a damaged, cut or foreign block costs its
// run, never a wrong document. A block describes files, not a build, so a true block of any
// earlier build still holds.
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, mkdirSync, openSync, readSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { SpillWriter } from '../tree-writer/spill-files.js';

const MAGIC = Buffer.from('staticmcp document runs 2\n', 'latin1');
const DIGEST_BYTES = 32;
export const IDENTITY_BYTES = 24;
/** A string length that stands for no string (a document without a title or description). */
export const NO_STRING = 0xffff_ffff;
/** A block past this is not read (a file a run cannot be). */
const MAX_BLOCK_BYTES = 1 << 28;
/** Where a block's body starts, after its length and a pad (a multiple of 8). */
const BODY_AT = 8;

/** The sections of a body, in order. */
const RUN_SECTIONS = [
  'folder', // from the project's root, `/`-separated, UTF-8
  'names', // each file's name followed by `/`, UTF-8
  'mimeType', // the run's one MIME type, UTF-8
  'identities', // inode, size, mtime ns (64 bits each) a file: what the walk compares
  'inodes', // the store's columns (file-resource-store.ts): two u32 halves, high first
  'mtimes', // the same
  'sizes', // f64
  'digests', // 32 bytes a file
  'texts', // u8: published as text
  'pathLengths', // u32 a file: its path under the resources folder
  'paths',
  'titleLengths', // u32 a file, NO_STRING for none
  'titles',
  'descriptionLengths',
  'descriptions',
  'entries', // the documents' record entries (document-record.ts), back to back
] as const;
type SectionName = (typeof RUN_SECTIONS)[number];
const SECTION_HEAD = 4 + 4 * RUN_SECTIONS.length;

/** A saved run's columns, in the store's own layout (file-resource-store.ts addRun). */
export interface StoredRun {
  count: number;
  mimeType: string;
  /** Two u32 halves a document, high first, as `inodes` and `mtimesNs` hold them. */
  inodes: Uint8Array;
  mtimes: Uint8Array;
  /** A f64 a document. */
  sizes: Uint8Array;
  texts: Uint8Array;
  digests: Uint8Array;
  /** Byte lengths (NO_STRING: none) and the UTF-8 back to back. */
  pathLengths: Uint32Array;
  paths: Uint8Array;
  titleLengths: Uint32Array;
  titles: Uint8Array;
  descriptionLengths: Uint32Array;
  descriptions: Uint8Array;
}

/** One saved run, as read and checked: its sections as views of the block. */
export interface DocumentRun extends StoredRun {
  folder: string;
  /** The files' names, each followed by `/`. */
  names: string;
  identities: Uint8Array;
  entries: Uint8Array;
  /** The whole block, its length and digest included, to be saved again as it is. */
  block: Uint8Array;
}

const isLittleEndian = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

function headerOf(key: string): Buffer {
  const keyBytes = Buffer.from(key, 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32LE(keyBytes.length, 0);
  return Buffer.concat([MAGIC, length, keyBytes]);
}

function digestOf(keyBytes: Buffer, body: Uint8Array): Buffer {
  return createHash('sha256').update(keyBytes).update(body).digest();
}

function padded(length: number): number {
  return (length + 7) & ~7;
}

/** The saved runs of a project, indexed by the path of each run's first file; blocks are read when taken. */
export class DocumentRunReader {
  private readonly starts = new Map<string, { at: number; length: number }>();

  private constructor(
    private fd: number | undefined,
    private readonly keyBytes: Buffer,
  ) {}

  /** The runs in `file` for `key`, or undefined when there are none to believe (missing, foreign, unreadable). */
  static open(file: string, key: string): DocumentRunReader | undefined {
    if (!isLittleEndian) return undefined;
    let fd: number | undefined;
    try {
      fd = openSync(file, 'r');
      const header = headerOf(key);
      const start = Buffer.alloc(header.length);
      if (readSync(fd, start, 0, header.length, 0) !== header.length || !start.equals(header)) return undefined;
      const reader = new DocumentRunReader(fd, header.subarray(MAGIC.length + 4));
      fd = undefined;
      reader.index(header.length);
      return reader;
    } catch {
      return undefined;
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }

  /** Finds each block's first file: one small read a block; a block cut short ends the index. */
  private index(first: number): void {
    const fd = this.fd!;
    const end = fstatSync(fd).size;
    const head = Buffer.alloc(4096);
    for (let at = first; at + BODY_AT <= end; ) {
      const got = readSync(fd, head, 0, head.length, at);
      const length = head.readUInt32LE(0);
      const blockBytes = BODY_AT + length + DIGEST_BYTES;
      if (length > MAX_BLOCK_BYTES || at + blockBytes > end) return;
      const firstPath = firstPathOf(head.subarray(0, got));
      if (firstPath !== undefined) this.starts.set(firstPath, { at, length: blockBytes });
      at += blockBytes;
    }
  }

  /** The run whose first file is `firstPath` (from the project's root), read and checked; undefined when none is believed. */
  take(firstPath: string): DocumentRun | undefined {
    const start = this.starts.get(firstPath);
    if (start === undefined || this.fd === undefined) return undefined;
    this.starts.delete(firstPath);
    try {
      // Its own buffer, from offset 0: the sections are viewed in place as typed arrays.
      const block = Buffer.from(new ArrayBuffer(start.length));
      if (readSync(this.fd, block, 0, block.length, start.at) !== block.length) return undefined;
      const bodyEnd = block.length - DIGEST_BYTES;
      const body = block.subarray(BODY_AT, bodyEnd);
      if (!digestOf(this.keyBytes, body).equals(block.subarray(bodyEnd))) return undefined;
      return decodeRun(body, block);
    } catch {
      return undefined;
    }
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

/** The sections of a body, or undefined when they do not fit in it. */
function sectionsOf(body: Buffer): Buffer[] | undefined {
  if (body.length < SECTION_HEAD || body.readUInt32LE(0) !== RUN_SECTIONS.length) return undefined;
  const sections: Buffer[] = [];
  let at = padded(SECTION_HEAD);
  for (let index = 0; index < RUN_SECTIONS.length; index += 1) {
    const length = body.readUInt32LE(4 + 4 * index);
    if (at + length > body.length) return undefined;
    sections.push(body.subarray(at, at + length));
    at = padded(at + length);
  }
  return sections;
}

/** The path of a block's first file, from the first bytes of the block (undefined: not within them). */
function firstPathOf(head: Buffer): string | undefined {
  const sections = sectionsOf(head.subarray(BODY_AT));
  if (sections === undefined) {
    // Cut by the read: the folder and names may still be there.
    const body = head.subarray(BODY_AT);
    if (body.length < SECTION_HEAD) return undefined;
    const folderAt = padded(SECTION_HEAD);
    const folderLength = body.readUInt32LE(4);
    const namesAt = padded(folderAt + folderLength);
    const slash = body.indexOf(0x2f, namesAt);
    if (slash < 0) return undefined;
    return joinPath(body.toString('utf8', folderAt, folderAt + folderLength), body.toString('utf8', namesAt, slash));
  }
  const [folder, names] = sections;
  const slash = names!.indexOf(0x2f);
  return slash < 0 ? undefined : joinPath(folder!.toString('utf8'), names!.toString('utf8', 0, slash));
}

function joinPath(folder: string, name: string): string {
  return folder === '' ? name : `${folder}/${name}`;
}

function u32View(section: Buffer): Uint32Array {
  return new Uint32Array(section.buffer, section.byteOffset, section.length / 4);
}

/** A checked body's sections as a run, or undefined when their sizes disagree with its count. */
function decodeRun(body: Buffer, block: Buffer): DocumentRun | undefined {
  const sections = sectionsOf(body);
  if (sections === undefined) return undefined;
  const named = Object.fromEntries(RUN_SECTIONS.map((name, index) => [name, sections[index]!])) as Record<
    SectionName,
    Buffer
  >;
  const count = named.identities.length / IDENTITY_BYTES;
  const fits =
    Number.isInteger(count) &&
    count > 0 &&
    named.inodes.length === 8 * count &&
    named.mtimes.length === 8 * count &&
    named.sizes.length === 8 * count &&
    named.digests.length === DIGEST_BYTES * count &&
    named.texts.length === count &&
    named.pathLengths.length === 4 * count &&
    named.titleLengths.length === 4 * count &&
    named.descriptionLengths.length === 4 * count;
  if (!fits) return undefined;
  return {
    folder: named.folder.toString('utf8'),
    count,
    names: named.names.toString('utf8'),
    mimeType: named.mimeType.toString('utf8'),
    identities: named.identities,
    inodes: named.inodes,
    mtimes: named.mtimes,
    sizes: named.sizes,
    digests: named.digests,
    texts: named.texts,
    pathLengths: u32View(named.pathLengths),
    paths: named.paths,
    titleLengths: u32View(named.titleLengths),
    titles: named.titles,
    descriptionLengths: u32View(named.descriptionLengths),
    descriptions: named.descriptions,
    entries: named.entries,
    block,
  };
}

/** One document of a run being written. */
export interface RunDocument {
  name: string;
  mimeType: string;
  text: boolean;
  /** Its path under the resources folder, UTF-8. */
  path: Uint8Array;
  title: Uint8Array | undefined;
  description: Uint8Array | undefined;
  /** Its record entry (length prefix included): inode, size and mtime are its bytes 5 to 29, its sha256 29 to 61. */
  entry: Uint8Array;
}

/** Writes the runs file beside its final name, block by block, and renames it over that at the end. */
export class DocumentRunWriter {
  private out: SpillWriter | undefined;
  private readonly keyBytes: Buffer;
  private folder = '';
  private mimeType = '';
  private documents: RunDocument[] = [];

  constructor(
    private readonly file: string,
    private readonly temp: string,
    key: string,
    /** At most this many documents a run. */
    private readonly maxRun: number,
  ) {
    this.keyBytes = Buffer.from(key, 'utf8');
    if (!isLittleEndian) return;
    mkdirSync(path.dirname(temp), { recursive: true });
    this.out = new SpillWriter(temp, 0o666);
    this.out.append(headerOf(key));
  }

  /** Adds a document to the run being gathered, after the previous one of `folder` (else a new run starts). */
  add(folder: string, document: RunDocument): void {
    if (this.out === undefined) return;
    const { documents } = this;
    if (
      documents.length > 0 &&
      (folder !== this.folder || document.mimeType !== this.mimeType || documents.length >= this.maxRun)
    )
      this.endRun();
    this.folder = folder;
    this.mimeType = document.mimeType;
    const copy = (bytes: Uint8Array | undefined) => (bytes === undefined ? undefined : Buffer.from(bytes));
    this.documents.push({
      ...document,
      path: Buffer.from(document.path),
      title: copy(document.title),
      description: copy(document.description),
      entry: Buffer.from(document.entry),
    });
  }

  /** Ends the run being gathered (the next document starts another). */
  endRun(): void {
    const { documents } = this;
    if (documents.length === 0 || this.out === undefined) return;
    this.documents = [];
    const count = documents.length;
    const entries = documents.map((document) => Buffer.from(document.entry));
    const column = (bytes: number, fill: (into: Buffer, at: number, entry: Buffer) => void) => {
      const into = Buffer.alloc(bytes * count);
      for (const [index, entry] of entries.entries()) fill(into, bytes * index, entry);
      return into;
    };
    const lengths = (pick: (document: RunDocument) => Uint8Array | undefined) => {
      const into = Buffer.alloc(4 * count);
      for (const [index, document] of documents.entries())
        into.writeUInt32LE(pick(document)?.length ?? NO_STRING, 4 * index);
      return into;
    };
    const joined = (pick: (document: RunDocument) => Uint8Array | undefined) =>
      Buffer.concat(documents.map(pick).filter((bytes) => bytes !== undefined));
    const sections: Record<SectionName, Buffer> = {
      folder: Buffer.from(this.folder, 'utf8'),
      names: Buffer.from(`${documents.map((document) => document.name).join('/')}/`, 'utf8'),
      mimeType: Buffer.from(this.mimeType, 'utf8'),
      identities: column(IDENTITY_BYTES, (into, at, entry) => entry.copy(into, at, 5, 5 + IDENTITY_BYTES)),
      inodes: column(8, (into, at, entry) => {
        into.writeUInt32LE(entry.readUInt32LE(9), at);
        into.writeUInt32LE(entry.readUInt32LE(5), at + 4);
      }),
      mtimes: column(8, (into, at, entry) => {
        into.writeUInt32LE(entry.readUInt32LE(25), at);
        into.writeUInt32LE(entry.readUInt32LE(21), at + 4);
      }),
      sizes: column(8, (into, at, entry) => into.writeDoubleLE(Number(entry.readBigUInt64LE(13)), at)),
      digests: column(DIGEST_BYTES, (into, at, entry) => entry.copy(into, at, 29, 29 + DIGEST_BYTES)),
      texts: Buffer.from(documents.map((document) => (document.text ? 1 : 0))),
      pathLengths: lengths((document) => document.path),
      paths: joined((document) => document.path),
      titleLengths: lengths((document) => document.title),
      titles: joined((document) => document.title),
      descriptionLengths: lengths((document) => document.description),
      descriptions: joined((document) => document.description),
      entries: Buffer.concat(entries),
    };
    const parts = RUN_SECTIONS.map((name) => sections[name]);
    const head = Buffer.alloc(padded(SECTION_HEAD));
    head.writeUInt32LE(parts.length, 0);
    for (const [index, part] of parts.entries()) head.writeUInt32LE(part.length, 4 + 4 * index);
    const body = Buffer.concat([
      head,
      ...parts.flatMap((part) => [part, Buffer.alloc(padded(part.length) - part.length)]),
    ]);
    const length = Buffer.alloc(BODY_AT);
    length.writeUInt32LE(body.length, 0);
    this.out.append(length);
    this.out.append(body);
    this.out.append(digestOf(this.keyBytes, body));
  }

  /** A run read from the previous file, saved again as it is (its digest holds under the same key). */
  addBlock(run: DocumentRun): void {
    this.endRun();
    this.out?.append(run.block);
  }

  /** Puts the file in place (a failure leaves the previous one, which is still true). */
  save(): void {
    if (this.out === undefined) return;
    try {
      this.endRun();
      this.out.close();
      this.out = undefined;
      renameSync(this.temp, this.file);
    } catch {
      this.discard();
    }
  }

  discard(): void {
    try {
      this.out?.close();
    } catch {
      // Closed or failed: removed all the same.
    }
    this.out = undefined;
    rmSync(this.temp, { force: true });
  }
}

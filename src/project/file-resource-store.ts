// The resource files discovery found, held compactly (issue #39, "Memory"): a build of 100,000
// documents keeps every one of them from discovery to the manifest. As plain objects each cost
// about 1.7 KB of heap (the resource, its content and source objects, a stats object of three
// bigints, its absolute path, URI and name as strings of their own, a title and a description
// as views into copies), and the heap grows to a multiple of what it holds. Here a document is
// one object of two fields (its store and its position); its relative path, title and
// description are UTF-8 in arenas, its MIME type a number, its identity on disk in typed arrays,
// and its path, URI and name are made when read. A relative path held as a string cost ~80 bytes
// of heap (a view and the copy it views), and the object ~24 more for its path and MIME type.
import path from 'node:path';
import { grownTypedArray, releaseGrown } from '../tree-writer/grown-typed-array.js';
import { StringArena } from '../tree-writer/string-arena.js';
import type { DocumentStats } from './document-cache.js';
import type { ProjectResource, ResourceFileSource } from './project-resource.js';
import { joinedPath } from './joined-path.js';
import { WalkedIdentity } from './walked-identities.js';
import { NO_STRING, type StoredRun } from './document-runs.js';

/** What a sidecar (or a registration) set, which wins over what the file's parse gives. */
export interface ResourceOverrides {
  uri?: string;
  name?: string;
  title?: string;
  description?: string;
}

/** A document as discovery adds it to the store. */
export interface FileResourceFields {
  relativePath: string;
  mimeType: string;
  /** Published as `text` (else as a base64 `blob`). */
  text: boolean;
  stats: DocumentStats;
  /** The sha256 of its bytes (hex, or the 32 bytes), as the document cache knows it. */
  sha256?: string | Uint8Array;
  title?: string;
  description?: string;
  pageUrl?: string;
  overrides?: ResourceOverrides;
}

/** A typed array's bytes, in place. */
function bytesOf(array: Uint32Array | Float64Array): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

/** A document's sidecar overrides and page URL. */
type Rare = ResourceOverrides & { pageUrl?: string };

/** A title or description position of none (positions are stored one up). */
const NONE = 0;
const INITIAL_COUNT = 256;

/** Where storeHalves splits a value (taken modulo 2^64 when set): no BigInt is made a document. */
const splitter = new DataView(new ArrayBuffer(8));

/** A 64-bit identity field as two 32-bit halves (high, low) at `slot` and `slot + 1`. */
function storeHalves(halves: Uint32Array, slot: number, value: bigint): void {
  splitter.setBigUint64(0, value);
  halves[slot] = splitter.getUint32(0);
  halves[slot + 1] = splitter.getUint32(4);
}

function readHalves(halves: Uint32Array, slot: number): bigint {
  return (BigInt(halves[slot]!) << 32n) | BigInt(halves[slot + 1]!);
}

/** A sha256 as its 32 bytes, when it is one (as hex or as bytes). */
function digestBytesOf(sha256: string | Uint8Array | undefined): Uint8Array | undefined {
  if (sha256 === undefined) return undefined;
  if (typeof sha256 !== 'string') return sha256.length === 32 ? sha256 : undefined;
  return /^[0-9a-f]{64}$/.test(sha256) ? Buffer.from(sha256, 'hex') : undefined;
}

export class FileResourceStore {
  /** The project's real path, taken once per build (the check that a file stays inside it). */
  realProjectRoot: string | undefined;
  private readonly texts = new StringArena();
  /** Each document's path under resourcesRoot, at its position. */
  private readonly paths = new StringArena();
  private mimeTypeAt = new Uint32Array(INITIAL_COUNT);
  /** Each MIME type once, however many documents have it; mimeTypeAt holds positions here. */
  private readonly mimeTypeList: string[] = [];
  /** What a sidecar set, or a page URL: few documents have either. */
  private readonly rares = new Map<number, Rare>();
  private titleAt = new Uint32Array(INITIAL_COUNT);
  private descriptionAt = new Uint32Array(INITIAL_COUNT);
  /** Two halves per document each. */
  private inodes = new Uint32Array(2 * INITIAL_COUNT);
  private mtimesNs = new Uint32Array(2 * INITIAL_COUNT);
  private sizes = new Float64Array(INITIAL_COUNT);
  private isText = new Uint8Array(INITIAL_COUNT);
  /** Each document's sha256, 32 bytes a document, and whether it is known. */
  private digests = new Uint8Array(32 * INITIAL_COUNT);
  private hasDigest = new Uint8Array(INITIAL_COUNT);
  private readonly mimeTypes = new Map<string, number>();
  private count = 0;
  private listingReleased = false;
  /** The path relativePathOf made last, and its position (one string, not one a document). */
  private lastPath = '';
  private lastPathPosition = -1;

  constructor(
    /** The folder the relative paths are under (the project's resources/). */
    readonly resourcesRoot: string,
    readonly projectRoot: string,
    /** How many documents the store will likely hold (the previous build's): room made once. */
    expectedCount = 0,
  ) {
    if (expectedCount > INITIAL_COUNT) this.makeRoom(expectedCount);
  }

  /** Grows every per-document array to hold `count` documents. */
  private makeRoom(count: number): void {
    this.titleAt = grownTypedArray(this.titleAt, count);
    this.descriptionAt = grownTypedArray(this.descriptionAt, count);
    this.inodes = grownTypedArray(this.inodes, 2 * count);
    this.mtimesNs = grownTypedArray(this.mtimesNs, 2 * count);
    this.sizes = grownTypedArray(this.sizes, count);
    this.isText = grownTypedArray(this.isText, count);
    this.digests = grownTypedArray(this.digests, 32 * count);
    this.hasDigest = grownTypedArray(this.hasDigest, count);
    this.mimeTypeAt = grownTypedArray(this.mimeTypeAt, count);
  }

  add(fields: FileResourceFields): FileResource {
    const position = this.count;
    this.count += 1;
    if (this.count > this.isText.length) this.makeRoom(this.count);
    this.titleAt[position] = fields.title === undefined ? NONE : this.texts.push(fields.title) + 1;
    this.descriptionAt[position] = fields.description === undefined ? NONE : this.texts.push(fields.description) + 1;
    const { stats } = fields;
    if (stats instanceof WalkedIdentity) {
      // The walk's words as they are: no BigInt made a document.
      this.inodes[2 * position] = stats.highWord(0);
      this.inodes[2 * position + 1] = stats.lowWord(0);
      this.mtimesNs[2 * position] = stats.highWord(2);
      this.mtimesNs[2 * position + 1] = stats.lowWord(2);
      this.sizes[position] = stats.highWord(1) * 2 ** 32 + stats.lowWord(1);
    } else {
      storeHalves(this.inodes, 2 * position, BigInt(stats.ino));
      storeHalves(this.mtimesNs, 2 * position, BigInt(stats.mtimeNs));
      this.sizes[position] = Number(stats.size);
    }
    this.isText[position] = fields.text ? 1 : 0;
    const digest = digestBytesOf(fields.sha256);
    this.hasDigest[position] = digest === undefined ? 0 : 1;
    if (digest !== undefined) this.digests.set(digest, 32 * position);
    let mimeType = this.mimeTypes.get(fields.mimeType);
    if (mimeType === undefined) {
      mimeType = this.mimeTypeList.length;
      this.mimeTypeList.push(fields.mimeType);
      this.mimeTypes.set(fields.mimeType, mimeType);
    }
    this.mimeTypeAt[position] = mimeType;
    this.paths.push(fields.relativePath);
    if (fields.overrides !== undefined || fields.pageUrl !== undefined)
      this.rares.set(position, {
        ...fields.overrides,
        ...(fields.pageUrl !== undefined ? { pageUrl: fields.pageUrl } : {}),
      });
    return new FileResource(this, position);
  }

  /**
   * The documents of a saved run (resource-runs.ts), from its columns: copies of byte ranges, no
   * string, BigInt or object made a document. Returns the first one's position.
   */
  addRun(run: StoredRun): number {
    const first = this.count;
    const { count } = run;
    this.count += count;
    if (this.count > this.isText.length) this.makeRoom(this.count);
    bytesOf(this.inodes).set(run.inodes, 8 * first);
    bytesOf(this.mtimesNs).set(run.mtimes, 8 * first);
    bytesOf(this.sizes).set(run.sizes, 8 * first);
    this.isText.set(run.texts, first);
    this.digests.set(run.digests, 32 * first);
    this.hasDigest.fill(1, first, first + count);
    let mimeType = this.mimeTypes.get(run.mimeType);
    if (mimeType === undefined) {
      mimeType = this.mimeTypeList.length;
      this.mimeTypeList.push(run.mimeType);
      this.mimeTypes.set(run.mimeType, mimeType);
    }
    this.mimeTypeAt.fill(mimeType, first, first + count);
    this.paths.pushRun(run.pathLengths, run.paths, NO_STRING);
    // Positions are stored one up (NONE for none), as add stores them.
    this.texts.pushRun(run.titleLengths, run.titles, NO_STRING, this.titleAt, first);
    this.texts.pushRun(run.descriptionLengths, run.descriptions, NO_STRING, this.descriptionAt, first);
    return first;
  }

  /** The UTF-8 of a document's title (a view, valid until the next add), when it has one. */
  titleBytesOf(position: number): Uint8Array | undefined {
    const at = this.titleAt[position]!;
    return at === NONE ? undefined : this.texts.bytesAt(at - 1);
  }

  /** The UTF-8 of a document's description (a view, valid until the next add), when it has one. */
  descriptionBytesOf(position: number): Uint8Array | undefined {
    const at = this.descriptionAt[position]!;
    return at === NONE ? undefined : this.texts.bytesAt(at - 1);
  }

  relativePathOf(position: number): string {
    // The assembly asks a document's path for its URI, name and shown path in a row: decoded once.
    if (position !== this.lastPathPosition) {
      this.lastPath = this.paths.at(position);
      this.lastPathPosition = position;
    }
    return this.lastPath;
  }

  mimeTypeOf(position: number): string {
    return this.mimeTypeList[this.mimeTypeAt[position]!]!;
  }

  rareOf(position: number): Rare | undefined {
    return this.rares.get(position);
  }

  titleOf(position: number): string | undefined {
    this.checkListing();
    const at = this.titleAt[position]!;
    return at === NONE ? undefined : this.texts.at(at - 1);
  }

  descriptionOf(position: number): string | undefined {
    this.checkListing();
    const at = this.descriptionAt[position]!;
    return at === NONE ? undefined : this.texts.at(at - 1);
  }

  statsOf(position: number): DocumentStats {
    return {
      ino: readHalves(this.inodes, 2 * position),
      size: BigInt(this.sizes[position]!),
      // As fs.stat gives it: signed (a time before 1970 is negative).
      mtimeNs: BigInt.asIntN(64, readHalves(this.mtimesNs, 2 * position)),
    };
  }

  sizeOf(position: number): number {
    return this.sizes[position]!;
  }

  /**
   * Lets go of what only the assembly reads: every document's sha256 (32 bytes a document, the keys
   * of the kept resource files) and its title and description (the list entries). An edit build's
   * deferred resource files hold the store to the manifest, through the search step's peak, and
   * need only each document's path, MIME type and identity. Their memory goes back at once
   * (releaseGrown): a resizable buffer is not counted as external memory, so no collection comes
   * for it soon.
   */
  releaseAssembled(): void {
    this.digests = releaseGrown(this.digests);
    this.hasDigest = releaseGrown(this.hasDigest);
    this.texts.release();
    this.titleAt = releaseGrown(this.titleAt);
    this.descriptionAt = releaseGrown(this.descriptionAt);
    this.listingReleased = true;
  }

  /** A title or description asked for after releaseAssembled would be wrong, not missing. */
  private checkListing(): void {
    if (this.listingReleased)
      throw new Error('a resource title or description was read after the assembly let them go');
  }

  /** The document's sha256 (a copy), when discovery knew it and its digests were not let go. */
  digestOf(position: number): Uint8Array | undefined {
    return this.hasDigest[position] === 1 ? this.digests.slice(32 * position, 32 * position + 32) : undefined;
  }

  /** digestOf as a view into the store (valid until releaseAssembled), for a key made at once. */
  digestViewOf(position: number): Uint8Array | undefined {
    return this.hasDigest[position] === 1 ? this.digests.subarray(32 * position, 32 * position + 32) : undefined;
  }

  isTextAt(position: number): boolean {
    return this.isText[position] === 1;
  }
}

/** A resource file of the project, read from its store (the ProjectResource the rest of the build sees). */
export class FileResource implements ProjectResource {
  /** On the prototype, not a field: nothing more is held per document. */
  get hasSourceFile(): boolean {
    return true;
  }

  constructor(
    readonly store: FileResourceStore,
    /** Its place in the store. */
    readonly position: number,
  ) {}

  get relativePath(): string {
    return this.store.relativePathOf(this.position);
  }

  get mimeType(): string {
    return this.store.mimeTypeOf(this.position);
  }

  private get rare(): Rare | undefined {
    return this.store.rareOf(this.position);
  }

  /** Whether a sidecar (or a registration) set any of its fields, or it claims a page. */
  get overridden(): boolean {
    return this.rare !== undefined;
  }

  get uri(): string {
    return this.rare?.uri ?? `resource://${this.relativePath}`;
  }

  get name(): string {
    return this.rare?.name ?? path.basename(this.relativePath);
  }

  get title(): string | undefined {
    return this.rare?.title ?? this.store.titleOf(this.position);
  }

  get description(): string {
    return this.rare?.description ?? this.store.descriptionOf(this.position) ?? this.relativePath;
  }

  get pageUrl(): string | undefined {
    return this.rare?.pageUrl;
  }

  get size(): number {
    return this.store.sizeOf(this.position);
  }

  /**
   * What the assembly's kept-file key needs of `content.source` (kept-resource-files.ts), without
   * making it: the source object with its path and identity a document cost more than the key.
   * The digest is a view, valid until the store's releaseAssembled.
   */
  get keyedSource(): { text: boolean; sha256: Uint8Array | undefined } {
    return { text: this.store.isTextAt(this.position), sha256: this.store.digestViewOf(this.position) };
  }

  get content(): { source: ResourceFileSource } {
    const { store } = this;
    const sha256 = store.digestOf(this.position);
    return {
      source: {
        file: joinedPath(store.resourcesRoot, this.relativePath),
        projectRoot: store.projectRoot,
        ...(store.realProjectRoot !== undefined ? { realProjectRoot: store.realProjectRoot } : {}),
        text: store.isTextAt(this.position),
        stats: store.statsOf(this.position),
        ...(sha256 !== undefined ? { sha256 } : {}),
      },
    };
  }
}

/** Lets go of what only the assembly reads of every file resource of `resources` (their stores'). */
export function releaseAssembled(resources: readonly ProjectResource[]): void {
  let released: FileResourceStore | undefined;
  for (const resource of resources)
    if (resource instanceof FileResource && resource.store !== released) {
      released = resource.store;
      released.releaseAssembled();
    }
}

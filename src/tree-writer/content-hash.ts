// The content hash a tree records in `staticmcp.contentHash` (and a shard part in its record's
// `filesHash`): sha256 over every hashed file, in the byte order of the paths' UTF-8, as `path \0 <sha256 of the content,
// 64 lowercase hex digits> \0`. Hashing each file's digest rather than its bytes lets whoever wrote
// or linked a file keep 32 bytes for it and hash the tree at the end without reading it back
// (`sha256sum` gives the same digests, so the hash can be recomputed with shell tools). The build,
// the merge, shard parts and `staticmcp check` all use this one definition.
import { createHash, hash } from 'node:crypto';
import { encodeUtf8InScratch, SCRATCH_MIN_LENGTH } from './utf8-scratch.js';

/** The raw sha256 of one file's content: what the tree hash takes per file. */
export const FILE_DIGEST_BYTES = 32;

export function digestFile(content: string | Uint8Array): Buffer {
  // At once: no Hash object per file, whose native memory waits for a collection. A long string
  // through the shared buffer: hashing it as a string makes a native copy three times its length.
  const bytes =
    typeof content === 'string' && content.length >= SCRATCH_MIN_LENGTH ? encodeUtf8InScratch(content) : content;
  return hash('sha256', bytes, 'buffer');
}

export interface TreeHash {
  /** Adds one file by its content; callers add files in `sortTreePaths` order. */
  add(filePath: string, content: string | Uint8Array): void;
  /** Adds one file by its `digestFile` digest, in the same order. */
  addDigest(filePath: string, digest: Uint8Array): void;
  /** addDigest, with the path as its UTF-8 bytes. */
  addDigestOfBytes(pathBytes: Uint8Array, digest: Uint8Array): void;
  /** `sha256:<hex>`. */
  digest(): string;
}

/**
 * Orders two paths as their UTF-8 bytes order (Unicode code point order, what `LC_ALL=C sort`
 * gives), not as JavaScript's default sort (UTF-16 code units), so a writer can sort the bytes it
 * holds and any tool can reproduce the order. The two differ only where a character above U+FFFF
 * (a surrogate pair here) meets one of U+E000–U+FFFF: surrogates are moved above those.
 */
export function compareTreePaths(left: string, right: string): number {
  const shared = Math.min(left.length, right.length);
  for (let index = 0; index < shared; index++) {
    const leftUnit = left.charCodeAt(index);
    const rightUnit = right.charCodeAt(index);
    if (leftUnit !== rightUnit) return codePointRank(leftUnit) - codePointRank(rightUnit);
  }
  return left.length - right.length;
}

function codePointRank(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  return unit >= 0xe000 ? unit - 0x800 : unit;
}

/** The order files enter the hash: by their paths' UTF-8 bytes (compareTreePaths). */
export function sortTreePaths(paths: Iterable<string>): string[] {
  return [...paths].sort(compareTreePaths);
}

/** Bytes gathered before one update of the hash (a few updates per file cost more than the hashing). */
const BATCH_BYTES = 64 * 1024;
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');

/** An incremental hash, so a checker can stream a big tree instead of holding every file. */
export function createTreeHash(): TreeHash {
  const hash = createHash('sha256');
  const batch = Buffer.allocUnsafe(BATCH_BYTES);
  let used = 0;
  /** Makes room for `most` bytes; false when they go in on their own (longer than a batch). */
  const roomFor = (most: number): boolean => {
    if (used + most > BATCH_BYTES) {
      hash.update(batch.subarray(0, used));
      used = 0;
    }
    return most <= BATCH_BYTES;
  };
  const addHex = (digest: Uint8Array): void => {
    batch[used++] = 0;
    for (const byte of digest) {
      batch[used++] = HEX_DIGITS[byte >> 4]!;
      batch[used++] = HEX_DIGITS[byte & 15]!;
    }
    batch[used++] = 0;
  };
  const addAlone = (filePath: string | Uint8Array, digest: Uint8Array): void => {
    hash.update(filePath).update('\0').update(Buffer.from(digest).toString('hex')).update('\0');
  };
  const addDigest = (filePath: string, digest: Uint8Array): void => {
    // A path's UTF-8 is at most 3 bytes a UTF-16 unit; a longer one goes in on its own.
    if (roomFor(filePath.length * 3 + 2 + digest.length * 2)) {
      used += batch.write(filePath, used, 'utf8');
      addHex(digest);
    } else addAlone(filePath, digest);
  };
  const addDigestOfBytes = (pathBytes: Uint8Array, digest: Uint8Array): void => {
    if (roomFor(pathBytes.length + 2 + digest.length * 2)) {
      batch.set(pathBytes, used);
      used += pathBytes.length;
      addHex(digest);
    } else addAlone(pathBytes, digest);
  };
  return {
    add: (filePath, content) => addDigest(filePath, digestFile(content)),
    addDigest,
    addDigestOfBytes,
    digest: () => {
      hash.update(batch.subarray(0, used));
      used = 0;
      return `sha256:${hash.digest('hex')}`;
    },
  };
}

/**
 * A test of which files a tree hash takes (hashSlotsBy), with the path prefixes it takes whatever
 * follows: a path starting with one is taken on its bytes, with no string made.
 */
export type FileFilter = ((filePath: string) => boolean) & {
  acceptedPrefixes?: readonly string[];
  /** What the filter takes, as a string: the same identity, the same files (content-hash-state.ts keys by it). */
  identity?: string;
};

/** Every file. */
export const ALL_FILES: FileFilter = Object.assign(() => true, { acceptedPrefixes: [''], identity: 'all' });

/** Told of each file hashSlotsBy walks, in order: its slot, path bytes, digest and which hashes take it. */
export interface HashObserver {
  observe(slot: number, pathBytes: Uint8Array, digest: Uint8Array, takenBy: readonly boolean[]): void;
}

/** A walk of a writer's files: tells `visit` each slot and its digest (valid during the call). */
export type SlotWalk = (visit: (slot: number, digest: Uint8Array) => void) => void;

/**
 * The tree hash of the files each of `includes` accepts, from one pass over a writer's files by
 * slot (file-digests.ts inHashOrder, in sortTreePaths order): each path's bytes hashed as they are
 * held, its string made only for a filter whose prefixes do not take it. `files` as a walk makes
 * no object a file (a build's walk of 650,000 files made most of its collections in iterators).
 */
export function hashSlotsBy(
  files: Iterable<[number, Uint8Array]> | SlotWalk,
  paths: { bytesAt(slot: number): Uint8Array; at(slot: number): string },
  includes: readonly FileFilter[],
  observer?: HashObserver,
): string[] {
  const hashes = includes.map(() => createTreeHash());
  const takenBy = includes.map(() => false);
  const prefixes = includes.map((include) => (include.acceptedPrefixes ?? []).map((prefix) => Buffer.from(prefix)));
  const visit = (slot: number, digest: Uint8Array): void => {
    // A view until the next bytesAt: `at` decodes with a cursor of its own.
    const bytes = paths.bytesAt(slot);
    let filePath: string | undefined;
    for (let index = 0; index < includes.length; index += 1) {
      let taken = startsWithAny(bytes, prefixes[index]!);
      if (!taken) {
        filePath ??= paths.at(slot);
        taken = includes[index]!(filePath);
      }
      if (taken) hashes[index]!.addDigestOfBytes(bytes, digest);
      takenBy[index] = taken;
    }
    observer?.observe(slot, bytes, digest, takenBy);
  };
  if (typeof files === 'function') files(visit);
  else for (const [slot, digest] of files) visit(slot, digest);
  return hashes.map((hash) => hash.digest());
}

function startsWithAny(bytes: Uint8Array, prefixes: readonly Uint8Array[]): boolean {
  for (let index = 0; index < prefixes.length; index++) if (startsWith(bytes, prefixes[index]!)) return true;
  return false;
}

function startsWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  if (bytes.length < prefix.length) return false;
  for (let index = 0; index < prefix.length; index++) if (bytes[index] !== prefix[index]) return false;
  return true;
}

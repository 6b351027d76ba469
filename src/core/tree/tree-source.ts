// One interface over the places a tree can live (a local folder, an http(s) URL): read one file by
// its tree-relative path, and, where a source can tell it cheaply, a file's size without reading it
// (so an answer that would pass the cap is refused unread, answer-budget.ts). Parsing and caching
// are layered on top (cached-tree-reader.ts).
import { findTreePathProblem } from './tree-path.js';

export type ReadOutcome =
  | { status: 'ok'; text: string; etag?: string }
  | { status: 'missing' }
  /** The copy the caller holds (named by its ETag) is still current. */
  | { status: 'not-modified' };

export interface TreeSource {
  /** How the tree is named in messages: never an absolute path of this machine. */
  readonly displayName: string;
  /** How long a cached copy is trusted before it is revalidated; undefined = forever (a static folder). */
  readonly revalidateAfterMs: number | undefined;
  /** Reads a file; `relativePath` must already have passed `checkTreePath`. Throws on I/O failures. */
  read(relativePath: string, etag?: string): Promise<ReadOutcome>;
  /**
   * The size in bytes of the file `read` would answer, without reading it (a folder's stat, a
   * pack index's record length, an HTTP HEAD's Content-Length); undefined when the source cannot
   * tell cheaply, or the file is not there (its read says so). Optional: a source without it has
   * its answers counted only once they are built. Never throws.
   */
  sizeOf?(relativePath: string): Promise<number | undefined>;
  /**
   * `read` done synchronously, for a source whose reads are local and quick (a folder): undefined
   * when it cannot, or the file is larger than `maxBytes` (then left unread). Optional. Never throws.
   */
  readNow?(relativePath: string, maxBytes: number): ReadOutcome | undefined;
  close(): void;
}

/** Longer paths are refused before anything looks at them: no tree file has such a name. */
const MAX_TREE_PATH_LENGTH = 4096;

/**
 * Why a tree-relative path is unsafe to read, or undefined when it is fine: the one rule the
 * writer and merge hold paths to too (core/tree/tree-path.ts), plus a length cap.
 */
export function checkTreePath(relativePath: string): string | undefined {
  if (relativePath.length > MAX_TREE_PATH_LENGTH) return 'it is too long';
  return findTreePathProblem(relativePath);
}

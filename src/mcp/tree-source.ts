// One interface over the places a tree can live (a local folder, an http(s) URL): read one file by
// its tree-relative path. Parsing and caching are layered on top (cached-tree-reader.ts).

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
  close(): void;
}

/**
 * Why a tree-relative path is unsafe, or undefined when it is fine: only plain `/`-separated
 * segments, never `..`, `.`, empty segments, backslashes, NUL, or a leading slash.
 */
export function checkTreePath(relativePath: string): string | undefined {
  if (relativePath.length === 0 || relativePath.length > 4096) return 'empty or too long';
  if (relativePath.startsWith('/')) return 'absolute';
  if (/[\\\0]/.test(relativePath)) return 'contains a backslash or NUL';
  for (const segment of relativePath.split('/')) {
    if (segment === '' || segment === '.' || segment === '..') return 'contains an empty, "." or ".." segment';
  }
  return undefined;
}

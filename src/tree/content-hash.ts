// The content hash a tree records in `staticmcp.contentHash`: sha256 over every file except
// mcp.json, in path order, as `path \0 content \0`. The build writes it and `staticmcp check`
// recomputes it, so both must use this one definition.
import { createHash } from 'node:crypto';

export interface TreeHash {
  /** Adds one file; callers add files in `sortTreePaths` order. */
  add(filePath: string, content: string | Uint8Array): void;
  /** `sha256:<hex>`. */
  digest(): string;
}

/** The order files enter the hash: JavaScript's default string sort (UTF-16 code units). */
export function sortTreePaths(paths: Iterable<string>): string[] {
  return [...paths].sort();
}

/** An incremental hash, so a checker can stream a big tree instead of holding every file. */
export function createTreeHash(): TreeHash {
  const hash = createHash('sha256');
  return {
    add(filePath, content) {
      hash.update(filePath).update('\0').update(content).update('\0');
    },
    digest: () => `sha256:${hash.digest('hex')}`,
  };
}

export function hashTreeFiles(files: ReadonlyMap<string, string | Uint8Array>): string {
  const hash = createTreeHash();
  for (const filePath of sortTreePaths(files.keys())) hash.add(filePath, files.get(filePath)!);
  return hash.digest();
}

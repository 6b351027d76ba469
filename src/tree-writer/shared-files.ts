// Files of a tree that share their data (hard links): the tree writer writes a held file's second
// name (copySpooled: a resource's copy at the raw name other StaticMCP bridges read,
// builder/raw-resource-copies.ts) as a link to its first name's file, not a file of its own. A
// create costs the kernel an inode, and the copy's bytes a read and a write; a link costs neither,
// and the tree holds the same bytes at the same paths. Where the filesystem refuses links, the bytes
// are copied.
import { linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Errors of `link` that only say this file cannot be linked here: the bytes are copied instead. */
const LINK_REFUSED = new Set(['EXDEV', 'EPERM', 'EMLINK', 'ENOTSUP', 'EOPNOTSUPP']);

/** Puts at `target` the file at `existing`: hard-linked where the filesystem allows, else copied. */
export function linkOrCopySync(existing: string, target: string): void {
  try {
    linkSync(existing, target);
  } catch (error) {
    if (!LINK_REFUSED.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
    writeFileSync(target, readFileSync(existing), { mode: 0o644 });
  }
}

/**
 * The paths of a tree whose files may share their data with another path's (hard links), so that
 * a path written again is unlinked first: writing through a shared file would change both names.
 */
export class SharedFiles {
  private readonly paths = new Set<string>();

  /** Puts at `toPath` of the tree in `root` the file at its `fromPath` (linkOrCopySync). */
  link(root: string, fromPath: string, toPath: string): void {
    linkOrCopySync(path.join(root, fromPath), path.join(root, toPath));
    this.paths.add(fromPath);
    this.paths.add(toPath);
  }

  /** Before `file` (at `relativePath`) is written again: it stops sharing its data. */
  unshare(relativePath: string, file: string): void {
    if (!this.paths.delete(relativePath)) return;
    rmSync(file, { force: true });
  }
}

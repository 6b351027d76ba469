// The links a tree writer makes just before its swap (tree-writer.ts commit): the files left
// unchanged in the previous tree, and the user's own top-level entries carried over, both linked
// into the new tree before the swap, so a build killed at any point has lost nothing.
import { copyFileSync, promises as fs, linkSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { FileDigests } from './file-digests.js';
import { linkCopy } from './link-or-copy.js';

/** Links the files left in the previous tree (`outDir`) into the new one (`tempDir`); `folders` are those made so far. */
export async function linkUnchangedFiles(
  written: FileDigests,
  outDir: string,
  tempDir: string,
  folders: Set<string>,
): Promise<void> {
  // Synchronous, as the writer's creates are (tree-writer.ts writeOne): a link is one system call,
  // cheaper than the trip through the thread pool that would make it.
  for (const relativePath of written.unchangedPaths()) {
    const source = path.join(outDir, relativePath);
    const target = path.join(tempDir, relativePath);
    // `remove` may have taken its folder out (the pack step emptied tools/, leaving an unchanged
    // tools/<tool>.json only in the previous tree): a packed rebuild over its tree failed here.
    const folder = path.dirname(relativePath);
    if (!folders.has(folder)) {
      mkdirSync(path.join(tempDir, folder), { recursive: true });
      folders.add(folder);
    }
    try {
      linkSync(source, target);
    } catch {
      copyFileSync(source, target);
    }
  }
}

/**
 * Links the previous tree's top-level entries that `keep` accepts and the new tree does not write
 * (less the `dropInside` paths, which are the build's); returns their names.
 */
export async function carryOver(
  written: FileDigests,
  outDir: string,
  tempDir: string,
  keep: (name: string) => boolean,
  dropInside: readonly string[],
): Promise<string[]> {
  let names: string[];
  try {
    names = (await fs.readdir(outDir)).sort();
  } catch {
    return [];
  }
  const writtenTop = new Set<string>();
  for (const filePath of written.paths()) writtenTop.add(filePath.split('/', 1)[0] ?? '');
  const kept: string[] = [];
  for (const name of names) {
    if (!keep(name) || writtenTop.has(name)) continue;
    await linkCopy(path.join(outDir, name), path.join(tempDir, name));
    for (const dropped of dropInside)
      if (dropped.startsWith(`${name}/`)) await fs.rm(path.join(tempDir, dropped), { force: true });
    kept.push(name);
  }
  return kept;
}

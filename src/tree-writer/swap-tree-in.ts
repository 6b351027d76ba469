// The swap at the end of a tree writer's commit (tree-writer.ts): the previous tree renamed aside,
// the written one renamed into its place. A build killed between the two renames leaves no tree at
// the output folder and the previous one beside it, where the next build puts it back
// (interrupted-write.ts).
import { renameSync } from 'node:fs';
import { oldFolderOf } from './swap-folders.js';

/**
 * Puts the tree written in `tempDir` at `outDir`; returns where the previous tree went (for the
 * caller to remove), or undefined when `outDir` held none.
 */
export function swapTreeIn(outDir: string, tempDir: string): string | undefined {
  const oldDir = oldFolderOf(outDir, process.pid);
  let hadPrevious = true;
  // Both renames back to back, with no turn of the event loop between them: on a busy machine an
  // awaited rename's gap lasted long enough for a kill to land in it.
  try {
    renameSync(outDir, oldDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    hadPrevious = false;
  }
  renameSync(tempDir, outDir);
  return hadPrevious ? oldDir : undefined;
}

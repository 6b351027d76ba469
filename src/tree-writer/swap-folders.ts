// The folders a tree writer keeps beside the output folder while it works: `<out>.staticmcp-tmp-<pid>`
// (the new tree being written), `<out>.staticmcp-old-<pid>` (the previous tree during the swap)
// `<out>.staticmcp-spool-<pid>` (a file: call files held back from the tree until packed) and
// `<out>.staticmcp-scratch-<pid>` (a folder: the search index writer's sorted runs) and
// `<out>.staticmcp-digests-<pid>` (a file: the content digests of the tree's files, spilled-digests.ts).
// Names only, no imports: `staticmcp dev` and the up-to-date check match them without loading
// the writer.

/** What every swap folder's name has after the output folder's name. */
export const SWAP_FOLDER_MARK = '.staticmcp-';
export const TEMP_MARK = `${SWAP_FOLDER_MARK}tmp-`;
export const OLD_MARK = `${SWAP_FOLDER_MARK}old-`;
export const SPOOL_MARK = `${SWAP_FOLDER_MARK}spool-`;
export const SCRATCH_MARK = `${SWAP_FOLDER_MARK}scratch-`;
export const DIGESTS_MARK = `${SWAP_FOLDER_MARK}digests-`;

/** Where this process writes the tree that will replace `outDir`. */
export function tempFolderOf(outDir: string, pid: number): string {
  return `${outDir}${TEMP_MARK}${pid}`;
}

/** Where this process keeps the call files it holds back from the tree (tree-writer.ts, the spool). */
export function spoolFileOf(outDir: string, pid: number): string {
  return `${outDir}${SPOOL_MARK}${pid}`;
}

/** Where this process moves the previous tree during the swap. */
export function oldFolderOf(outDir: string, pid: number): string {
  return `${outDir}${OLD_MARK}${pid}`;
}

/** Where this process keeps scratch files that never become part of the tree (search-index-spill-writer.ts). */
export function scratchFolderOf(outDir: string, pid: number): string {
  return `${outDir}${SCRATCH_MARK}${pid}`;
}

/** Where this process keeps the content digests of the files it wrote, past the newest few thousand. */
export function digestFileOf(outDir: string, pid: number): string {
  return `${outDir}${DIGESTS_MARK}${pid}`;
}

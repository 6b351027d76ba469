// Which files a rebuild wrote anew: the content benches list a tree's files with their inodes
// (the tree writer hard-links a file whose bytes did not change), and count those that changed.

/** Files of `after` whose inode is not the one `before` had: count and bytes, beside the totals. */
export function rewrittenOf(before, after) {
  let files = 0;
  let bytes = 0;
  let totalBytes = 0;
  for (const [name, file] of after) {
    totalBytes += file.size;
    if (before.get(name)?.ino !== file.ino) {
      files += 1;
      bytes += file.size;
    }
  }
  return { files, bytes, total: after.size, totalBytes };
}

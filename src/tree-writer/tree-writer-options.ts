// What opening and committing a tree writer (tree-writer.ts) takes: dev's file reuse, and the
// previous tree's entries a commit keeps.
import type { ContentHashStateOptions } from './content-hash-state.js';
import type { TreeFileReuse } from './file-reuse.js';

export interface OpenTreeWriterOptions {
  /**
   * Link the files a previous write through this same reuse left unchanged (dev's rebuilds),
   * instead of comparing each file's content with the previous tree's.
   */
  reuse?: TreeFileReuse;
  /** Where the content hash's input is kept for the next build (content-hash-state.ts); absent: none. */
  hashState?: ContentHashStateOptions | undefined;
}

export interface CommitOptions {
  /** Top-level entries of the previous tree to keep (the user's, not the build's). */
  keep?: (topLevelName: string) => boolean;
  /**
   * Paths inside kept folders that are the build's all the same (`.well-known/ai-catalog.json` in
   * the user's `.well-known/`): left out of what is kept, so a file this build no longer writes
   * does not live on.
   */
  dropInsideKept?: readonly string[];
}

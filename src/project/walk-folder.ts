// Walks a project folder (tools/, resources/) in code-unit order, so results never depend on the
// file system: dotfiles, dot-folders and `*.meta.json` skipped, symlinks followed once, and every
// entry that cannot be used (a loop, a dangling link, a pipe, a folder too deep) reported, never fatal.
import { type Dirent, promises as fs, type Stats } from 'node:fs';
import path from 'node:path';
import { detachedString } from '../core/search/detached-string.js';

/**
 * A file the walk found. Its absolute path is made again when asked, from the walked folder's
 * (shared by every file) and its own: held, it was the largest thing a walk kept per file, and
 * discovery holds the walk of 100,000 documents whole.
 */
export class WalkedFile {
  constructor(
    private readonly root: string,
    /** Path inside the walked folder, `/`-separated. */
    readonly relativePath: string,
  ) {}

  /** The file's path, as the walk reached it (through any symlinked folder, not resolved). */
  get file(): string {
    return path.join(this.root, this.relativePath);
  }
}

/** What a walk found: its files, and the `*.meta.json` sidecars it passed over (absolute paths). */
export interface WalkResult {
  files: WalkedFile[];
  notices: WalkNotice[];
  /** Sidecars seen beside the files (not with everyName): a file whose candidates are absent has none, unread. */
  sidecars: Set<string>;
}

export interface WalkNotice {
  relativePath: string;
  message: string;
}

export interface WalkOptions {
  /** Levels of path segments a file may have (`a/b/file` has 3). */
  maxDepth: number;
  /** What a folder past maxDepth is told (its files are not used). */
  tooDeepMessage: string;
  /** Also dotfiles, dot-folders and `*.meta.json` (public/ is copied as it is). */
  everyName?: boolean;
}

export async function walkFolder(root: string, options: WalkOptions): Promise<WalkResult> {
  const files: WalkedFile[] = [];
  const sidecars = new Set<string>();
  const notices: WalkNotice[] = [];
  const visitedFolders = new Set<string>();

  async function walk(folder: string, relativeFolder: string, depth: number): Promise<void> {
    let realFolder: string;
    try {
      realFolder = await fs.realpath(folder);
    } catch (error) {
      // A project without this folder simply has none of its kind.
      if (relativeFolder !== '' || (error as NodeJS.ErrnoException).code !== 'ENOENT') {
        notices.push({
          relativePath: relativeFolder || '.',
          message: `cannot be opened (${(error as NodeJS.ErrnoException).code})`,
        });
      }
      return;
    }
    if (visitedFolders.has(realFolder)) {
      notices.push({
        relativePath: relativeFolder,
        message: 'is a symlink back into a folder already scanned (a loop); skipped',
      });
      return;
    }
    visitedFolders.add(realFolder);
    let entries: Dirent[];
    try {
      // Code-unit order (not the locale's), whatever order the file system gives.
      entries = (await fs.readdir(folder, { withFileTypes: true })).sort((a, b) =>
        a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
      );
    } catch (error) {
      notices.push({
        relativePath: relativeFolder || '.',
        message: `cannot be read (${(error as NodeJS.ErrnoException).code}); check its permissions`,
      });
      return;
    }
    for (const entry of entries) {
      const { name } = entry;
      if (!options.everyName && name.startsWith('.')) continue;
      // Flat copies: a joined path is a tree of a dozen concatenations and views (~400 bytes of
      // heap a file, held for every file of the walk).
      const file = detachedString(path.join(folder, name));
      if (!options.everyName && name.endsWith('.meta.json')) {
        sidecars.add(file);
        continue;
      }
      const relativePath = relativeFolder ? detachedString(`${relativeFolder}/${name}`) : name;
      // The entry's own type is the file's unless it is a symlink (or the file system did not say).
      let stats: Pick<Stats, 'isDirectory' | 'isFile'> = entry;
      try {
        if (entry.isSymbolicLink() || !(entry.isFile() || entry.isDirectory())) stats = await fs.stat(file);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        const message =
          code === 'ELOOP'
            ? 'is a symlink loop; skipped'
            : code === 'ENOENT'
              ? 'is a dangling symlink; skipped'
              : `cannot be inspected (${code}); skipped`;
        notices.push({ relativePath, message });
        continue;
      }
      if (stats.isDirectory()) {
        if (depth >= options.maxDepth - 1) notices.push({ relativePath, message: options.tooDeepMessage });
        else await walk(file, relativePath, depth + 1);
        continue;
      }
      if (!stats.isFile()) {
        notices.push({ relativePath, message: 'is not a regular file (a pipe, socket or device); skipped' });
        continue;
      }
      files.push(new WalkedFile(root, relativePath));
    }
  }

  await walk(root, '', 0);
  return { files, notices, sidecars };
}

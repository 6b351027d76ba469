// Walks a project folder (tools/, resources/) in code-unit order, so results never depend on the
// file system: dotfiles, dot-folders and `*.meta.json` skipped, symlinks followed once (a folder
// the walk reaches by its own path is walked there, never through a symlink to it), and every
// entry that cannot be used (a loop, a dangling link, a pipe, a folder too deep) reported, never fatal.
import { type Dirent, promises as fs, type Stats } from 'node:fs';
import path from 'node:path';
import { ownString } from './own-string.js';
import { joinedPath } from './joined-path.js';

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
    return joinedPath(this.root, this.relativePath);
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
  const first = await walkOnce(root, options, undefined);
  if (!first.ownFolderClaimed) return first.result;
  // A symlink that sorts before the folder it points to was walked first and took that folder's
  // files under its own name: walk again, skipping symlinks to folders reachable by their own path.
  return (await walkOnce(root, options, await listOwnFolders(root, options))).result;
}

/** Real paths of the folders reachable from root without passing a symlink (rare: see walkFolder). */
async function listOwnFolders(root: string, options: WalkOptions): Promise<Set<string>> {
  const own = new Set<string>();
  async function list(realFolder: string, depth: number): Promise<void> {
    own.add(realFolder);
    if (depth >= options.maxDepth - 1) return;
    let entries: Dirent[];
    try {
      entries = await fs.readdir(realFolder, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (!options.everyName && entry.name.startsWith('.')) continue;
      if (entry.isDirectory()) await list(path.join(realFolder, entry.name), depth + 1);
    }
  }
  try {
    await list(await fs.realpath(root), 0);
  } catch {
    // No root: the walk itself says so.
  }
  return own;
}

async function walkOnce(
  root: string,
  options: WalkOptions,
  ownFolders: ReadonlySet<string> | undefined,
): Promise<{ result: WalkResult; ownFolderClaimed: boolean }> {
  const files: WalkedFile[] = [];
  const sidecars = new Set<string>();
  const notices: WalkNotice[] = [];
  const visitedFolders = new Set<string>();
  let ownFolderClaimed = false;

  async function walk(folder: string, relativeFolder: string, depth: number, viaSymlink: boolean): Promise<void> {
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
    if (viaSymlink && ownFolders?.has(realFolder)) {
      notices.push({
        relativePath: relativeFolder,
        message: 'is a symlink to a folder walked under its own name; skipped',
      });
      return;
    }
    if (visitedFolders.has(realFolder)) {
      if (!viaSymlink) ownFolderClaimed = true;
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
      // The entry's absolute path is made only where it is used (a sidecar, an entry to stat, a
      // folder): a file's is made again from the walk's root when asked (WalkedFile.file).
      if (!options.everyName && name.endsWith('.meta.json')) {
        // A flat copy: a joined path is a tree of a dozen concatenations and views (~400 bytes of heap).
        sidecars.add(ownString(joinedPath(folder, name)));
        continue;
      }
      const relativePath = relativeFolder ? ownString(`${relativeFolder}/${name}`) : name;
      // The entry's own type is the file's unless it is a symlink (or the file system did not say).
      let stats: Pick<Stats, 'isDirectory' | 'isFile'> = entry;
      try {
        if (entry.isSymbolicLink() || !(entry.isFile() || entry.isDirectory()))
          stats = await fs.stat(joinedPath(folder, name));
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
        else await walk(ownString(joinedPath(folder, name)), relativePath, depth + 1, entry.isSymbolicLink());
        continue;
      }
      if (!stats.isFile()) {
        notices.push({ relativePath, message: 'is not a regular file (a pipe, socket or device); skipped' });
        continue;
      }
      files.push(new WalkedFile(root, relativePath));
    }
  }

  await walk(root, '', 0, false);
  return { result: { files, notices, sidecars }, ownFolderClaimed };
}

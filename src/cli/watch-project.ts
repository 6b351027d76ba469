// Watches a project folder for `staticmcp dev`: one non-recursive fs.watch per folder (inotify on
// Linux), never descending into ignored folders (the output tree, `.staticmcp/`, dot-folders,
// node_modules), so writing a 100,000-file tree costs no events at all. Node 20's recursive mode
// would watch those too. New folders are picked up as they appear; changes are debounced and
// handed over as one batch of project-relative paths.
import { type Dirent, watch, promises as fs, type FSWatcher, type Stats } from 'node:fs';
import path from 'node:path';

export interface WatchOptions {
  /** Whether a project-relative, `/`-separated path (file or folder) is left alone. */
  ignore(relativePath: string): boolean;
  /** Called once the project has been quiet for `debounceMs`, with the paths that changed. */
  onChange(relativePaths: string[]): void;
  debounceMs: number;
}

export interface ProjectWatcher {
  close(): void;
}

/** Dot-files and dot-folders, node_modules, editor backups (`file~`): never part of a build. */
export function isNoise(relativePath: string): boolean {
  return relativePath
    .split('/')
    .some((segment) => segment.startsWith('.') || segment === 'node_modules' || segment.endsWith('~'));
}

export async function watchProject(root: string, options: WatchOptions): Promise<ProjectWatcher> {
  /** Folder → its watcher and inode (a folder removed and made again is a new folder to watch). */
  const watchers = new Map<string, { watcher: FSWatcher; inode: number }>();
  const changed = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const relativeOf = (file: string): string => path.relative(root, file).split(path.sep).join('/');

  const flush = (): void => {
    timer = undefined;
    if (closed || changed.size === 0) return;
    const paths = [...changed].sort();
    changed.clear();
    options.onChange(paths);
  };
  const noteChange = (relativePath: string): void => {
    changed.add(relativePath);
    if (timer) clearTimeout(timer);
    timer = setTimeout(flush, options.debounceMs);
  };

  const unwatch = (folder: string): void => {
    for (const [watched, entry] of watchers) {
      if (watched === folder || watched.startsWith(`${folder}${path.sep}`)) {
        entry.watcher.close();
        watchers.delete(watched);
      }
    }
  };

  /** Folders whose watcher is being set up (watchFolder awaits before it registers one). */
  const starting = new Set<string>();

  const watchFolder = async (folder: string, inode?: number): Promise<void> => {
    if (closed || watchers.has(folder) || starting.has(folder)) return;
    const relative = relativeOf(folder);
    if (relative !== '' && options.ignore(relative)) return;
    starting.add(folder);
    try {
      await startWatching(folder, inode);
    } finally {
      starting.delete(folder);
    }
  };

  const startWatching = async (folder: string, inode?: number): Promise<void> => {
    let watcher: FSWatcher;
    try {
      inode ??= (await fs.lstat(folder)).ino;
      if (closed) return;
      watcher = watch(folder, { persistent: true }, (_event, name) => {
        if (closed) return;
        const file = name ? path.join(folder, name.toString()) : folder;
        const changedPath = relativeOf(file);
        if (changedPath !== '' && options.ignore(changedPath)) return;
        noteChange(changedPath || '.');
        // A new folder (or one moved in) needs a watcher of its own; a removed one loses its watchers.
        if (name) void refreshFolder(file);
      });
    } catch {
      return; // Gone already, or unreadable: nothing to watch.
    }
    watcher.on('error', () => unwatch(folder));
    watchers.set(folder, { watcher, inode: inode! });
    let entries: Dirent[];
    try {
      entries = await fs.readdir(folder, { withFileTypes: true });
    } catch {
      return;
    }
    // Symbolic links are not followed: a link to a big folder elsewhere is not the project.
    await Promise.all(
      entries.filter((entry) => entry.isDirectory()).map((entry) => watchFolder(path.join(folder, entry.name))),
    );
  };

  const refreshFolder = async (file: string): Promise<void> => {
    let stat: Stats;
    try {
      stat = await fs.lstat(file);
    } catch {
      unwatch(file);
      return;
    }
    const known = watchers.get(file);
    if (known && (!stat.isDirectory() || known.inode !== stat.ino)) unwatch(file);
    if (stat.isDirectory()) await watchFolder(file, stat.ino);
  };

  await watchFolder(root);
  return {
    close(): void {
      closed = true;
      if (timer) clearTimeout(timer);
      for (const entry of watchers.values()) entry.watcher.close();
      watchers.clear();
    },
  };
}

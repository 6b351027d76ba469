// Finds the executables in a tools folder: up to 5 levels deep, dotfiles, dot-folders and
// `*.meta.json` skipped, symlinks followed once (loops and dangling links reported, not fatal).
import { promises as fs, constants as fsConstants } from 'node:fs';
import path from 'node:path';

export const MAX_SCRIPT_DEPTH = 5;

export interface DiscoveredScript {
  file: string;
  /** Path inside the tools folder with `/` separators; what tool names and messages use. */
  relativePath: string;
  /** Metadata from a server.d/register.json entry, which wins over the sidecar and --help. */
  registeredMeta?: Record<string, unknown>;
}

export interface DiscoveryNotice {
  relativePath: string;
  message: string;
}

export interface Discovery {
  scripts: DiscoveredScript[];
  skipped: DiscoveryNotice[];
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    await fs.access(file, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function isReadable(file: string): Promise<boolean> {
  try {
    await fs.access(file, fsConstants.R_OK);
    return true;
  } catch {
    return false;
  }
}

/** Walks `toolsRoot`; entries are visited in code-unit order so the result never depends on the file system. */
export async function discoverScripts(toolsRoot: string): Promise<Discovery> {
  const scripts: DiscoveredScript[] = [];
  const skipped: DiscoveryNotice[] = [];
  const visitedFolders = new Set<string>();

  async function walk(folder: string, relativeFolder: string, depth: number): Promise<void> {
    let realFolder: string;
    try {
      realFolder = await fs.realpath(folder);
    } catch (error) {
      skipped.push({ relativePath: relativeFolder || '.', message: `cannot be opened (${(error as NodeJS.ErrnoException).code})` });
      return;
    }
    if (visitedFolders.has(realFolder)) {
      skipped.push({ relativePath: relativeFolder, message: 'is a symlink back into a folder already scanned (a loop); skipped' });
      return;
    }
    visitedFolders.add(realFolder);
    let names: string[];
    try {
      names = (await fs.readdir(folder)).sort();
    } catch (error) {
      skipped.push({ relativePath: relativeFolder || '.', message: `cannot be read (${(error as NodeJS.ErrnoException).code}); check its permissions` });
      return;
    }
    for (const name of names) {
      if (name.startsWith('.') || name.endsWith('.meta.json')) continue;
      const file = path.join(folder, name);
      const relativePath = relativeFolder ? `${relativeFolder}/${name}` : name;
      let stats;
      try {
        stats = await fs.stat(file);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        const message = code === 'ELOOP' ? 'is a symlink loop; skipped'
          : code === 'ENOENT' ? 'is a dangling symlink; skipped' : `cannot be inspected (${code}); skipped`;
        skipped.push({ relativePath, message });
        continue;
      }
      if (stats.isDirectory()) {
        if (depth >= MAX_SCRIPT_DEPTH - 1) {
          skipped.push({ relativePath, message: `is deeper than ${MAX_SCRIPT_DEPTH} levels; its scripts are not tools` });
          continue;
        }
        await walk(file, relativePath, depth + 1);
        continue;
      }
      if (!stats.isFile()) {
        skipped.push({ relativePath, message: 'is not a regular file (a pipe, socket or device); skipped' });
        continue;
      }
      if (!(await isExecutable(file))) continue;
      if (!(await isReadable(file))) {
        skipped.push({ relativePath, message: 'is executable but cannot be read; run chmod +r on it' });
        continue;
      }
      scripts.push({ file, relativePath });
    }
  }

  await walk(toolsRoot, '', 0);
  return { scripts, skipped };
}

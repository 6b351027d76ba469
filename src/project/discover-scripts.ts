// Finds the executables in a tools folder: up to 5 levels deep, dotfiles, dot-folders and
// `*.meta.json` skipped, symlinks followed once (loops and dangling links reported, not fatal).
import { promises as fs, constants as fsConstants } from 'node:fs';
import { walkFolder } from './walk-folder.js';

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

/** The executables in `toolsRoot`, up to MAX_SCRIPT_DEPTH levels deep. */
export async function discoverScripts(toolsRoot: string): Promise<Discovery> {
  const { files, notices } = await walkFolder(toolsRoot, {
    maxDepth: MAX_SCRIPT_DEPTH,
    tooDeepMessage: `is deeper than ${MAX_SCRIPT_DEPTH} levels; its scripts are not tools`,
  });
  const scripts: DiscoveredScript[] = [];
  const skipped: DiscoveryNotice[] = [...notices];
  for (const { file, relativePath } of files) {
    if (!(await isExecutable(file))) continue;
    if (!(await isReadable(file))) {
      skipped.push({ relativePath, message: 'is executable but cannot be read; run chmod +r on it' });
      continue;
    }
    scripts.push({ file, relativePath });
  }
  return { scripts, skipped };
}

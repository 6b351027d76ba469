// Finds the executables in a tools folder: up to 5 levels deep, dotfiles, dot-folders and
// `*.meta.json` skipped, symlinks followed once (loops and dangling links reported, not fatal).
// A file that looks like a script but is not executable is reported with the chmod that enables it.
import { promises as fs, constants as fsConstants } from 'node:fs';
import path from 'node:path';
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

const SCRIPT_EXTENSION = /\.(sh|bash|zsh|py|js|mjs|cjs|ts|rb|pl|php|lua)$/i;

/** A shebang line or a script extension: a file meant to be run (a README or a data file is not). */
async function looksLikeScript(file: string): Promise<boolean> {
  if (SCRIPT_EXTENSION.test(file)) return true;
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(file, 'r');
    const start = Buffer.alloc(2);
    const { bytesRead } = await handle.read(start, 0, 2, 0);
    return bytesRead === 2 && start.toString('latin1') === '#!';
  } catch {
    return false;
  } finally {
    await handle?.close();
  }
}

/** The path to give `chmod`: relative to where the command runs, when that is shorter. */
function chmodPath(file: string): string {
  const relative = path.relative(process.cwd(), file);
  const shown = relative !== '' && relative.length < file.length ? relative : file;
  return /^[A-Za-z0-9_./+-]+$/.test(shown) ? shown : `'${shown.replace(/'/g, `'\\''`)}'`;
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
    if (!(await isExecutable(file))) {
      if (await looksLikeScript(file))
        skipped.push({
          relativePath,
          message: `is not executable, so it is not a tool; to enable it, run: chmod +x ${chmodPath(file)}`,
        });
      continue;
    }
    if (!(await isReadable(file))) {
      skipped.push({ relativePath, message: 'is executable but cannot be read; run chmod +r on it' });
      continue;
    }
    scripts.push({ file, relativePath });
  }
  return { scripts, skipped };
}

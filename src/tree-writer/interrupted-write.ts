// Crash recovery: a build killed mid-write leaves its temporary tree beside the output folder, and
// one killed in the microseconds between the swap's two renames leaves the previous tree there
// instead of in place. The next build puts the previous tree back and removes the rest, leaving
// alone the folders of builds still running.
import { promises as fs, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { isProcessAlive } from '../shared/process-alive.js';
import { removeTree } from './remove-tree.js';
import { DIGESTS_MARK, OLD_MARK, SCRATCH_MARK, SPOOL_MARK, TEMP_MARK } from './swap-folders.js';

/** The files `<target><mark><pid>` among `names` (the entries of target's folder), with their writer's pid. */
function marked(target: string, mark: string, names: string[]): { file: string; pid: number }[] {
  const parent = path.dirname(target);
  const prefix = `${path.basename(target)}${mark}`;
  return names
    .filter((name) => name.startsWith(prefix) && /^\d+$/.test(name.slice(prefix.length)))
    .map((name) => ({ file: path.join(parent, name), pid: Number(name.slice(prefix.length)) }));
}

async function siblingsMarked(outDir: string, mark: string): Promise<{ file: string; pid: number }[]> {
  try {
    return marked(outDir, mark, await fs.readdir(path.dirname(outDir)));
  } catch {
    return [];
  }
}

/**
 * Puts back a previous tree left beside `outDir` by a build killed mid-swap, and removes the
 * half-written folders of dead builds. Returns what it did, for the build log.
 */
export async function recoverInterruptedWrite(outDir: string): Promise<string[]> {
  const notes: string[] = [];
  for (const old of await siblingsMarked(outDir, OLD_MARK)) {
    if (isProcessAlive(old.pid) && old.pid !== process.pid) continue;
    let outExists = true;
    try {
      await fs.lstat(outDir);
    } catch {
      outExists = false;
    }
    if (!outExists) {
      await fs.rename(old.file, outDir);
      notes.push(`restored the previous tree that an interrupted build left at ${path.basename(old.file)}`);
    } else {
      await removeTree(old.file);
    }
  }
  const leftBehind = [TEMP_MARK, SPOOL_MARK, SCRATCH_MARK, DIGESTS_MARK].map((mark) => siblingsMarked(outDir, mark));
  for (const temp of (await Promise.all(leftBehind)).flat()) {
    if (isProcessAlive(temp.pid) && temp.pid !== process.pid) continue;
    await removeTree(temp.file);
    notes.push(`removed ${path.basename(temp.file)}, left by an interrupted build`);
  }
  return notes;
}

/**
 * Removes the files `<target><mark><pid>` that writers killed mid-write left beside `target` (a
 * file written whole and renamed into place), leaving alone those of writers still running.
 */
export async function removeDeadWritersFiles(target: string, mark: string): Promise<void> {
  for (const left of await siblingsMarked(target, mark)) {
    if (isProcessAlive(left.pid) && left.pid !== process.pid) continue;
    await fs.rm(left.file, { force: true });
  }
}

/** removeDeadWritersFiles, for a caller that cannot wait. */
export function removeDeadWritersFilesSync(target: string, mark: string): void {
  let names: string[];
  try {
    names = readdirSync(path.dirname(target));
  } catch {
    return;
  }
  for (const left of marked(target, mark, names)) {
    if (isProcessAlive(left.pid) && left.pid !== process.pid) continue;
    rmSync(left.file, { force: true });
  }
}

/**
 * Removes from `folder` the files `keep` does not keep, but those of writers still running (a
 * writer's file name starts with its process id and a dash).
 */
export function removeFilesOfDeadWriters(folder: string, keep: (name: string) => boolean): void {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return;
  }
  for (const name of names) {
    if (keep(name)) continue;
    const pid = Number(/^(\d+)-/.exec(name)?.[1]);
    if (pid !== process.pid && Number.isSafeInteger(pid) && isProcessAlive(pid)) continue;
    rmSync(path.join(folder, name), { force: true });
  }
}

// Sweeps the build cache of files that builds killed mid-write left behind: each kept record is
// written whole to `<file>.<pid>.tmp` and renamed into place, so such a file whose process is no
// longer running is garbage (the record it was to replace is still whole, or was never made).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { isProcessAlive } from '../shared/process-alive.js';

const TEMP_NAME = /\.(\d+)\.tmp$/;

/** Removes the dead writers' `*.<pid>.tmp` files directly in `folders`; returns how many went. */
export async function removeDeadTempFiles(folders: readonly string[]): Promise<number> {
  let removed = 0;
  for (const folder of folders) {
    let names: string[];
    try {
      names = await fs.readdir(folder);
    } catch {
      continue;
    }
    for (const name of names) {
      const pid = TEMP_NAME.exec(name)?.[1];
      if (pid === undefined || Number(pid) === process.pid || isProcessAlive(Number(pid))) continue;
      await fs.rm(path.join(folder, name), { force: true });
      removed++;
    }
  }
  return removed;
}

// Where the batch runner keeps its job files. Every call creates three files there and removes
// them (its job script, stdout, stderr): on a disk-backed /tmp that cost 0.2-0.9 ms a file here
// (ext4 on a virtual disk), on a RAM-backed tmpfs ~10 µs. So the folder goes in /dev/shm when it is
// a tmpfs with room for every job's output at once, unless TMPDIR says where temporary files go.
// Folders left by builds that were SIGKILLed (they cannot remove their own) are removed here once
// their process is gone and nothing has touched them for a while.
import { accessSync, constants, promises as fs, statfsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isProcessAlive } from '../shared/process-alive.js';

const SHARED_MEMORY = '/dev/shm';
const TMPFS_MAGIC = 0x01021994;
const PREFIX = 'staticmcp-run-';
/** A folder of a dead build untouched this long is a leftover (a running build touches its folder every call). */
const STALE_AFTER_MS = 10 * 60_000;
const LEFTOVER_NAME = new RegExp(`^${PREFIX}(\\d+)-`);

/** Creates the job folder of this process; `neededBytes`: what the jobs may hold there at once. */
export async function createJobFolder(neededBytes: number): Promise<string> {
  const root = chooseRoot(neededBytes);
  await removeLeftovers(root);
  return fs.mkdtemp(path.join(root, `${PREFIX}${process.pid}-`));
}

function chooseRoot(neededBytes: number): string {
  // Absolute: the launchers run in the project folder, so a relative TMPDIR would name another
  // folder there (every job then failed with exit code 2 and the tree held those errors).
  const temporaryFolder = path.resolve(os.tmpdir());
  if (process.env.TMPDIR) return temporaryFolder;
  try {
    const stats = statfsSync(SHARED_MEMORY);
    if (stats.type !== TMPFS_MAGIC || stats.bavail * stats.bsize < neededBytes) return temporaryFolder;
    accessSync(SHARED_MEMORY, constants.W_OK);
    return SHARED_MEMORY;
  } catch {
    return temporaryFolder;
  }
}

async function removeLeftovers(root: string): Promise<void> {
  let names: string[];
  try {
    names = await fs.readdir(root);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = LEFTOVER_NAME.exec(name)?.[1];
    if (pid === undefined || Number(pid) === process.pid || isProcessAlive(Number(pid))) continue;
    const folder = path.join(root, name);
    try {
      if (Date.now() - (await fs.stat(folder)).mtimeMs < STALE_AFTER_MS) continue;
      await fs.rm(folder, { recursive: true, force: true });
    } catch {
      // Not ours to remove (another user's), or gone already.
    }
  }
}

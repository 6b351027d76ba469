// Where `npm test` (scripts/run-tests.mjs) puts the cli tier's temporary folders: a folder of its
// own under /dev/shm when that is a RAM-backed tmpfs with room, so the trees, projects and caches
// those tests write and remove never reach the disk's journal (on ext4 that is most of the system
// time a file's creation, write and removal costs). vitest.config.ts gives it to the cli tier's
// workers as TMPDIR; the runtimes tier keeps os.tmpdir(), because Deno (Netlify's edge runtime
// there) refuses to read a file below /dev without --allow-all. Elsewhere (no /dev/shm, another
// filesystem, a small one such as a container's default, or a TMPDIR the user set) every tier
// keeps os.tmpdir().
// Each run has its own folder, removed at its end; a run that was killed cannot remove its own,
// so a later run removes those whose process is gone.
import { lstatSync, mkdtempSync, readdirSync, rmSync, statfsSync } from 'node:fs';
import path from 'node:path';

export const SHARED_MEMORY = '/dev/shm';
/** The environment variable that names the folder to vitest.config.ts. */
export const CLI_TIER_TMPDIR = 'STATICMCP_TEST_CLI_TMPDIR';
/** statfs's f_type of a tmpfs. */
const TMPFS_MAGIC = 0x01021994;
/** What the tests may hold there at once, with room to spare: several built trees and an npm install or two. */
export const MIN_FREE_BYTES = 2 * 1024 ** 3;
const PREFIX = 'staticmcp-tests-';
const LEFTOVER_NAME = new RegExp(`^${PREFIX}(\\d+)-`);

function isProcessAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/**
 * Makes this run's temporary folder under `root` and returns its path, or undefined when the
 * tests should keep os.tmpdir(): TMPDIR is set in `env`, or `root` is not a tmpfs with
 * `minFreeBytes` free that this user can write.
 */
export function makeTestTempFolder({ env = process.env, root = SHARED_MEMORY, minFreeBytes = MIN_FREE_BYTES } = {}) {
  if (env.TMPDIR) return undefined;
  try {
    const stats = statfsSync(root);
    if (stats.type !== TMPFS_MAGIC || stats.bavail * stats.bsize < minFreeBytes) return undefined;
    removeLeftovers(root);
    return mkdtempSync(path.join(root, `${PREFIX}${process.pid}-`));
  } catch {
    return undefined;
  }
}

/** Removes the folders of runs whose process is gone (this user's only: others' cannot be removed). */
function removeLeftovers(root) {
  for (const name of readdirSync(root)) {
    const pid = LEFTOVER_NAME.exec(name)?.[1];
    if (pid === undefined || Number(pid) === process.pid || isProcessAlive(Number(pid))) continue;
    const folder = path.join(root, name);
    try {
      if (lstatSync(folder).uid !== process.getuid?.()) continue;
      rmSync(folder, { recursive: true, force: true });
    } catch {
      // Gone already, or not ours.
    }
  }
}

/** Removes a folder makeTestTempFolder made (what the tests left in it included). */
export function removeTestTempFolder(folder) {
  rmSync(folder, { recursive: true, force: true, maxRetries: 3 });
}

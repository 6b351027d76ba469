// Where `npm test` puts the tests' temporary folders (scripts/test-temp-folder.mjs): a folder of
// the run's own on a RAM-backed tmpfs with room, removed at the end and by a later run when the
// run that made it was killed; os.tmpdir() (undefined here) when TMPDIR is set, when the tmpfs is
// smaller than the tests need (a container's 64 MB /dev/shm), or when the folder is on a disk.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTestTempFolder, removeTestTempFolder, SHARED_MEMORY } from '../../scripts/test-temp-folder.mjs';

const TMPFS_MAGIC = 0x01021994;
const isTmpfs = (folder: string): boolean => {
  try {
    return statfsSync(folder).type === TMPFS_MAGIC;
  } catch {
    return false;
  }
};
const NO_TMPDIR = { PATH: process.env.PATH };

describe.skipIf(!isTmpfs(SHARED_MEMORY))('the tests’ temporary folder', () => {
  // A root of this file's own on the tmpfs, so the leftovers below are never another run's.
  const root = mkdtempSync(path.join(SHARED_MEMORY, 'staticmcp-temp-folder-test-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('is a new folder of the run on a tmpfs with room, removed with what the tests left in it', () => {
    const folder = makeTestTempFolder({ env: NO_TMPDIR, root, minFreeBytes: 1024 });
    expect(folder).toBeDefined();
    expect(path.dirname(folder!)).toBe(root);
    expect(path.basename(folder!)).toMatch(new RegExp(`^staticmcp-tests-${process.pid}-`));
    const other = makeTestTempFolder({ env: NO_TMPDIR, root, minFreeBytes: 1024 });
    expect(other).not.toBe(folder);
    mkdirSync(path.join(folder!, 'tree'));
    writeFileSync(path.join(folder!, 'tree', 'mcp.json'), '{}');
    removeTestTempFolder(folder!);
    removeTestTempFolder(other!);
    expect(existsSync(folder!)).toBe(false);
  });

  it('is the default temporary folder when TMPDIR is set or the tmpfs is too small', () => {
    expect(makeTestTempFolder({ env: { ...NO_TMPDIR, TMPDIR: '/var/tmp' }, root, minFreeBytes: 1024 })).toBeUndefined();
    const { bavail, bsize } = statfsSync(root);
    expect(makeTestTempFolder({ env: NO_TMPDIR, root, minFreeBytes: bavail * bsize + 1 })).toBeUndefined();
    expect(
      makeTestTempFolder({ env: NO_TMPDIR, root: path.join(root, 'missing'), minFreeBytes: 1024 }),
    ).toBeUndefined();
  });

  it.skipIf(isTmpfs(process.cwd()))('is the default temporary folder when the folder is on a disk', () => {
    expect(makeTestTempFolder({ env: NO_TMPDIR, root: process.cwd(), minFreeBytes: 1024 })).toBeUndefined();
  });

  it('removes the folders of runs whose process is gone, never those of a running one', () => {
    const dead = path.join(root, `staticmcp-tests-${spawnSync('true').pid}-left`);
    const running = path.join(root, `staticmcp-tests-${process.ppid}-running`);
    const unrelated = path.join(root, 'staticmcp-tests-notes');
    for (const folder of [dead, running, unrelated]) {
      mkdirSync(folder);
      writeFileSync(path.join(folder, 'file'), 'x');
    }
    const folder = makeTestTempFolder({ env: NO_TMPDIR, root, minFreeBytes: 1024 });
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(running)).toBe(true);
    expect(existsSync(unrelated)).toBe(true);
    removeTestTempFolder(folder!);
  });
});

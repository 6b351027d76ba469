// Reading what a build wrote: whole-folder snapshots (to prove what a build did and did not
// touch), JSON files, and waiting for a file to appear.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';

/** Every file under `root` (relative `/` path → bytes); symlinks and special files are listed by kind. */
export async function readTree(root: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  async function walk(folder: string, prefix: string): Promise<void> {
    for (const entry of (await fs.readdir(folder, { withFileTypes: true })).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    )) {
      const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) await walk(full, relative);
      else if (entry.isFile()) files.set(relative, await fs.readFile(full));
      else if (entry.isSymbolicLink()) files.set(relative, Buffer.from(`symlink → ${await fs.readlink(full)}`));
      else files.set(relative, Buffer.from('special file'));
    }
  }
  await walk(root, '');
  return files;
}

/** A comparable fingerprint of a folder: path → sha256 of content (plus mode), for "nothing changed". */
export async function fingerprint(root: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  for (const [file, bytes] of await readTree(root)) {
    const stats = await fs.lstat(path.join(root, file));
    result[file] = `${(stats.mode & 0o7777).toString(8)} ${createHash('sha256').update(bytes).digest('hex')}`;
  }
  return result;
}

export async function readJson<T = Record<string, unknown>>(file: string): Promise<T> {
  return JSON.parse(await fs.readFile(file, 'utf8')) as T;
}

export async function exists(file: string): Promise<boolean> {
  try {
    await fs.lstat(file);
    return true;
  } catch {
    return false;
  }
}

/** Waits (without a deadline of its own: the test timeout is the limit) until `file` exists. */
export async function waitForFile(file: string): Promise<void> {
  while (!(await exists(file))) await new Promise((resolve) => setTimeout(resolve, 25));
}

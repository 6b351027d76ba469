// Temporary folders for tests: every folder made here is removed after its test file
// (test/helpers/remove-temp-folders.setup.ts registers the cleanup for every file), so a run
// leaves nothing behind in os.tmpdir(). The prefix says which helper or test made a folder.
import { promises as fs, mkdtempSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const madeFolders: string[] = [];

/** A fresh temporary folder (its real path), removed after the test file. */
export function temporaryFolderSync(prefix = 'staticmcp-test-'): string {
  const folder = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  madeFolders.push(folder);
  return folder;
}

/** A fresh temporary folder (its real path), removed after the test file. */
export async function temporaryFolder(prefix = 'staticmcp-test-'): Promise<string> {
  const folder = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), prefix)));
  madeFolders.push(folder);
  return folder;
}

/** Removes every folder made so far; runs after each test file, and may be called earlier. */
export async function removeTemporaryFolders(): Promise<void> {
  for (const folder of madeFolders.splice(0)) {
    // Give back permissions a test may have taken away, so the folder can be removed.
    await fs.chmod(folder, 0o755).catch(() => {});
    await fs.rm(folder, { recursive: true, force: true, maxRetries: 3 });
  }
}

// Where the tests find things: the repository, the CLI compiled for this run by
// test/global-setup.ts, and the one-purpose fixture scripts.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The compiled `staticmcp` entry point to run with node (see test/global-setup.ts). */
export const CLI = inject('cli');
/** The installed bin beside CLI (package.json `bin`): the same start, bundled as CommonJS. */
export function binPath(): string {
  return path.join(path.dirname(CLI), 'staticmcp.cjs');
}
export const FIXTURE_SCRIPTS = path.join(REPO_ROOT, 'test', 'fixtures', 'scripts');

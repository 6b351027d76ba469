// Where the tests find things: the repository, the CLI compiled for this run by
// test/global-setup.ts, and the one-purpose fixture scripts.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/**
 * The compiled `staticmcp` bin to run with node (see test/global-setup.ts): package.json `bin`,
 * what an installed `staticmcp` runs. Node starts it without its ES module loader.
 */
export const CLI = inject('cli');
/** The ES module entry beside CLI (`node dist/cli/main.js …`): the same start, for the tests that run that path. */
export function mainModulePath(): string {
  return path.join(path.dirname(CLI), 'main.js');
}
export const FIXTURE_SCRIPTS = path.join(REPO_ROOT, 'test', 'fixtures', 'scripts');

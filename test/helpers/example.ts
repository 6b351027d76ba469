// fixtures/example built once per `vitest run` by test/global-setup.ts: files that only read it
// share that one project, files that change it (or its tree) work on a copy.
import { cpSync } from 'node:fs';
import path from 'node:path';
import { inject } from 'vitest';
import { temporaryFolderSync } from './temp-folders.js';

/** The shared built copy of fixtures/example (its tree in `dist/`): read it, never change it. */
export function builtExample(): string {
  const project = inject('builtExample');
  if (!project) throw new Error('no built fixtures/example: this file runs in the core tier, which compiles nothing');
  return project;
}

/** A private copy of the built fixtures/example in a temporary folder, for a test that changes it. */
export function copyBuiltExample(): string {
  const project = path.join(temporaryFolderSync('staticmcp-fixture-'), 'example');
  cpSync(builtExample(), project, { recursive: true });
  return project;
}

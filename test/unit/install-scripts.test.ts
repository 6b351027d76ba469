// npm 11 runs a dependency's install scripts (esbuild, workerd, deno, sharp, the Inspector) only
// with a notice unless package.json's allowScripts names it: every package a lockfile marks with
// install scripts is approved, so `npm install` prints no install-scripts block, and an update
// that brings a new one fails here with its name. By name: the lockfile pins each version with its
// integrity, and it records no registry URLs, from which alone npm would verify a `name@version`
// entry (it refuses such an entry otherwise).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/paths.js';

interface LockEntry {
  name?: string;
  version?: string;
  hasInstallScript?: boolean;
}

/** `name@version` of every package the lockfile marks as having install scripts. */
function listInstallScripts(folder: string): string[] {
  const lock = JSON.parse(readFileSync(path.join(folder, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  return Object.entries(lock.packages)
    .filter(([where, entry]) => where !== '' && entry.hasInstallScript)
    .map(([where, entry]) => `${entry.name ?? where.slice(where.lastIndexOf('node_modules/') + 13)}@${entry.version}`);
}

/** The package name of `name@version` (`@scope/name@version` too). */
function nameOf(pinned: string): string {
  return pinned.slice(0, pinned.lastIndexOf('@'));
}

describe.each(['.', 'tools/runtimes'])('allowScripts of %s/package.json', (folder) => {
  it('approves every package of its lockfile that has install scripts, by name', () => {
    const root = path.join(REPO_ROOT, folder);
    const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      allowScripts?: Record<string, boolean>;
    };
    const keys = Object.keys(manifest.allowScripts ?? {});
    const unapproved = listInstallScripts(root).filter((pinned) => !keys.includes(nameOf(pinned)));
    expect(unapproved, 'add their names to allowScripts').toEqual([]);
  });
});

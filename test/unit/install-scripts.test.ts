// npm 11 runs a dependency's install scripts (esbuild, workerd, deno, sharp, the Inspector) only
// with a notice unless package.json's allowScripts names it: every package a lockfile marks with
// install scripts is approved by its exact version, so `npm install` prints no install-scripts
// block, and an update that brings a new one fails here with its name.
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

/** Whether an allowScripts key (`name`, `name@1.2.3` or `name@1.2.3 || 1.2.4`) allows `name@version`. */
function isApproved(keys: readonly string[], pinned: string): boolean {
  const at = pinned.lastIndexOf('@');
  const [name, version] = [pinned.slice(0, at), pinned.slice(at + 1)];
  return keys.some((key) => {
    const keyAt = key.lastIndexOf('@');
    if (keyAt <= 0) return key === name;
    return (
      key.slice(0, keyAt) === name &&
      key
        .slice(keyAt + 1)
        .split('||')
        .some((part) => part.trim() === version)
    );
  });
}

describe.each(['.', 'tools/runtimes'])('allowScripts of %s/package.json', (folder) => {
  it('approves every package of its lockfile that has install scripts, at its version', () => {
    const root = path.join(REPO_ROOT, folder);
    const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      allowScripts?: Record<string, boolean>;
    };
    const keys = Object.keys(manifest.allowScripts ?? {});
    const unapproved = listInstallScripts(root).filter((pinned) => !isApproved(keys, pinned));
    expect(unapproved, 'add them to allowScripts (npm install-scripts approve <name>)').toEqual([]);
  });
});

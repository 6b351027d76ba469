// A folder's node_modules holding one package of tools/runtimes and what it needs, nothing else: what
// npx's cache holds after a first `npx <package>@<version>` downloaded it. npx reads every package
// of the folder's node_modules before it runs one (libnpmexec loads the folder's whole tree): with
// the closure of the one package instead of all of tools/runtimes, each npx start reads about half
// the packages. Each package is a real folder whose entries link to the installed ones, so npx sees
// packages, not links to elsewhere, and node runs the installed files where they are.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { RUNTIME_TOOLS } from './runtime-tools.js';

interface LockedPackage {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/** The lockfile key node would resolve `name` to from the package at key `from` (`node_modules/a/node_modules/b`). */
function resolveLocked(packages: Record<string, LockedPackage>, from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const key = `${base === '' ? '' : `${base}/`}node_modules/${name}`;
    if (packages[key]) return key;
    if (base === '') return undefined;
    const nested = base.lastIndexOf('/node_modules/');
    base = nested < 0 ? '' : base.slice(0, nested);
  }
}

/** Top-level lockfile keys of `name` and everything it needs (nested copies live inside their parents). */
function listClosure(packages: Record<string, LockedPackage>, name: string): string[] {
  const seen = new Set<string>();
  const pending = [`node_modules/${name}`];
  for (let key = pending.pop(); key !== undefined; key = pending.pop()) {
    const locked = packages[key];
    if (seen.has(key) || !locked) continue;
    seen.add(key);
    const { dependencies, optionalDependencies, peerDependencies } = locked;
    for (const dependency of Object.keys({ ...dependencies, ...optionalDependencies, ...peerDependencies })) {
      const resolved = resolveLocked(packages, key, dependency);
      if (resolved) pending.push(resolved);
    }
  }
  return [...seen].filter((key) => key.indexOf('/node_modules/') < 0);
}

/**
 * Gives `folder` a node_modules with tools/runtimes' `name` and its dependencies (as its lockfile
 * resolves them; optional ones not installed on this platform are left out), and the package's
 * bins in node_modules/.bin.
 */
export async function linkToolClosure(folder: string, name: string): Promise<void> {
  const installed = path.join(RUNTIME_TOOLS, 'node_modules');
  const lock = JSON.parse(await fs.readFile(path.join(RUNTIME_TOOLS, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockedPackage>;
  };
  const modules = path.join(folder, 'node_modules');
  await Promise.all(
    listClosure(lock.packages, name).map(async (key) => {
      const relative = key.slice('node_modules/'.length);
      const entries = await fs.readdir(path.join(installed, relative)).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return [];
        throw error;
      });
      if (entries.length === 0) return;
      await fs.mkdir(path.join(modules, relative), { recursive: true });
      await Promise.all(
        entries.map((entry) => fs.symlink(path.join(installed, relative, entry), path.join(modules, relative, entry))),
      );
    }),
  );
  const manifest = JSON.parse(await fs.readFile(path.join(installed, name, 'package.json'), 'utf8')) as {
    bin?: string | Record<string, string>;
  };
  const bins = typeof manifest.bin === 'string' ? { [path.basename(name)]: manifest.bin } : (manifest.bin ?? {});
  await fs.mkdir(path.join(modules, '.bin'));
  for (const [bin, file] of Object.entries(bins))
    await fs.symlink(path.join('..', name, file), path.join(modules, '.bin', bin));
}

// The dev tools only the runtimes tier uses (the MCP Inspector, the conformance prerelease and the
// Node 22 it runs on), pinned by tools/runtimes/package-lock.json and kept out of the root install
// because they ask for Node 22. test/global-setup.ts installs them for the runtimes tier with
// `npm ci` (scripts/install-runtime-tools.mjs, which .ci/run also starts early) when the folder is
// missing or was installed from another lockfile.
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const RUNTIME_TOOLS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../tools/runtimes');

/** `require` from tools/runtimes: resolves its packages (`requireTool.resolve('conformance-next/package.json')`). */
export const requireTool = createRequire(path.join(RUNTIME_TOOLS, 'package.json'));

const INSTALL_SCRIPT = path.resolve(RUNTIME_TOOLS, '../../scripts/install-runtime-tools.mjs');

/**
 * Installs tools/runtimes (`npm ci`) unless it holds exactly what its lockfile says
 * (scripts/install-runtime-tools.mjs); resolves when it is ready, so the caller can compile beside it.
 */
export async function installRuntimeTools(): Promise<void> {
  // stderr inherited: a user waiting a minute sees that the install is what runs, and npm's error.
  const child = spawn(process.execPath, [INSTALL_SCRIPT], { stdio: ['ignore', 'inherit', 'inherit'] });
  const status = await new Promise<number | string | null>((resolve) => {
    child.on('error', (error) => resolve(error.message));
    child.on('close', (code, signal) => resolve(code ?? signal));
  });
  if (status !== 0) throw new Error(`installing tools/runtimes failed (what npm said is above): ${String(status)}`);
}

/**
 * Makes `destination` a node_modules folder that holds the root install's packages and
 * tools/runtimes' own, as links (the root's win where both have one): what npx finds in a folder
 * where a user has both installed. `.bin` and scopes are merged entry by entry.
 */
export async function linkRuntimeToolsWith(rootModules: string, destination: string): Promise<void> {
  await mergeLinks([rootModules, path.join(RUNTIME_TOOLS, 'node_modules')], destination, 0);
}

async function mergeLinks(sources: readonly string[], destination: string, depth: number): Promise<void> {
  await fs.mkdir(destination, { recursive: true });
  const seen = new Set<string>();
  for (const source of sources) {
    for (const entry of await fs.readdir(source, { withFileTypes: true }).catch(() => [])) {
      if (seen.has(entry.name) || (entry.name.startsWith('.') && entry.name !== '.bin')) continue;
      seen.add(entry.name);
      const merged = depth === 0 && (entry.name === '.bin' || entry.name.startsWith('@'));
      if (merged)
        await mergeLinks(
          sources.map((folder) => path.join(folder, entry.name)),
          path.join(destination, entry.name),
          depth + 1,
        );
      else await fs.symlink(path.join(source, entry.name), path.join(destination, entry.name));
    }
  }
}

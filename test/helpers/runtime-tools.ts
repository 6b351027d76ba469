// The dev tools only the runtimes tier uses (the MCP Inspector, the conformance prerelease and the
// Node 22 it runs on), pinned by tools/runtimes/package-lock.json and kept out of the root install
// because they ask for Node 22. test/global-setup.ts installs them for the runtimes tier with
// `npm ci` (scripts/install-runtime-tools.mjs, which .ci/run also starts early) when the folder is
// missing or was installed from another lockfile.
import { spawn } from 'node:child_process';
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

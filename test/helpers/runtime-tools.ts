// The dev tools only the runtimes tier uses (the MCP Inspector, the conformance prerelease and the
// Node 22 it runs on), pinned by tools/runtimes/package-lock.json and kept out of the root install
// because they ask for Node 22. test/global-setup.ts installs them for the runtimes tier with
// `npm ci` when the folder is missing or was installed from another lockfile.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, promises as fs, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const RUNTIME_TOOLS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../tools/runtimes');

/** `require` from tools/runtimes: resolves its packages (`requireTool.resolve('conformance-next/package.json')`). */
export const requireTool = createRequire(path.join(RUNTIME_TOOLS, 'package.json'));

/** Written into tools/runtimes/node_modules after an install: the hash of the lockfile it installed. */
const STAMP = path.join(RUNTIME_TOOLS, 'node_modules', '.installed-lock-sha256');

// npm ci of the Inspector and the conformance suite takes a minute on a quiet 2-core machine and
// well over ten on a saturated one; the limit is for a hung npm, not a slow one.
const INSTALL_TIMEOUT_MS = 1_800_000;

/** Installs tools/runtimes (`npm ci`) unless it holds exactly what its lockfile says; returns whether it did. */
export function installRuntimeTools(): boolean {
  const lockHash = createHash('sha256')
    .update(readFileSync(path.join(RUNTIME_TOOLS, 'package-lock.json')))
    .digest('hex');
  if (existsSync(STAMP) && readFileSync(STAMP, 'utf8') === lockHash) return false;
  process.stderr.write('test/global-setup: installing the runtimes tier tools (npm ci --prefix tools/runtimes)\n');
  try {
    // npm on PATH, as `npm test` found it; engine-strict off: these tools ask for Node 22 and run on it.
    execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error', '--engine-strict=false'], {
      cwd: RUNTIME_TOOLS,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: INSTALL_TIMEOUT_MS,
    });
  } catch (error) {
    const { stderr, signal } = error as { stderr?: Buffer; signal?: string };
    const why = signal
      ? `npm was stopped (${signal}) after ${INSTALL_TIMEOUT_MS / 60_000} minutes`
      : `${stderr ?? error}`;
    throw new Error(
      `installing tools/runtimes failed (run \`npm ci --prefix tools/runtimes\` to see why; it needs the npm registry once):\n${why}`,
    );
  }
  writeFileSync(STAMP, lockHash);
  return true;
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

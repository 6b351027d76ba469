// The package's own name and version, read once from package.json. Besides what users see
// (mcp.json's generator, --version, the pinned command of the deploy files, server.json and the
// landing page), `generatorName()` keys the build's caches: each tool's run seed (so every cached
// call result), cached template bytes, the up-to-date record and a shard's record. A new version
// therefore reruns every call and never replays "already up to date" from an older one; only the
// --help cache, keyed by the script's bytes alone, survives it.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { StaticMcpError } from '../core/staticmcp-error.js';

let cached: { name: string; version: string } | undefined;

export function packageInfo(): { name: string; version: string } {
  cached ??= readPackageJson(fileURLToPath(new URL('../../package.json', import.meta.url)));
  return cached;
}

export function generatorName(): string {
  const { name, version } = packageInfo();
  return `${name} ${version}`;
}

/**
 * The installed package's package.json at `file` (one folder above dist/). An install without it
 * (a dist/ folder copied on its own) is refused with what to do, not reported as a bug.
 */
export function readPackageJson(file: string): { name: string; version: string } {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as { name: string; version: string };
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new StaticMcpError(
      'INSTALL_INCOMPLETE',
      `staticmcp cannot read its own package.json at ${file} (${reason})`,
      'reinstall staticmcp (npm install -g staticmcp); a dist/ folder copied on its own needs the package.json from the folder above it',
    );
  }
}

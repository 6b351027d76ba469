// The package's own name and version, read once from package.json. Besides what users see
// (mcp.json's generator, --version, the pinned command of the deploy files, server.json and the
// landing page), `generatorName()` keys the build's caches: each tool's run seed (so every cached
// call result), cached template bytes, the up-to-date record and a shard's record. A new version
// therefore reruns every call and never replays "already up to date" from an older one; only the
// --help cache, keyed by the script's bytes alone, survives it.
import { readFileSync } from 'node:fs';

let cached: { name: string; version: string } | undefined;

export function packageInfo(): { name: string; version: string } {
  cached ??= JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    name: string;
    version: string;
  };
  return cached;
}

export function generatorName(): string {
  const { name, version } = packageInfo();
  return `${name} ${version}`;
}

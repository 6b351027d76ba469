// The package's own name and version, read once from package.json (for mcp.json and --version).
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

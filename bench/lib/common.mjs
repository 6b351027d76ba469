// What every benchmark shares: where the compiled CLI is, medians, and throwaway folders.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// The bin (dist/cli/staticmcp.cjs), as an installed `staticmcp` runs it; STATICMCP_CLI measures another
// compiled CLI (e.g. main's dist/cli/main.js, for before/after figures).
export const cliPath = process.env.STATICMCP_CLI
  ? path.resolve(process.env.STATICMCP_CLI)
  : path.join(repoRoot, 'dist/cli/staticmcp.cjs');

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

const madeFolders = [];
// Removed when the bench exits, however it ends (a bench that throws left its trees in /tmp).
process.on('exit', () => {
  for (const folder of madeFolders) rmSync(folder, { recursive: true, force: true });
});

export function tempDir(prefix) {
  const folder = mkdtempSync(path.join(os.tmpdir(), prefix));
  madeFolders.push(folder);
  return folder;
}

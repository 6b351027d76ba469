// Would bundling the CLI make `staticmcp serve` start faster? Spawn → initialize answered over
// stdio for the tsc output (dist/cli/main.js, what ships) and for an esbuild bundle of the same
// entry (code splitting keeps the lazy imports lazy; npm packages stay external), against
// `node -e 0`, alternating in one run. The bundle is kept only if it reaches ≤ 1.2× node: it did
// not (1.26 vs 1.28, and 1.31 vs 1.34, on 2026-11-23; most of the gap is Node loading its own internal modules:
// streams, fs/promises, URL), so the package ships tsc's output.
// Run: npm run build && node bench/bundled-serve-startup.mjs
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { cliPath, median, repoRoot, timeInitialize, timeNodeStart, writeLookupTree } from './lib/bridge-lib.mjs';

const RUNS = Number(process.env.RUNS ?? 30);
const tree = writeLookupTree(10);
const outdir = path.join(repoRoot, 'bench', '.work', 'bundled-cli', 'cli');
mkdirSync(outdir, { recursive: true });
await build({
  absWorkingDir: repoRoot,
  entryPoints: ['src/cli/main.ts'],
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
});
const bundledCli = path.join(outdir, 'main.js');

const node = [];
const shipped = [];
const bundled = [];
await timeNodeStart();
await timeInitialize([cliPath, 'serve', tree]);
await timeInitialize([bundledCli, 'serve', tree]);
for (let run = 0; run < RUNS; run += 1) {
  node.push(await timeNodeStart());
  shipped.push(await timeInitialize([cliPath, 'serve', tree]));
  bundled.push(await timeInitialize([bundledCli, 'serve', tree]));
}
const base = median(node);
console.log(`start-up, median of ${RUNS} alternating runs`);
console.log(`  node -e 0 (spawn → exit):                   ${base.toFixed(1)} ms`);
console.log(
  `  staticmcp serve, tsc output (shipped):      ${median(shipped).toFixed(1)} ms   ratio ${(median(shipped) / base).toFixed(2)}`,
);
console.log(
  `  staticmcp serve, esbuild bundle:            ${median(bundled).toFixed(1)} ms   ratio ${(median(bundled) / base).toFixed(2)} (kept only if ≤ 1.2)`,
);

// Would bundling the CLI make `staticmcp serve` start faster? Spawn → initialize answered over
// stdio for the tsc output (dist/cli/main.js, what ships) and for an esbuild bundle of the same
// entry (code splitting keeps the lazy imports lazy; npm packages stay external), against
// `node -e 0`, alternating in one run. The bundle is kept only if it reaches ≤ 1.2× node: it did
// not (1.26 vs 1.28, and 1.31 vs 1.34, on 2026-11-23; most of the gap is Node loading its own internal modules:
// streams, fs/promises, URL), so the package ships tsc's output. Again on 2026-11-26 (a busy 2-core
// machine, after the compile cache and the start-up trims): Node 20 1.53 vs 1.63, Node 24 1.36 vs
// 1.78, main-thread CPU 128 vs 133 ms and 61 vs 63 ms: the bundle saves module loads (27 files
// instead of 34; Node 20 reads each through the thread pool), not work, and still misses 1.2.
// Since 2026-11-28 an ordinary serve line runs from a CommonJS bundle of the serve path only
// (scripts/bundle-cli.mjs), with V8's code cache on Node 20 too: "shipped" below is that.
// On every Node given (NODE24=/path/to/node as for bridge-startup.mjs), with the server's main-thread
// CPU time beside the wall time.
// Run: npm run build && NODE24=… node bench/bundled-serve-startup.mjs
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import {
  cliPath,
  median,
  nodeBinaries,
  repoRoot,
  timeInitializeWithCpu,
  timeNodeStart,
  writeLookupTree,
} from './lib/bridge-lib.mjs';

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

for (const { binary, version } of nodeBinaries()) {
  const node = [];
  const shipped = { wall: [], cpu: [] };
  const bundled = { wall: [], cpu: [] };
  const measure = async (cli, into) => {
    const { elapsed, cpuMs } = await timeInitializeWithCpu([cli, 'serve', tree], binary);
    into.wall.push(elapsed);
    if (cpuMs !== undefined) into.cpu.push(cpuMs);
  };
  await timeNodeStart(binary);
  await measure(cliPath, { wall: [], cpu: [] });
  await measure(bundledCli, { wall: [], cpu: [] });
  for (let run = 0; run < RUNS; run += 1) {
    node.push(await timeNodeStart(binary));
    await measure(cliPath, shipped);
    await measure(bundledCli, bundled);
  }
  const base = median(node);
  const line = ({ wall, cpu }) =>
    `${median(wall).toFixed(1)} ms   ratio ${(median(wall) / base).toFixed(2)}${cpu.length > 0 ? `, main thread ${median(cpu).toFixed(1)} ms CPU` : ''}`;
  console.log(`start-up on Node ${version}, median of ${RUNS} alternating runs`);
  console.log(`  node -e 0 (spawn → exit):                   ${base.toFixed(1)} ms`);
  console.log(`  staticmcp serve, tsc output (shipped):      ${line(shipped)}`);
  console.log(`  staticmcp serve, esbuild bundle:            ${line(bundled)} (kept only if ≤ 1.2)`);
}

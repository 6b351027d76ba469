// Start-up: spawn `staticmcp serve` → the initialize response, vs spawning `node -e 0` until it
// exits (Node's own start), measured alternately in the same run, on every Node given: the one
// running the bench, and NODE24=/path/to/node. BEFORE_CLI=/old/checkout/dist/cli/staticmcp.cjs
// measures that CLI alternately too, for before/after figures from one run. Name the same entry
// file the after figure starts (the bin, staticmcp.cjs, unless STATICMCP_CLI says otherwise):
// main.js is an ES module, and on Node 20 the ES module loader it sets up costs more than most
// changes being measured, so an old main.js against the new bin shows a gain no change made.
// Besides the wall time, the CPU time of the server's main thread when it answered (Linux): on a
// busy machine the wall time varies by tens of ms from run to run, the CPU time much less (so
// Node's own start is measured as CPU too, and the CPU ratio printed beside the wall one). Target
// (issue #23): ratio ≤ 1.2. NODE_EXTRA_CA_CERTS in the environment makes Node 20 (not 24) read that
// file at every start, ~50 ms here, which lands in both figures and lowers the ratio: the bench
// says so when it is set.
// Run: npm run build && NODE24=… node bench/bridge-startup.mjs
import path from 'node:path';
import {
  cliPath,
  median,
  nodeBinaries,
  nodeStartCpuMs,
  timeInitializeWithCpu,
  timeNodeStart,
  writeLookupTree,
} from './lib/bridge-lib.mjs';

const RUNS = Number(process.env.RUNS ?? 30);
const tree = writeLookupTree(10);
const clis = [
  ...(process.env.BEFORE_CLI ? [{ label: 'before', path: path.resolve(process.env.BEFORE_CLI) }] : []),
  { label: process.env.BEFORE_CLI ? 'after' : '', path: cliPath },
];

if (process.env.BEFORE_CLI && path.basename(clis[0].path) !== path.basename(cliPath))
  console.log(
    `note: BEFORE_CLI starts ${path.basename(clis[0].path)}, the after figure ${path.basename(cliPath)}: different entry files, not only different builds`,
  );
if (process.env.NODE_EXTRA_CA_CERTS)
  console.log('note: NODE_EXTRA_CA_CERTS is set; Node 20 reads it at every start (both figures pay it)');
for (const { binary, version } of nodeBinaries()) {
  const node = [];
  const nodeCpus = [];
  const walls = clis.map(() => []);
  const cpus = clis.map(() => []);
  // A first run of each, not counted: the file cache, and Node's compile cache (22.1+) filled.
  await timeNodeStart(binary);
  for (const cli of clis) await timeInitializeWithCpu([cli.path, 'serve', tree], binary);
  for (let run = 0; run < RUNS; run += 1) {
    node.push(await timeNodeStart(binary));
    const nodeCpu = await nodeStartCpuMs(binary);
    if (nodeCpu !== undefined) nodeCpus.push(nodeCpu);
    for (const [index, cli] of clis.entries()) {
      const { elapsed, cpuMs } = await timeInitializeWithCpu([cli.path, 'serve', tree], binary);
      walls[index].push(elapsed);
      if (cpuMs !== undefined) cpus[index].push(cpuMs);
    }
  }
  const base = median(node);
  const baseCpu = nodeCpus.length > 0 ? median(nodeCpus) : undefined;
  console.log(`start-up on Node ${version}, median of ${RUNS} alternating runs`);
  console.log(
    `  node -e 0 (spawn → exit):               ${base.toFixed(1)} ms${baseCpu === undefined ? '' : `, main thread ${baseCpu.toFixed(1)} ms CPU (node -e, to its end)`}`,
  );
  for (const [index, cli] of clis.entries()) {
    const wall = median(walls[index]);
    const cpuMs = cpus[index].length > 0 ? median(cpus[index]) : undefined;
    const cpu =
      cpuMs === undefined
        ? ''
        : `, main thread ${cpuMs.toFixed(1)} ms CPU${baseCpu === undefined ? '' : ` (ratio ${(cpuMs / baseCpu).toFixed(2)})`}`;
    console.log(
      `  staticmcp serve${cli.label ? `, ${cli.label.padEnd(6)}` : '        '} (→ initialize): ${wall.toFixed(1)} ms   ratio ${(wall / base).toFixed(2)} (target ≤ 1.2)${cpu}`,
    );
  }
}

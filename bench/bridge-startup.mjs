// Start-up: spawn `staticmcp serve` → the initialize response, vs spawning `node -e 0` until it
// exits (Node's own start), measured alternately in the same run. Target: ratio ≤ 1.5.
// Run: npm run build && node bench/bridge-startup.mjs
import { cliPath, median, timeInitialize, timeNodeStart, writeLookupTree } from './lib/bridge-lib.mjs';

const RUNS = Number(process.env.RUNS ?? 30);
const tree = writeLookupTree(10);

const node = [];
const ours = [];
await timeNodeStart();
await timeInitialize([cliPath, 'serve', tree]);
for (let run = 0; run < RUNS; run += 1) {
  node.push(await timeNodeStart());
  ours.push(await timeInitialize([cliPath, 'serve', tree]));
}
console.log(`start-up, median of ${RUNS} alternating runs`);
console.log(`  node -e 0 (spawn → exit):                ${median(node).toFixed(1)} ms`);
console.log(`  staticmcp serve (spawn → initialize):    ${median(ours).toFixed(1)} ms`);
console.log(`  ratio:                                   ${(median(ours) / median(node)).toFixed(2)} (target ≤ 1.5)`);

// Start-up: spawn `staticmcp serve` → the initialize response, vs spawning `node -e 0` until it
// exits (Node's own start), measured alternately in the same run. Target: ratio ≤ 1.5.
// Run: npm run build && node bench/bridge-startup.mjs
import { spawn } from 'node:child_process';
import { cliPath, LineClient, median, writeLookupTree } from './lib/bridge-lib.mjs';

const RUNS = Number(process.env.RUNS ?? 30);
const tree = writeLookupTree(10);

function timeNodeStart() {
  const startedAt = performance.now();
  return new Promise((resolve) => spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' }).on('exit', () => resolve(performance.now() - startedAt)));
}

export async function timeInitialize(args) {
  const startedAt = performance.now();
  const client = new LineClient(process.execPath, args);
  const response = await client.initialize();
  const elapsed = performance.now() - startedAt;
  if (!response.result?.protocolVersion) throw new Error(`no initialize result: ${JSON.stringify(response)}`);
  await client.close();
  return elapsed;
}

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

// A tree with 100,000 call files vs one with 10: start-up (spawn → initialize) must not grow with
// the tree (target ratio ≤ 1.2), and memory must stay flat: RSS under 80 MB after 10,000 calls
// spread over the big tree. Trees are generated in a temp dir here, never committed.
// Run: npm run build && node bench/bridge-big-tree.mjs
import { rmSync } from 'node:fs';
import { cliPath, LineClient, median, writeLookupTree } from './lib/bridge-lib.mjs';

const BIG = Number(process.env.BIG ?? 100_000);
const RUNS = Number(process.env.RUNS ?? 20);
const CALLS = Number(process.env.CALLS ?? 10_000);

async function timeInitialize(tree) {
  const startedAt = performance.now();
  const client = new LineClient(process.execPath, [cliPath, 'serve', tree]);
  await client.initialize();
  const elapsed = performance.now() - startedAt;
  await client.close();
  return elapsed;
}

const writeStartedAt = performance.now();
const small = writeLookupTree(10);
const big = writeLookupTree(BIG);
console.log(
  `generated trees of 10 and ${BIG} call files in ${((performance.now() - writeStartedAt) / 1000).toFixed(1)} s`,
);

const smallTimes = [];
const bigTimes = [];
await timeInitialize(small);
await timeInitialize(big);
for (let run = 0; run < RUNS; run += 1) {
  smallTimes.push(await timeInitialize(small));
  bigTimes.push(await timeInitialize(big));
}

const client = new LineClient(process.execPath, [cliPath, 'serve', big]);
await client.initialize();
const rssAtStart = client.rssMb();
let seed = 12345;
for (let call = 0; call < CALLS; call += 1) {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  const n = seed % BIG;
  const response = await client.request('tools/call', { name: 'lookup', arguments: { n } });
  if (response.result?.content?.[0]?.text !== `value ${n}`)
    throw new Error(`wrong answer for ${n}: ${JSON.stringify(response)}`);
}
const rssAfter = client.rssMb();
await client.close();
rmSync(small, { recursive: true, force: true });
rmSync(big, { recursive: true, force: true });

console.log(`start-up (spawn → initialize), median of ${RUNS} alternating runs`);
console.log(`  tree of 10 call files:      ${median(smallTimes).toFixed(1)} ms`);
console.log(`  tree of ${BIG} call files:  ${median(bigTimes).toFixed(1)} ms`);
console.log(`  ratio big/small:            ${(median(bigTimes) / median(smallTimes)).toFixed(2)} (target ≤ 1.2)`);
console.log(
  `resident memory: ${rssAtStart.toFixed(1)} MB after initialize, ${rssAfter.toFixed(1)} MB after ${CALLS} calls over the big tree (target < 80 MB)`,
);

// `npm run bench`: every benchmark of this folder, one after the other (they share the machine, so
// never in parallel), each printing its own ratios against a baseline measured in the same run.
// Run `npm run build` first. BENCH=name1,name2 runs only those.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const folder = path.dirname(fileURLToPath(import.meta.url));
const wanted = process.env.BENCH?.split(',').map((name) => name.trim().replace(/\.mjs$/, ''));
const benches = readdirSync(folder)
  .filter((name) => name.endsWith('.mjs') && name !== 'run-all.mjs')
  .filter((name) => !wanted || wanted.includes(name.replace(/\.mjs$/, '')))
  .sort();
let failed = 0;
for (const name of benches) {
  console.log(`\n== ${name}`);
  const { status } = spawnSync(process.execPath, [path.join(folder, name)], { stdio: 'inherit' });
  if (status !== 0) failed += 1;
}
process.exitCode = failed === 0 ? 0 : 1;

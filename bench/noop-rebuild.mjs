// Benchmark: rebuilding an unchanged 2,000-argument-set project against its full build.
// Interleaved repetitions, medians, ratio no-op/full (target ≤ 0.1). Run `npm run build` first.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { cliPath, createBenchProject, median, timeCommand } from './lib/bench-project.mjs';

const repetitions = Number(process.env.BENCH_REPETITIONS ?? 5);
const { root, project } = createBenchProject(2000);
const out = path.join(root, 'tree');

const fullTimes = [];
const noopTimes = [];
for (let round = 0; round < repetitions; round++) {
  fullTimes.push(timeCommand(process.execPath, [cliPath, 'build', project, '--force', '--out', out]));
  noopTimes.push(timeCommand(process.execPath, [cliPath, 'build', project, '--out', out]));
}
const full = median(fullTimes);
const noop = median(noopTimes);
console.log(`repetitions: ${repetitions}`);
console.log(`full build (--force): median ${full.toFixed(0)} ms`);
console.log(`no-op rebuild:        median ${noop.toFixed(0)} ms`);
console.log(`ratio no-op/full: ${(noop / full).toFixed(3)} (target ≤ 0.1)`);
rmSync(root, { recursive: true, force: true });

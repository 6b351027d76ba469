// Benchmark: one project of BENCH_CALLS (default 6,000) calls of a trivial shell script, built
// whole and as 3 shards (one after another here, standing for 3 machines), then merged. Prints the
// slowest shard and the merge against the whole build measured in the same run: what a 3-machine
// CI matrix would take end to end, and what sharding costs on top (every shard reads every --help;
// the merge reads and rewrites the tree). BENCH_MAX_CALL_FILES=N builds every tree and part with
// `--max-call-files N` (issue #24): past it the whole build packs, and so does the merge. Run
// `npm run build` first.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { cliPath, createBenchProject, median, timeCommand } from './lib/bench-project.mjs';

const repetitions = Number(process.env.BENCH_REPETITIONS ?? 3);
const calls = Number(process.env.BENCH_CALLS ?? 6000);
const shards = 3;
const { root, project } = createBenchProject(calls);
const budget = process.env.BENCH_MAX_CALL_FILES ? ['--max-call-files', process.env.BENCH_MAX_CALL_FILES] : [];
const build = (...args) => timeCommand(process.execPath, [cliPath, 'build', project, '--force', ...budget, ...args]);

/** Peak resident memory of one run of the command, in MB (GNU time's %M). */
function peakRssMb(args) {
  const result = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, cliPath, ...args], { encoding: 'utf8' });
  return Number(result.stderr.trim().split('\n').at(-1)) / 1024;
}

const wholeTimes = [];
const slowestShardTimes = [];
const mergeTimes = [];
const parts = Array.from({ length: shards }, (_, index) => path.join(root, `part-${index + 1}`));
for (let round = 0; round < repetitions; round++) {
  wholeTimes.push(build('--out', path.join(root, 'whole')));
  slowestShardTimes.push(
    Math.max(...parts.map((part, index) => build('--shard', `${index + 1}/${shards}`, '--out', part))),
  );
  mergeTimes.push(timeCommand(process.execPath, [cliPath, 'merge', ...parts, '--out', path.join(root, 'merged')]));
}
const diff = spawnSync('diff', ['-r', path.join(root, 'whole'), path.join(root, 'merged')]);
const whole = median(wholeTimes);
const shard = median(slowestShardTimes);
const merge = median(mergeTimes);
console.log(
  `${calls} calls, ${shards} shards, repetitions: ${repetitions}${budget.length > 0 ? `, --max-call-files ${budget[1]}` : ''}`,
);
console.log(`whole build --force:          median ${whole.toFixed(0)} ms`);
console.log(
  `slowest shard build --force:  median ${shard.toFixed(0)} ms  (ratio to whole ${(shard / whole).toFixed(2)}, ideal ${(1 / shards).toFixed(2)})`,
);
console.log(
  `merge:                        median ${merge.toFixed(0)} ms  (ratio to whole ${(merge / whole).toFixed(2)})`,
);
console.log(`3 machines end to end:        ratio ${((shard + merge) / whole).toFixed(2)} of one machine`);
console.log(
  `peak RSS: whole build ${peakRssMb(['build', project, '--force', ...budget, '--out', path.join(root, 'whole')]).toFixed(0)} MB, merge ${peakRssMb(['merge', ...parts, '--out', path.join(root, 'merged')]).toFixed(0)} MB`,
);
console.log(`merged tree equals the whole tree (diff -r): ${diff.status === 0 ? 'yes' : 'NO'}`);
rmSync(root, { recursive: true, force: true });

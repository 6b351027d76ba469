// Benchmark: a full build of 2,000 argument sets of one trivial shell script, against the same
// 2,000 invocations run by `xargs -P <cores>` writing one file each. Interleaved repetitions,
// medians, and the ratio build/baseline (target ≤ 1.1). Run `npm run build` first.
import { rmSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { cliPath, cores, createBenchProject, median, timeCommand } from './lib/bench-project.mjs';

const repetitions = Number(process.env.BENCH_REPETITIONS ?? 5);
const { root, project, script } = createBenchProject(2000);
const cpuCount = cores();
// The same invocation the build makes: JSON arguments on stdin, the option as an environment
// variable, stdout into one file per argument set.
const baselineShell = `seq 1 2000 | xargs -P ${cpuCount} -I{} sh -c 'printf "{\\"n\\":%s}" "$1" | n=$1 "$0" > "$2/$1.json"' '${script}' {} '${root}/xargs-out'`;

const buildTimes = [];
const baselineTimes = [];
for (let round = 0; round < repetitions; round++) {
  rmSync(path.join(root, 'xargs-out'), { recursive: true, force: true });
  mkdirSync(path.join(root, 'xargs-out'));
  baselineTimes.push(timeCommand('sh', ['-c', baselineShell]));
  buildTimes.push(
    timeCommand(process.execPath, [cliPath, 'build', project, '--force', '--out', path.join(root, 'tree')]),
  );
}
const build = median(buildTimes);
const baseline = median(baselineTimes);
console.log(`cores: ${cpuCount}, repetitions: ${repetitions}`);
console.log(`xargs -P ${cpuCount} baseline: median ${baseline.toFixed(0)} ms`);
console.log(`staticmcp build --force:  median ${build.toFixed(0)} ms`);
console.log(`ratio build/baseline: ${(build / baseline).toFixed(2)} (target ≤ 1.1)`);
rmSync(root, { recursive: true, force: true });

// Benchmark: a build of 2,000 argument sets of one trivial shell script, against the same 2,000
// invocations run by `xargs -P <cores>` writing one file each, in two cases:
// - cold: a fresh copy of the project each round (no cache, no previous tree), built as CI builds
//   it (`staticmcp build <project>`), so every `--help`, run, write and deploy file is paid;
// - warm: `build --force` over the tree the previous round wrote (runs everything again, but
//   the unchanged files are left in place).
// Interleaved repetitions, medians, and the ratios build/baseline (target ≤ 1.1 for both). Run
// `npm run build` first.
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { cliPath, cores, createBenchProject, median, timeCommand } from './lib/bench-project.mjs';

const repetitions = Number(process.env.BENCH_REPETITIONS ?? 5);
const { root, project, script } = createBenchProject(2000);
const cpuCount = cores();
// Copied before any build: `project` gets a cache (.staticmcp/) from the warm builds.
const pristine = path.join(root, 'pristine');
cpSync(project, pristine, { recursive: true });
// The same invocation the build makes: JSON arguments on stdin, the option as an environment
// variable, stdout into one file per argument set.
const baselineShell = `seq 1 2000 | xargs -P ${cpuCount} -I{} sh -c 'printf "{\\"n\\":%s}" "$1" | n=$1 "$0" > "$2/$1.json"' '${script}' {} '${root}/xargs-out'`;

const coldTimes = [];
const warmTimes = [];
const baselineTimes = [];
for (let round = 0; round < repetitions; round++) {
  rmSync(path.join(root, 'xargs-out'), { recursive: true, force: true });
  mkdirSync(path.join(root, 'xargs-out'));
  baselineTimes.push(timeCommand('sh', ['-c', baselineShell]));
  // A checkout of its own, as a CI job gets: the copy is not timed (xargs's script is there already).
  const fresh = path.join(root, `fresh-${round}`);
  cpSync(pristine, fresh, { recursive: true });
  coldTimes.push(timeCommand(process.execPath, [cliPath, 'build', fresh]));
  rmSync(fresh, { recursive: true, force: true });
  warmTimes.push(
    timeCommand(process.execPath, [cliPath, 'build', project, '--force', '--out', path.join(root, 'tree')]),
  );
}
const baseline = median(baselineTimes);
const cold = median(coldTimes);
const warm = median(warmTimes);
console.log(`cores: ${cpuCount}, repetitions: ${repetitions}`);
console.log(`xargs -P ${cpuCount} baseline:      median ${baseline.toFixed(0)} ms`);
console.log(`staticmcp build (cold):   median ${cold.toFixed(0)} ms`);
console.log(`staticmcp build --force:  median ${warm.toFixed(0)} ms`);
console.log(`ratio cold build/baseline: ${(cold / baseline).toFixed(2)} (target ≤ 1.1)`);
console.log(`ratio build --force/baseline: ${(warm / baseline).toFixed(2)} (target ≤ 1.1)`);
rmSync(root, { recursive: true, force: true });

// Benchmark: the scan that finds a run's processes by their environment marker (every batch
// runner's close pays one, and so does each timed-out launcher), in CPU milliseconds per scan,
// against a baseline in the same run: the plain scan, one `readFileSync` per /proc/<pid>/environ.
// Alternating rounds, medians. BENCH_SLEEPERS extra processes (default 200, each with this
// process's environment) stand in for a desktop's; the machine's own count is printed too.
// Run `npm run build` first.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { median, repoRoot } from './lib/common.mjs';

const { findMarkedProcesses } = await import(
  pathToFileURL(path.join(repoRoot, 'dist/script/kill-marked-processes.js')).href
);

/** The scan as it was first written: the baseline. */
function scanWithReadFile(markerPrefix) {
  const needle = Buffer.from(`STATICMCP_RUN_ID=${markerPrefix}`);
  const found = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let environ;
    try {
      environ = readFileSync(`/proc/${entry}/environ`);
    } catch {
      continue;
    }
    const at = environ.indexOf(needle);
    if (at === 0 || (at > 0 && environ[at - 1] === 0)) found.push(Number(entry));
  }
  return found;
}

function cpuMsPerScan(scan, scans) {
  const before = process.cpuUsage();
  for (let index = 0; index < scans; index++) scan('0123456789abcdef-');
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / scans;
}

const sleeperCount = Number(process.env.BENCH_SLEEPERS ?? 200);
const rounds = Number(process.env.BENCH_REPETITIONS ?? 7);
const scansPerRound = 50;
const sleepers = Array.from({ length: sleeperCount }, () => spawn('sleep', ['600'], { stdio: 'ignore' }));
process.on('exit', () => {
  for (const sleeper of sleepers) sleeper.kill('SIGKILL');
});
await new Promise((resolve) => setTimeout(resolve, 500));

const baseline = [];
const current = [];
for (let round = 0; round < rounds; round++) {
  baseline.push(cpuMsPerScan(scanWithReadFile, scansPerRound));
  current.push(cpuMsPerScan(findMarkedProcesses, scansPerRound));
}
const processes = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry)).length;
console.log(
  `processes in /proc: ${processes} (${sleeperCount} of them sleepers), rounds: ${rounds} × ${scansPerRound} scans`,
);
console.log(`readFileSync baseline:  median ${median(baseline).toFixed(2)} ms CPU a scan`);
console.log(`findMarkedProcesses:    median ${median(current).toFixed(2)} ms CPU a scan`);
console.log(`ratio scan/baseline: ${(median(current) / median(baseline)).toFixed(2)}`);
process.exit(0);

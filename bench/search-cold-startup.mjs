// What a new isolate spends on the worker's module before its first request (issue #40: "cold"
// includes module evaluation): workerd compiles and evaluates a worker's module when it starts,
// before miniflare is ready. Per run one workerd with COPIES workers of the bundle (each its own
// isolate), and one with COPIES workers that do nothing, taking turns; the workerd process's CPU
// until ready, whose difference divided by COPIES is one bundle's compile and top-level
// evaluation (workerd's own start, ~260 ms that varies by ±15 ms on a loaded machine, is in both
// and is divided away). WORKERS=<a.js>,<b.js> takes turns between bundles (a before/after).
// Run: npm run build && node bench/search-cold-startup.mjs   (RUNS=6, COPIES=12)
import { readFileSync } from 'node:fs';
import { Miniflare } from 'miniflare';
import { median } from './lib/common.mjs';
import { workerBundle } from './lib/edge-lib.mjs';
import { childPid, cpuNsByThread } from './lib/process-cpu.mjs';

const RUNS = Number(process.env.RUNS ?? 6);
const COPIES = Number(process.env.COPIES ?? 12);
const EMPTY_WORKER = 'export default { fetch() { return new Response("empty"); } };';

const scripts = [['empty worker', EMPTY_WORKER]];
for (const [which, file] of (process.env.WORKERS ?? workerBundle).split(',').entries())
  scripts.push([`${which}:${file.split('/').at(-1)} (${readFileSync(file).length} bytes)`, readFileSync(file, 'utf8')]);

/** The workerd process's CPU (all threads, main thread) in ms once COPIES workers of `script` are ready. */
async function startupCpuMs(script) {
  const miniflare = new Miniflare({
    host: '127.0.0.1',
    port: 0,
    workers: Array.from({ length: COPIES }, (_, copy) => ({
      name: `copy-${copy}`,
      // A comment of its own per copy: no isolate can reuse another's compiled script.
      modules: [{ type: 'ESModule', path: '_worker.js', contents: `${script}\n// copy ${copy}\n` }],
      compatibilityDate: '2025-09-01',
    })),
  });
  try {
    await miniflare.ready;
    const threads = cpuNsByThread(childPid(process.pid, 'workerd'));
    return { all: (threads.main + threads.others) / 1e6, main: threads.main / 1e6 };
  } finally {
    await miniflare.dispose();
  }
}

const cpu = new Map(scripts.map(([name]) => [name, { all: [], main: [] }]));
for (let run = 0; run < RUNS; run += 1)
  for (const [name, script] of scripts) {
    const { all, main } = await startupCpuMs(script);
    cpu.get(name).all.push(all);
    cpu.get(name).main.push(main);
  }
const f = (value) => value.toFixed(1);
const empty = cpu.get('empty worker');
console.log(`${COPIES} workers a workerd, ${RUNS} runs`);
for (const [name, { all, main }] of cpu) {
  const perCopy = (median(all) - median(empty.all)) / COPIES;
  const perCopyMain = (median(main) - median(empty.main)) / COPIES;
  console.log(
    `${name}: workerd CPU until ready p50 ${f(median(all))} ms (main thread ${f(median(main))})` +
      (name === 'empty worker' ? '' : `; one bundle's start ${f(perCopy)} ms (main thread ${f(perCopyMain)})`),
  );
}

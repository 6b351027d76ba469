// Benchmark: `staticmcp dev` on the 2,000-argument-set bench project. Prints (a) the full build
// (--force, cold cache), (b) the rebuild after changing one resource file inside `staticmcp dev`
// (the 2,000 calls come from the build cache), the ratio (b)/(a) (target ≤ 0.1), and (c) the time
// from saving the file to the `notifications/resources/list_changed` frame on stdout.
// Durations of builds are the build's own (report.durationMs / the dev log line), so Node's start-up
// is not counted in either; (c) is wall time seen by the client. Run `npm run build` first.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cliPath, createBenchProject, median } from './lib/bench-project.mjs';

const repetitions = Number(process.env.BENCH_REPETITIONS ?? 5);
const { root, project } = createBenchProject(2000);
mkdirSync(path.join(project, 'resources'), { recursive: true });
const notes = path.join(project, 'resources', 'notes.txt');
writeFileSync(notes, 'version 0\n');

// (a) Full builds, cold cache each time.
const fullMs = [];
const fullWallMs = [];
for (let round = 0; round < repetitions; round++) {
  const startedAt = performance.now();
  const result = spawnSync(process.execPath, [cliPath, 'build', project, '--force', '--json'], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  fullWallMs.push(performance.now() - startedAt);
  if (result.status !== 0) throw new Error(`build failed: ${result.stderr}`);
  fullMs.push(JSON.parse(result.stdout).durationMs);
}

// (b) and (c): one dev session, one resource edit per round.
const dev = spawn(process.execPath, [cliPath, 'dev', project], { stdio: ['pipe', 'pipe', 'pipe'] });
let stderr = '';
let stdoutBuffered = '';
const waiters = [];
const wake = () => {
  for (const waiter of waiters.splice(0)) waiter();
};
dev.stderr.setEncoding('utf8').on('data', (text) => {
  stderr += text;
  wake();
});
const frames = [];
dev.stdout.setEncoding('utf8').on('data', (text) => {
  stdoutBuffered += text;
  const lines = stdoutBuffered.split('\n');
  stdoutBuffered = lines.pop();
  for (const line of lines) if (line.trim()) frames.push({ at: performance.now(), message: JSON.parse(line) });
  wake();
});
async function until(check, what) {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const found = check();
    if (found !== undefined && found !== false) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; stderr: ${stderr}`);
    await new Promise((resolve) => {
      waiters.push(resolve);
      setTimeout(resolve, 200);
    });
  }
}
dev.stdin.write(
  `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } })}\n`,
);
dev.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
await until(() => stderr.includes('watching for changes'), 'the dev session to start');

const rebuildMs = [];
const saveToNotificationMs = [];
for (let round = 1; round <= repetitions; round++) {
  const seenFrames = frames.length;
  const seenRebuilds = stderr.split('rebuilt:').length;
  const savedAt = performance.now();
  writeFileSync(notes, `version ${round}\n${'x'.repeat(round)}\n`);
  const frame = await until(
    () => frames.slice(seenFrames).find((entry) => entry.message.method === 'notifications/resources/list_changed'),
    'resources/list_changed',
  );
  saveToNotificationMs.push(frame.at - savedAt);
  await until(() => stderr.split('rebuilt:').length > seenRebuilds, 'the rebuild log line');
  const line = stderr.split('rebuilt:').at(-1);
  rebuildMs.push(Number(/in (\d+) ms/.exec(line)[1]));
}
dev.stdin.end();
await new Promise((resolve) => dev.on('exit', resolve));

const full = median(fullMs);
const rebuild = median(rebuildMs);
console.log(`repetitions: ${repetitions}`);
console.log(
  `(a) full build (--force), build time:        median ${full.toFixed(0)} ms (wall with Node start: ${median(fullWallMs).toFixed(0)} ms)`,
);
console.log(`(b) dev rebuild after one resource edit:     median ${rebuild.toFixed(0)} ms  [${rebuildMs.join(', ')}]`);
console.log(`ratio (b)/(a): ${(rebuild / full).toFixed(3)} (target ≤ 0.1)`);
console.log(
  `(c) save → notifications/resources/list_changed: median ${median(saveToNotificationMs).toFixed(0)} ms  [${saveToNotificationMs.map((ms) => ms.toFixed(0)).join(', ')}]`,
);
rmSync(root, { recursive: true, force: true });

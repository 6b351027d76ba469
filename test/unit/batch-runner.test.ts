// The build's script launcher, driven directly with real one-purpose scripts: what a run returns,
// that a launcher killed by a timeout is replaced so later calls still run, and that closing never
// signals a process group that only has the number of one it ended.
import { afterEach, describe, expect, it } from 'vitest';
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { BatchRunner } from '../../src/script/batch-runner.js';
import { isGroupAlive, waitUntil } from '../helpers/processes.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

const scripts = fileURLToPath(new URL('../fixtures/scripts/', import.meta.url));
let runner: BatchRunner | undefined;
afterEach(async () => runner?.close());

function job(script: string, env: Record<string, string> = {}, stdin = '{}', timeoutMs = 10_000) {
  return {
    file: path.join(scripts, script),
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    stdin,
    timeoutMs,
    displayName: script,
  };
}

/**
 * Starts a process that leads a group of its own under the process id `id`, as the system would
 * when its counter comes round to a freed number: through Linux's ns_last_pid, which only a
 * privileged process may write. Undefined where that cannot be arranged.
 */
async function startProcessWithId(id: number): Promise<ChildProcess | undefined> {
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      writeFileSync('/proc/sys/kernel/ns_last_pid', String(id - 1));
    } catch {
      return undefined;
    }
    const child = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
    if (child.pid === id) return child;
    child.kill('SIGKILL');
    // Another process took the number first: let it end, or try again at once.
    await sleep(10);
  }
  return undefined;
}

describe('BatchRunner', () => {
  it('passes the environment and stdin, and returns output and exit code', async () => {
    runner = await BatchRunner.open({ cwd: scripts, concurrency: 2, maxOutputBytes: 1024 * 1024 });
    const run = await runner.run(job('print-env', { name: "it's me" }, '{"name":"it\'s me"}'));
    expect(run).toMatchObject({ exitCode: 0, failed: false, timedOut: false });
    const text = run.stdout.toString();
    expect(text).toContain("name=it's me");
    expect(text).toContain('--- stdin\n{"name":"it\'s me"}');
    expect(text).not.toMatch(/^HOME=/m);
  });

  it('reports a non-zero exit as an exit code, not a failure', async () => {
    runner = await BatchRunner.open({ cwd: scripts, concurrency: 1, maxOutputBytes: 1024 * 1024 });
    const run = await runner.run(job('divide', { a: '1', b: '0' }, '{"a":1,"b":0}'));
    expect(run).toMatchObject({ exitCode: 2, failed: false });
    expect(run.stderr.toString()).toContain('Division by zero');
  });

  it('kills a call at its timeout and still runs the next call on a fresh launcher', async () => {
    runner = await BatchRunner.open({
      // The slow script writes started.pid into its working folder.
      cwd: await temporaryFolder('staticmcp-runner-cwd-'),
      concurrency: 1,
      maxOutputBytes: 1024 * 1024,
      killGraceMs: 100,
    });
    const slow = await runner.run(job('slow', {}, '{}', 300));
    expect(slow).toMatchObject({ timedOut: true, failed: true });
    expect(slow.message).toMatch(/timed out after 300 ms/);
    const next = await runner.run(job('ok'));
    expect(next).toMatchObject({ exitCode: 0, failed: false });
    expect(next.stdout.toString()).toBe('ok\n');
  });

  it('stops a script at the output cap', async () => {
    runner = await BatchRunner.open({ cwd: scripts, concurrency: 1, maxOutputBytes: 64 * 1024 });
    // The script never ends by itself: without the cap this run ends at its timeout instead.
    const run = await runner.run(job('huge-output'));
    expect(run.message).toBe('huge-output printed more than 65536 bytes and was killed');
    expect(run).toMatchObject({ outputTooLarge: true, timedOut: false, failed: true });
    expect(run.stdout.length).toBe(64 * 1024);
  });

  it('returns outputs of every size up to the cap byte for byte, around its read buffer of 64 KiB too', async () => {
    runner = await BatchRunner.open({ cwd: scripts, concurrency: 2, maxOutputBytes: 1024 * 1024 });
    const numbers = Buffer.from(`${Array.from({ length: 200_000 }, (_, index) => index + 1).join('\n')}\n`);
    for (const size of [0, 1, 65_535, 65_536, 65_537, 131_072, 300_000]) {
      const run = await runner.run(job('sized-output', { size: String(size) }));
      expect(run).toMatchObject({ exitCode: 0, failed: false, outputTooLarge: false });
      expect(run.stdout.equals(numbers.subarray(0, size)), `output of ${size} bytes`).toBe(true);
    }
  });

  it('never signals a process group that took the number of a launcher group it ended', async (context) => {
    runner = await BatchRunner.open({ cwd: scripts, concurrency: 1, maxOutputBytes: 1024 * 1024, killGraceMs: 100 });
    // The script must print its group before its timeout: a start slowed past 300 ms by a busy
    // machine gets a longer timeout, so the test waits long only when it has to.
    let hung = await runner.run(job('report-group-then-hang', {}, '{}', 300));
    for (const timeoutMs of [2_000, 10_000]) {
      if (hung.stdout.length > 0) break;
      hung = await runner.run(job('report-group-then-hang', {}, '{}', timeoutMs));
    }
    expect(hung).toMatchObject({ timedOut: true, failed: true });
    const ended = Number(hung.stdout.toString());
    expect(ended).toBeGreaterThan(1);
    await waitUntil(() => !isGroupAlive(ended), 5_000, 'the timed-out launcher group to end');
    // Past the grace period's SIGKILL too.
    await sleep(300);
    const stranger = await startProcessWithId(ended);
    if (!stranger) {
      context.skip('choosing a process id needs Linux and a privileged process (root in CI)');
      return;
    }
    try {
      const exited = new Promise((resolve) => stranger.once('exit', (_code, signal) => resolve(signal)));
      expect(await runner.run(job('ok'))).toMatchObject({ exitCode: 0, failed: false });
      await runner.close();
      runner = undefined;
      expect(await Promise.race([exited, sleep(500, 'still running')])).toBe('still running');
    } finally {
      stranger.kill('SIGKILL');
    }
  });
});

// A host runtime started detached (test/hosts/host-processes.ts) does not outlive the test process
// that started it: a real node process starts one as the runtimes tier does (startRuntime, with a
// node program that says it is ready and then waits), is killed with SIGKILL, which no handler can
// catch, and the runtime's whole process group must be gone within seconds (group-watchdog.mjs).
// A runtime that ends by itself says how, with what it printed last, and leaves nothing of its group.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildSync } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { isGroupAlive } from '../helpers/processes.js';
import { temporaryFolder } from '../helpers/temp-folders.js';
import { startRuntime } from './host-processes.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** Whether process `pid` runs (a zombie waiting for its parent does not). */
function isRunning(pid: number): boolean {
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return condition();
}

describe('the host runtimes started detached', () => {
  it('end when the process that started them is killed', async () => {
    const work = await temporaryFolder('staticmcp-watchdog-');
    const pidFile = path.join(work, 'runtime.pid');
    // The runtime: says it is ready on the port it is given, writes its pid, waits for good.
    const runtime = `require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));
      console.log('Ready on http://127.0.0.1:' + process.argv[1]); setInterval(() => {}, 60000);`;
    // The parent, bundled from host-processes.ts as it is: starts the runtime, says so, waits.
    const parent = path.join(work, 'parent.mjs');
    buildSync({
      stdin: {
        contents: `import { promises as fs } from 'node:fs';
          import { startRuntime } from './host-processes.ts';
          await startRuntime('a runtime', ['-e', ${JSON.stringify(runtime)}, '45678'], ${JSON.stringify(work)}, 45678,
            (prefix) => fs.mkdtemp(${JSON.stringify(work)} + '/' + prefix));
          console.log('started');
          setInterval(() => {}, 60000);`,
        resolveDir: HERE,
        loader: 'ts',
      },
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: parent,
      // Where host-processes.ts finds its neighbours (the watchdog) and its packages: where it is.
      define: { 'import.meta.url': JSON.stringify(pathToFileURL(path.join(HERE, 'host-processes.ts')).href) },
      logLevel: 'silent',
    });
    const child = spawn(process.execPath, [parent], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('started')) resolve();
      });
      child.on('exit', (code) => reject(new Error(`the parent exited with ${code} before it started the runtime`)));
    });
    const pgid = Number(readFileSync(pidFile, 'utf8'));
    expect(isGroupAlive(pgid), 'the runtime runs in a group of its own').toBe(true);
    child.kill('SIGKILL');
    const ended = await waitUntil(() => !isGroupAlive(pgid), 15_000);
    if (!ended) execFileSync('kill', ['-KILL', `-${pgid}`]);
    expect(ended, 'the runtime ended after its parent was killed').toBe(true);
  });

  it('say how they ended by themselves, with their last output, and leave nothing of their group', async () => {
    const work = await temporaryFolder('staticmcp-runtime-end-');
    const pidFile = path.join(work, 'left.pid');
    // Ready, then leaves a process in its group behind and exits with status 3.
    const runtime = `const { spawn } = require('node:child_process');
      const left = spawn('sleep', ['60'], { stdio: 'ignore' });
      require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, String(left.pid));
      console.log('Ready on http://127.0.0.1:' + process.argv[1]);
      setTimeout(() => { console.log('giving up now'); process.exit(3); }, 200);`;
    const host = await startRuntime('a runtime', ['-e', runtime, '45679'], work, 45679, (prefix) =>
      temporaryFolder(prefix),
    );
    try {
      const left = Number(readFileSync(pidFile, 'utf8'));
      expect(await waitUntil(() => host.endedBy?.() !== undefined, 10_000), 'the end is noticed').toBe(true);
      expect(host.endedBy?.()).toMatch(
        /^a runtime ended by itself \(exit code 3\); it printed last:\n[\s\S]*giving up now/,
      );
      expect(await waitUntil(() => !isRunning(left), 5_000), 'what it left in its group has ended').toBe(true);
    } finally {
      await host.close();
    }
  });
});

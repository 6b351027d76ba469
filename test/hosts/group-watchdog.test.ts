// A host runtime started detached (test/hosts/host-processes.ts) does not outlive the test process
// that started it: a real node process starts one as the runtimes tier does (startRuntime, with a
// node program that says it is ready and then waits), is killed with SIGKILL, which no handler can
// catch, and the runtime's whole process group must be gone within seconds (group-watchdog.mjs).
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildSync } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { temporaryFolder } from '../helpers/temp-folders.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** Whether any process of group `pgid` is still running. */
function isGroupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
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
});

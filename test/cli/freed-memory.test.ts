// Memory a build frees goes back to the system, so a build's peak does not grow with the calls it
// builds: on Linux, glibc keeps freed pages for itself once a large block from malloc has been
// freed (it raises its mmap and trim thresholds to that block's size), and the buffer the bin
// read its bundle into was such a block (code-cache.ts). A hook in the real bin's process, at its
// exit, frees a 2 MiB buffer and reports how much of it the process gave back.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CLI } from '../helpers/paths.js';
import { makeProject } from '../helpers/projects.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

const MIB = 1024 * 1024;

/** At exit: fills a new 2 MiB buffer, frees it, and writes the resident bytes this gave back to $PROBE_FILE. */
const PROBE_HOOK = `data:text/javascript,${encodeURIComponent(`
import { writeFileSync } from 'node:fs';
process.on('exit', () => {
  const rss = () => process.memoryUsage.rss();
  globalThis.gc(); globalThis.gc();
  let buffer = Buffer.allocUnsafeSlow(${2 * MIB}).fill(1);
  const held = rss();
  buffer = undefined;
  // The second collection waits for the first's sweep, which frees the buffer's memory.
  globalThis.gc(); globalThis.gc();
  writeFileSync(process.env.PROBE_FILE, String(held - rss()));
});`)}`;

describe('memory a build frees', () => {
  it.runIf(process.platform === 'linux')('goes back to the system after the bin has loaded its bundle', async () => {
    const folder = await temporaryFolder('staticmcp-freed-memory-');
    const project = await makeProject({ tools: { ok: 'ok' } }, folder);
    const probeFile = path.join(folder, 'returned');
    await promisify(execFile)(
      process.execPath,
      ['--expose-gc', '--import', PROBE_HOOK, CLI, 'build', project, '--out', path.join(folder, 'tree')],
      { env: { ...process.env, PROBE_FILE: probeFile } },
    );
    expect(Number(readFileSync(probeFile, 'utf8'))).toBeGreaterThanOrEqual(1.5 * MIB);
  });
});

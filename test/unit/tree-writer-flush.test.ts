// The tree writer lets the build wait for its writes from several places at once: two call files
// that collide (or a file written again) each wait for every write in flight before reading the
// first one back. Each of those waits must end: a build whose calls collided used to hang for
// good when two of them waited together (seen under load, where writes stay in flight longer).
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TreeOutput } from '../../src/builder/tree-output.js';
import { TreeWriter } from '../../src/tree-writer/tree-writer.js';
import { readTree } from '../helpers/files.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

/** Whether `work` ends within `ms` (a hang fails the assertion instead of timing the test out). */
async function endsWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const ended = await Promise.race([work.then(() => true), timedOut]);
  clearTimeout(timer);
  return ended;
}

describe('waiting for the tree writer’s writes', () => {
  it('ends for every waiter when several wait at once, and the replaced files hold the last write', async () => {
    const out = path.join(await temporaryFolder('staticmcp-flush-'), 'dist');
    const writer = await TreeWriter.open(out);
    const output = new TreeOutput(writer);
    for (let index = 0; index < 200; index++) await output.write(`tools/t/${index}.json`, `{"n":${index}}\n`);
    // Writes are still in flight: three waits start together, two of them through replacements.
    const waits = Promise.all([
      writer.flush(),
      output.write('tools/t/3.json', '{"replaced":3}\n'),
      output.write('tools/t/4.json', '{"replaced":4}\n'),
      writer.flush(),
    ]);
    expect(await endsWithin(waits, 10_000)).toBe(true);
    await writer.commit();
    const files = await readTree(out);
    expect(files.size).toBe(200);
    expect(files.get('tools/t/3.json')?.toString()).toBe('{"replaced":3}\n');
    expect(files.get('tools/t/4.json')?.toString()).toBe('{"replaced":4}\n');
    expect(output.tally.files).toBe(200);
  });
});

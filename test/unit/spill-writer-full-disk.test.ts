// A spill file on a full disk: the build reports the write's error, and the file's descriptor is
// not left open (a long `serve`/`dev` session would run out of descriptors one failed build at a time).
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SpillWriter } from '../../src/tree-writer/spill-files.js';

const openDescriptors = (): number => readdirSync('/proc/self/fd').length;

describe.runIf(process.platform === 'linux')('a spill writer whose disk is full', () => {
  it('throws ENOSPC from close and leaves no descriptor open', () => {
    const before = openDescriptors();
    // /dev/full: every write fails with ENOSPC, as on a disk that filled up mid-build.
    const writer = new SpillWriter('/dev/full', 0o666);
    writer.appendUtf8('a document that will never reach the disk');
    expect(openDescriptors()).toBe(before + 1);
    expect(() => writer.close()).toThrow(/ENOSPC/);
    expect(openDescriptors()).toBe(before);
  });
});

// Reads a known number of bytes of an open file into a buffer the caller owns: the tree writer's
// spool reads, and the pack step's reads of call files straight into their place in a pack; and a
// kept record read whole into memory V8 maps itself (readFileMapped).
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { grownTypedArray } from './grown-typed-array.js';

/** Fills `into` from `fd` at `position` and returns it; throws, naming `what`, when the file ends first. */
export function readExactly<Into extends Uint8Array>(fd: number, into: Into, position: number, what: string): Into {
  let done = 0;
  while (done < into.length) {
    const read = readSync(fd, into, done, into.length - done, position + done);
    if (read === 0) throw new Error(`${what} ended after ${done} of ${into.length} bytes`);
    done += read;
  }
  return into;
}

/** Fills `into` with the file at `file`, which is at least that long. */
export function readFileInto(file: string, into: Uint8Array): void {
  const fd = openSync(file, 'r');
  try {
    readExactly(fd, into, 0, file);
  } finally {
    closeSync(fd);
  }
}

/**
 * A whole file's bytes in a resizable buffer (grown-typed-array.ts), for a kept record held through
 * a stage and then given back with releaseGrown. readFileSync's buffer comes from malloc: a freed
 * one of over 128 KiB raises glibc's mmap threshold to its size (CONTRIBUTING.md), and the
 * smaller buffers after it stay in RSS once freed. Throws when the file cannot be read whole.
 */
export function readFileMapped(file: string): Buffer {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    return readExactly(fd, grownTypedArray(Buffer.alloc(0), size), 0, file);
  } finally {
    closeSync(fd);
  }
}

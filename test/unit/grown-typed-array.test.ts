// The per-file and per-call arrays of the tree writer, the pack step and the build cache grow in
// place (tree-writer/grown-typed-array.ts): every value kept, the same kind of array, and once past
// the size small arrays are copied up to the same memory, so a build of 650,000 calls never holds
// an old copy of a large array beside a new one.
import { describe, expect, it } from 'vitest';
import { grownTypedArray } from '../../src/tree-writer/grown-typed-array.js';

describe('arrays grown in place', () => {
  it('keeps every value through many growths, in the same memory once grown', () => {
    let array = new Uint32Array(4);
    // 4 MB of values: past the size up to which an array is copied into a plain buffer.
    const values = 1_000_000;
    let buffer: ArrayBufferLike | undefined;
    for (let index = 0; index < values; index++) {
      array = grownTypedArray(array, index + 1);
      array[index] = index * 7;
      // The first growth past that size moves the values into a resizable buffer; every later one grows that one.
      if (buffer === undefined && (array.buffer as { resizable?: boolean }).resizable) buffer = array.buffer;
    }
    expect(array).toBeInstanceOf(Uint32Array);
    expect(array.length).toBeGreaterThanOrEqual(values);
    expect(buffer).toBeDefined();
    expect(array.buffer).toBe(buffer);
    let wrong = 0;
    for (let index = 0; index < values; index++) if (array[index] !== index * 7) wrong += 1;
    expect(wrong).toBe(0);
  });

  it('keeps a Buffer a Buffer, a Float64Array a Float64Array, and new places zero', () => {
    let bytes = Buffer.alloc(8);
    bytes.write('héllo', 0, 'utf8');
    bytes = grownTypedArray(bytes, 1_000);
    bytes.write('wörld', 900, 'utf8');
    expect(Buffer.isBuffer(bytes)).toBe(true);
    expect(bytes.toString('utf8', 0, 6)).toBe('héllo');
    expect(bytes.toString('utf8', 900, 906)).toBe('wörld');
    expect(bytes[500]).toBe(0);
    // Every Buffer method the build uses on a grown one: made from Buffer's prototype, not Buffer.from.
    bytes.writeUInt32LE(0xdeadbeef, 600);
    expect(bytes.readUInt32LE(600)).toBe(0xdeadbeef);
    expect(Buffer.isBuffer(bytes.subarray(900, 906))).toBe(true);
    expect(bytes.subarray(900, 906).equals(Buffer.from('wörld'))).toBe(true);
    expect(Buffer.concat([bytes.subarray(0, 6), bytes.subarray(900, 906)]).toString()).toBe('héllowörld');
    expect(grownTypedArray(bytes, 5_000).toString('utf8', 0, 6)).toBe('héllo');
    let offsets = new Float64Array([2 ** 40 + 0.5]);
    offsets = grownTypedArray(offsets, 3);
    expect(offsets).toBeInstanceOf(Float64Array);
    expect([...offsets.subarray(0, 3)]).toEqual([2 ** 40 + 0.5, 0, 0]);
  });

  it('gives back the array itself while it is long enough', () => {
    const array = new Uint8Array(16);
    expect(grownTypedArray(array, 16)).toBe(array);
  });
});

// Growing the typed arrays the tree writer, the pack step and the build cache keep per file or
// per call, outside the heap. Each one, once it grows, lives in a resizable ArrayBuffer that grows
// in place: no copy, and no old buffer left for the garbage collector. Copying into a buffer
// twice the size (what this did before) held the old and the new one at once, and the old ones
// stayed until a full collection: 650,000 file digests alone took ~90 MB of RSS for ~40 MB of
// entries. A page of a resizable buffer costs memory only once written.

/** The typed arrays grown here (Buffer is a Uint8Array). */
export type GrownArray = Uint32Array | Uint16Array | Uint8Array | Float64Array;

/**
 * Address space reserved per array (never memory: a page counts once written). An array past it
 * moves to a new reservation twice as large, copied once.
 */
const RESERVED_BYTES = 1024 * 1024 * 1024;

/** ES2024's resizable ArrayBuffer (Node ≥ 20), which the project's TypeScript library predates. */
interface ResizableArrayBuffer extends ArrayBuffer {
  readonly resizable: boolean;
  readonly maxByteLength: number;
  resize(byteLength: number): void;
}
const ResizableArrayBuffer = ArrayBuffer as unknown as new (
  byteLength: number,
  options?: { maxByteLength: number },
) => ResizableArrayBuffer;

/**
 * A view of `buffer`'s first `length` elements, of the same kind as `like` (a Buffer stays a Buffer).
 * A Buffer is made a Uint8Array given Buffer's prototype, not `Buffer.from(buffer)`: on Node 20,
 * V8 gives each Buffer (a Uint8Array subclass) made over a resizable buffer a hidden class of its
 * own, so code that reads a growing Buffer saw a new one at each growth and its element reads
 * fell back to V8's slowest, megamorphic path (the tree writer's path decoding, every build).
 * Plain Uint8Arrays over resizable buffers share one class, and so do these.
 */
function viewLike<T extends GrownArray>(like: T, buffer: ArrayBuffer, length: number): T {
  if (Buffer.isBuffer(like)) return Object.setPrototypeOf(new Uint8Array(buffer, 0, length), Buffer.prototype) as T;
  const View = like.constructor as new (buffer: ArrayBuffer, byteOffset: number, length: number) => T;
  return new View(buffer, 0, length);
}

/**
 * Arrays grow by copies into plain buffers up to this size, in place past it. V8 (Node 20's) reads
 * and writes a typed array over a resizable buffer about half as fast as over a plain one, and the
 * per-file and per-call arrays are read in the build's tightest loops (path lookups and decoding,
 * sorts, pack lists); below this size the copies a growth leaves for the collector add up to less
 * than the array itself, so the memory they hold stays small against the build's.
 */
const PLAIN_BYTES = 256 * 1024;

/**
 * A buffer of `bytes` bytes: plain up to PLAIN_BYTES, else resizable (or plain where the address
 * space cannot be reserved).
 */
function resizableBuffer(bytes: number, reserveBytes: number): ArrayBuffer {
  if (bytes <= PLAIN_BYTES) return new ArrayBuffer(bytes);
  try {
    return new ResizableArrayBuffer(bytes, { maxByteLength: Math.max(bytes, reserveBytes) });
  } catch {
    // A reservation refused (a small ulimit -v): grown by copies, as before.
    return new ArrayBuffer(bytes);
  }
}

/**
 * `array`, or an array of the same kind at least `length` long (doubling) with the old values
 * kept: the same memory grown in place where it can be.
 */
export function grownTypedArray<T extends GrownArray>(array: T, length: number): T {
  if (array.length >= length) return array;
  const grownLength = Math.max(length, array.length * 2);
  const bytes = grownLength * array.BYTES_PER_ELEMENT;
  const buffer = array.buffer as ResizableArrayBuffer;
  if (buffer.resizable && array.byteOffset === 0 && bytes <= buffer.maxByteLength) {
    buffer.resize(bytes);
    return viewLike(array, buffer, grownLength);
  }
  const bigger = viewLike(array, resizableBuffer(bytes, Math.max(RESERVED_BYTES, bytes * 2)), grownLength);
  bigger.set(array);
  return bigger;
}

/**
 * Gives back the memory of an array grown here at once (its buffer shrunk to nothing, which
 * returns its pages to the system) rather than at some later collection: a buffer grown in place
 * is not counted as external memory, so nothing hastens its collection. Returns an empty array
 * of the same kind; `array` must not be used again.
 */
export function releaseGrown<T extends GrownArray>(array: T): T {
  const buffer = array.buffer as ResizableArrayBuffer;
  if (buffer.resizable && array.byteOffset === 0) buffer.resize(0);
  return viewLike(array, new ArrayBuffer(0), 0);
}

/**
 * The first `length` elements of an array grown here, the memory past them given back at once
 * where it was grown in place (a plain one: a view, its memory kept). `array` must not be used again.
 */
export function shrunkGrown<T extends GrownArray>(array: T, length: number): T {
  const buffer = array.buffer as ResizableArrayBuffer;
  if (!buffer.resizable || array.byteOffset !== 0 || length >= array.length) return array.subarray(0, length) as T;
  buffer.resize(length * array.BYTES_PER_ELEMENT);
  return viewLike(array, buffer, length);
}

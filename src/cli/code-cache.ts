// Runs a CommonJS file with V8's code cache, for Node versions without `module.enableCompileCache`
// (Node 20): the file is compiled through vm.Script with the cached data of an earlier run, and a
// run that had none (or had it refused) writes it once the program has started, so the code V8
// compiled for the start is kept too. The cache is only ever an optimisation: a missing, unreadable,
// damaged or stale cache file, or a folder that cannot be written, means an ordinary compile, never
// an error. A cache file is named after the script's key (its content hash), the Node version and
// the architecture; it is written to a temporary name and renamed, so a reader never sees half of
// one; its header holds the payload's length and checksum, so a damaged file is never handed to V8
// (whose own checks look only at versions, flags and the source's length: V8 checksums a code
// cache only under --verify-snapshot-checksum, off in release builds). A file that is not the
// user's own, or that others may write, is not read.
// Memory touched for the first time is what a start pays most for (each new page is a fault), so
// the script's bytes and then the cache are read into one buffer, and the payload starts 16 bytes
// in: aligned as V8 wants it, so neither we nor V8 copy it.
import { closeSync, fstatSync, mkdirSync, openSync, readSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';

const MAGIC = 0x32_43_4d_53; // "SMC2": 16-byte header (magic, payload length, checksum, zero)
/** In the file's name too: a build with another format never reads (and then rewrites) this one's files. */
const FORMAT = 2;
const HEADER_BYTES = 16;
/** A server started from a cache miss writes its cache this long after it started (or at exit, if sooner). */
export const CACHE_WRITE_DELAY_MS = 1000;

/** A file's bytes and, when asked for, spare room after them (never touched, so it costs no memory until used). */
export interface FileBytes {
  bytes: Buffer;
  /** The whole buffer `bytes` is the start of: a later read may reuse it once `bytes` is no longer needed. */
  scratch: Buffer;
}

/** ES2024's resizable ArrayBuffer (Node ≥ 20), which the project's TypeScript library predates. */
interface ResizableArrayBuffer extends ArrayBuffer {
  readonly resizable: boolean;
  resize(byteLength: number): void;
}
const ResizableArrayBuffer = ArrayBuffer as unknown as new (
  byteLength: number,
  options: { maxByteLength: number },
) => ResizableArrayBuffer;

/**
 * A buffer of `bytes` bytes that V8 maps itself (a resizable ArrayBuffer), not one from malloc.
 * glibc's malloc maps a block of a few megabytes on its own, and freeing such a block raises its
 * mmap threshold to the block's size and its trim threshold to twice that for the rest of the
 * process: every smaller block after it comes from malloc's arenas, which kept the pages a long
 * build freed, so its peak grew with the calls it built. giveBackScratch returns these pages at once.
 */
function unmallocedBuffer(bytes: number): Buffer {
  try {
    return Buffer.from(new ResizableArrayBuffer(bytes, { maxByteLength: bytes }), 0, bytes);
  } catch {
    // An engine without resizable buffers, or address space refused (a small ulimit -v).
    return Buffer.allocUnsafeSlow(bytes);
  }
}

/** Gives the pages of a buffer from readScriptFile back to the system; the buffer must not be used again. */
export function giveBackScratch(scratch: Buffer): void {
  const buffer = scratch.buffer as ResizableArrayBuffer;
  if (buffer.resizable) buffer.resize(0);
}

/** Reads a whole file through its descriptor into `scratch` when it fits, else into a new buffer. */
function readWhole(descriptor: number, size: number, scratch: Buffer | undefined, spare = 0): FileBytes {
  const buffer = scratch !== undefined && scratch.byteLength >= size ? scratch : unmallocedBuffer(size + spare);
  let filled = 0;
  while (filled < size) {
    const read = readSync(descriptor, buffer, filled, size - filled, filled);
    if (read === 0) break;
    filled += read;
  }
  return { bytes: buffer.subarray(0, filled), scratch: buffer };
}

/**
 * A script file's text, and the buffer it was read into, which has room for a cache file of twice
 * its size after it (untouched) so that requireWithCodeCache can read the cache into the same pages.
 */
export function readScriptFile(file: string): { source: string; scratch: Buffer } {
  const descriptor = openSync(file, 'r');
  try {
    const size = fstatSync(descriptor).size;
    const { bytes, scratch } = readWhole(descriptor, size, undefined, size);
    return { source: bytes.toString('utf8'), scratch };
  } finally {
    closeSync(descriptor);
  }
}

/** A 32-bit FNV-1a style mix over the payload's words (its length a multiple of 4): cheap, and enough to notice damage. */
function checksumOf(given: Uint8Array): number {
  // Its 32-bit words must be aligned: a payload that is not (never one read here) is copied.
  const bytes = (given.byteOffset & 3) === 0 ? given : new Uint8Array(given);
  const words = new Int32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >>> 2);
  const imul = Math.imul;
  const count = words.length;
  let hash = 0x811c9dc5 ^ bytes.byteLength;
  for (let index = 0; index < count; index += 1) hash = imul(hash ^ (words[index] as number), 0x01000193);
  for (let index = count << 2; index < bytes.byteLength; index += 1)
    hash = imul(hash ^ (bytes[index] as number), 0x01000193);
  return hash >>> 0;
}

/**
 * The payload of a cache file whose header matches it, undefined for anything else; read into
 * `scratch` (from its start) when it fits there, so the view returned may share it.
 */
export function readCacheFile(file: string, scratch?: Buffer): Uint8Array | undefined {
  let data: Buffer;
  let descriptor: number | undefined;
  try {
    descriptor = openSync(file, 'r');
    // The cache folder may be shared (os.tmpdir()): code another user could have written is never run.
    const stats = fstatSync(descriptor);
    if ((process.getuid !== undefined && stats.uid !== process.getuid()) || (stats.mode & 0o022) !== 0)
      return undefined;
    data = readWhole(descriptor, stats.size, scratch).bytes;
  } catch {
    return undefined;
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
  if (data.byteLength < HEADER_BYTES || data.readUInt32LE(0) !== MAGIC) return undefined;
  // 16 bytes in: aligned for the checksum's 32-bit words and for V8, which copies a payload that is not.
  const payload = data.subarray(HEADER_BYTES);
  if (data.readUInt32LE(4) !== payload.byteLength || data.readUInt32LE(12) !== 0) return undefined;
  return data.readUInt32LE(8) === checksumOf(payload) ? payload : undefined;
}

/** Writes a cache file whole or not at all; any failure leaves no file behind and is ignored. */
export function writeCacheFile(file: string, payload: Uint8Array): void {
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt32LE(MAGIC, 0);
  header.writeUInt32LE(payload.byteLength, 4);
  header.writeUInt32LE(checksumOf(payload), 8);
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(temporary, Buffer.concat([header, payload]), { mode: 0o600 });
    renameSync(temporary, file);
  } catch {
    rmSync(temporary, { force: true });
  }
}

/** The cache file of a script with this key, in `folder`, for this Node and architecture (and this file format). */
export function cacheFileFor(folder: string, key: string): string {
  return path.join(folder, `staticmcp-${key}-${process.version}-${process.arch}.code-cache-${FORMAT}`);
}

/** How a CommonJS source becomes the function expression requireWithCodeCache runs (scripts/bundle-cli.mjs writes the same). */
export const COMMONJS_WRAPPER_START =
  '(function (exports, require, module, __filename, __dirname, __staticmcpImport) {';
export const COMMONJS_WRAPPER_END = '\n})';

/** A CommonJS source as the function expression requireWithCodeCache takes. */
export function wrapCommonJs(source: string): string {
  return `${COMMONJS_WRAPPER_START}${source}${COMMONJS_WRAPPER_END}`;
}

/**
 * Runs `file` as a CommonJS module (exports, require, module, __filename, __dirname, and
 * `__staticmcpImport`, the caller's `import()`: a vm script has none of its own without
 * --experimental-vm-modules) and returns its exports. `script` is the file's whole text, a
 * function expression of those parameters (wrapCommonJs): the bundle is written that way, since
 * wrapping a source here would make V8 copy the joined text once more. `cacheFile` undefined runs
 * it without a cache. `requireModule` is the script's `require` (one that resolves from its
 * folder: the caller's own, when it lives there, costs nothing to make); `scratch` is a buffer the
 * cache may be read into.
 */
export function requireWithCodeCache(
  file: string,
  script: string,
  cacheFile: string | undefined,
  importModule: (specifier: string) => Promise<unknown>,
  requireModule: NodeJS.Require,
  scratch?: Buffer,
): unknown {
  const cachedData = cacheFile === undefined ? undefined : readCacheFile(cacheFile, scratch);
  const compiled = new vm.Script(script, { filename: file, ...(cachedData ? { cachedData } : {}) });
  // Compiled: V8 holds its own copies of the source and the cache.
  if (scratch !== undefined) giveBackScratch(scratch);
  const wrapper = compiled.runInThisContext() as (...args: unknown[]) => void;
  const module = { exports: {} as unknown };
  wrapper.call(module.exports, module.exports, requireModule, module, file, path.dirname(file), importModule);
  if (cacheFile !== undefined && (cachedData === undefined || compiled.cachedDataRejected === true))
    scheduleCacheWrite(compiled, cacheFile);
  return module.exports;
}

let pendingWrite: (() => void) | undefined;

/**
 * Under this global key while a cache write waits: code about to change V8's flags at run time
 * (young-generation.ts, in the command-line bundle, which shares no module with this file) calls
 * it first. V8 stamps a cache with the flags it was made under and refuses it when they differ:
 * written after `build` changed two flags, the cache was refused, recompiled and rewritten by
 * every later run of the bundle, whatever its command.
 */
export const WRITE_CODE_CACHE_NOW = Symbol.for('staticmcp.writeCodeCacheNow');

function scheduleCacheWrite(script: vm.Script, cacheFile: string): void {
  const write = (): void => {
    if (pendingWrite !== write) return;
    pendingWrite = undefined;
    process.off('exit', write);
    delete (globalThis as Record<symbol, unknown>)[WRITE_CODE_CACHE_NOW];
    try {
      writeCacheFile(cacheFile, script.createCachedData());
    } catch {}
  };
  pendingWrite = write;
  (globalThis as Record<symbol, unknown>)[WRITE_CODE_CACHE_NOW] = write;
  setTimeout(write, CACHE_WRITE_DELAY_MS).unref();
  process.once('exit', write);
}

/** Writes the cache file a run is waiting to write, now (the tests' way to not wait). */
export function flushCacheWrite(): void {
  pendingWrite?.();
}

// Runs a CommonJS file with V8's code cache, for Node versions without `module.enableCompileCache`
// (Node 20): the file is compiled through vm.Script with the cached data of an earlier run, and a
// run that had none (or had it refused) writes it once the program has started, so the code V8
// compiled for the start is kept too. The cache is only ever an optimisation: a missing, unreadable,
// damaged or stale cache file, or a folder that cannot be written, means an ordinary compile, never
// an error. A cache file is named after the script's key (its content hash), the Node version and
// the architecture; it is written to a temporary name and renamed, so a reader never sees half of
// one; its header holds the payload's length and checksum, so a damaged file is never handed to V8
// (whose own checks look only at versions, flags and the source's length). A file that is not the
// user's own, or that others may write, is not read.
import { closeSync, fstatSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';

const MAGIC = 0x53_4d_43_43; // "SMCC"
const HEADER_BYTES = 12;
/** A server started from a cache miss writes its cache this long after it started (or at exit, if sooner). */
export const CACHE_WRITE_DELAY_MS = 1000;

/** A 32-bit FNV-1a style mix over the payload's words: cheap, and enough to notice damage. */
function checksumOf(bytes: Uint8Array): number {
  const words = new Int32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >>> 2);
  let hash = 0x811c9dc5 ^ bytes.byteLength;
  for (let index = 0; index < words.length; index += 1) hash = Math.imul(hash ^ (words[index] ?? 0), 0x01000193);
  for (let index = words.length << 2; index < bytes.byteLength; index += 1)
    hash = Math.imul(hash ^ (bytes[index] ?? 0), 0x01000193);
  return hash >>> 0;
}

/** The payload of a cache file whose header matches it; undefined for anything else. */
export function readCacheFile(file: string): Buffer | undefined {
  let data: Buffer;
  let descriptor: number | undefined;
  try {
    descriptor = openSync(file, 'r');
    // The cache folder may be shared (os.tmpdir()): code another user could have written is never run.
    const stats = fstatSync(descriptor);
    if ((process.getuid !== undefined && stats.uid !== process.getuid()) || (stats.mode & 0o022) !== 0)
      return undefined;
    data = readFileSync(descriptor);
  } catch {
    return undefined;
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
  if (data.byteLength < HEADER_BYTES || data.readUInt32LE(0) !== MAGIC) return undefined;
  const payload = data.subarray(HEADER_BYTES);
  if (data.readUInt32LE(4) !== payload.byteLength) return undefined;
  // A copy at offset 0: the checksum reads it as 32-bit words, which must be aligned.
  const aligned = Buffer.from(payload);
  return data.readUInt32LE(8) === checksumOf(aligned) ? aligned : undefined;
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

/** The cache file of a script with this key, in `folder`, for this Node and architecture. */
export function cacheFileFor(folder: string, key: string): string {
  return path.join(folder, `staticmcp-${key}-${process.version}-${process.arch}.code-cache`);
}

/**
 * Runs `file` as a CommonJS module (exports, require, module, __filename, __dirname, and
 * `__staticmcpImport`, the caller's `import()`: a vm script has none of its own without
 * --experimental-vm-modules) and returns its exports. `cacheFile` undefined runs it without a cache.
 */
export function requireWithCodeCache(
  file: string,
  source: string,
  cacheFile: string | undefined,
  importModule: (specifier: string) => Promise<unknown>,
): unknown {
  const cachedData = cacheFile === undefined ? undefined : readCacheFile(cacheFile);
  // On the first line, as Node's own wrapper does, so line numbers in stack traces stay the file's.
  const script = new vm.Script(
    `(function (exports, require, module, __filename, __dirname, __staticmcpImport) {${source}\n})`,
    { filename: file, ...(cachedData ? { cachedData } : {}) },
  );
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  const module = { exports: {} as unknown };
  wrapper.call(module.exports, module.exports, createRequire(file), module, file, path.dirname(file), importModule);
  if (cacheFile !== undefined && (cachedData === undefined || script.cachedDataRejected === true))
    scheduleCacheWrite(script, cacheFile);
  return module.exports;
}

let pendingWrite: (() => void) | undefined;

function scheduleCacheWrite(script: vm.Script, cacheFile: string): void {
  const write = (): void => {
    if (pendingWrite !== write) return;
    pendingWrite = undefined;
    process.off('exit', write);
    try {
      writeCacheFile(cacheFile, script.createCachedData());
    } catch {}
  };
  pendingWrite = write;
  setTimeout(write, CACHE_WRITE_DELAY_MS).unref();
  process.once('exit', write);
}

/** Writes the cache file a run is waiting to write, now (the tests' way to not wait). */
export function flushCacheWrite(): void {
  pendingWrite?.();
}

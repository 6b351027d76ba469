// `serve`'s first exchange without Node's stream modules: on a pipe or socket, process.stdin and
// process.stdout are net.Socket objects, and creating the first of them loads net and stream (a
// good part of what a start costs beyond Node's own). A client writes its first request as soon as
// it has started the server, so one plain read(2) of stdin finds it waiting, and the answers to it
// go out with write(2); the streams are made after that. Either read or write falls back to the
// streams, having consumed or written nothing it did not hand on, when the descriptor is
// non-blocking (EAGAIN). The transport goes on writing its answers with write(2) once stdout's
// stream exists and holds nothing unsent (writeTextSync).
import { fstatSync, readSync, writeSync } from 'node:fs';

/** What one read takes: a first request (initialize) is a few hundred bytes; a longer one goes on through the stream. */
const FIRST_READ_BYTES = 64 * 1024;

/**
 * The bytes waiting on stdin (empty at its end), read synchronously, or undefined when stdin is not
 * a pipe or a socket (a terminal, a file, /dev/null), or on Windows, or cannot be read that way
 * (non-blocking): nothing was read then.
 * Blocks until the client writes or closes its end, so it is called once, before anything else has
 * started (no live run, no timer a client is waiting for).
 */
export function readWaitingInput(): Buffer | undefined {
  // Windows pipes are another kind of handle, which these reads were never tried on.
  if (process.platform === 'win32') return undefined;
  try {
    const stats = fstatSync(0);
    if (!stats.isFIFO() && !stats.isSocket()) return undefined;
    const buffer = Buffer.allocUnsafe(FIRST_READ_BYTES);
    return buffer.subarray(0, readSync(0, buffer, 0, FIRST_READ_BYTES, null));
  } catch {
    return undefined;
  }
}

/**
 * Writes `bytes` to stdout synchronously; returns what is left when stdout is non-blocking and full
 * (empty when all was written). Throws what write(2) does otherwise (EPIPE: the client went away).
 */
function writeOutputSync(bytes: Buffer): Buffer {
  let written = 0;
  while (written < bytes.length) {
    try {
      written += writeSync(1, bytes, written, bytes.length - written);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN') return bytes.subarray(written);
      throw error;
    }
  }
  return bytes.subarray(written);
}

/**
 * writeOutputSync for a text: one write(2) of it, without a buffer made first for the usual case
 * (all of it taken); returns what is left unwritten (empty when all was written).
 */
export function writeTextSync(text: string): string | Buffer {
  let written: number;
  try {
    written = writeSync(1, text);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EAGAIN') return text;
    throw error;
  }
  // Counted in bytes: the text's own length differs once it holds more than ASCII.
  if (written >= Buffer.byteLength(text)) return '';
  return writeOutputSync(Buffer.from(text).subarray(written));
}

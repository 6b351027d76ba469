// One long-lived buffer that a long string's UTF-8 is laid out in just before it is digested or
// written synchronously. Digesting a string (node's Utf8Value takes three bytes a UTF-16 unit) or
// writing it (Buffer.from) made a native block of its size each time; past glibc's mmap threshold
// each such block freed raises that threshold, so the next big blocks land in the main arena,
// which then cannot give back its holes: at 100,000 documents the build's peak RSS grew with them.

/** Strings shorter than this (in UTF-16 units) are encoded as before: their blocks stay small. */
export const SCRATCH_MIN_LENGTH = 1 << 14;
/** The buffer grows in these steps, so a run of slightly longer strings does not regrow it each time. */
const GROWTH_STEP_BYTES = 1 << 18;

let scratch: Buffer | undefined;

/**
 * `text`'s UTF-8 bytes as a view of the shared buffer: valid only until the next call, so the
 * caller uses them synchronously (digest, writeSync) and keeps none of them.
 */
export function encodeUtf8InScratch(text: string): Buffer {
  // Three bytes a UTF-16 unit always fit, so the length is counted only when the buffer is short of that.
  if (scratch === undefined || scratch.length < text.length * 3) {
    const needed = Buffer.byteLength(text);
    if (scratch === undefined || scratch.length < needed)
      scratch = Buffer.allocUnsafeSlow(Math.ceil(needed / GROWTH_STEP_BYTES) * GROWTH_STEP_BYTES);
  }
  const written = scratch.write(text, 'utf8');
  return scratch.subarray(0, written);
}

// Bytes as lowercase hex without garbage: pack keys, digests and record names are hex, and an edit
// build makes some for every document.

/** ASCII of the hex digits 0-9a-f. */
const HEX_DIGITS = new TextEncoder().encode('0123456789abcdef');
const hexDecoder = new TextDecoder();
/** One scratch of ASCII per byte count asked for (keys, digests: a few counts), up to MAX_SCRATCH_BYTES. */
const hexScratches = new Map<number, Uint8Array>();
const MAX_SCRATCH_BYTES = 64;

/**
 * `bytes` as lowercase hex. Written as ASCII into a scratch array and decoded once: one string a
 * call, where a string built two digits at a time made a copy or a cons string a byte (~0.8 KB of
 * garbage a digest, and an edit build makes some for every document).
 */
export function hexOfBytes(bytes: Uint8Array): string {
  const length = bytes.length;
  let ascii = length <= MAX_SCRATCH_BYTES ? hexScratches.get(length) : undefined;
  if (ascii === undefined) {
    ascii = new Uint8Array(length * 2);
    if (length <= MAX_SCRATCH_BYTES) hexScratches.set(length, ascii);
  }
  // An index, not for…of: no iterator per key.
  for (let index = 0; index < length; index += 1) {
    const byte = bytes[index]!;
    ascii[2 * index] = HEX_DIGITS[byte >> 4]!;
    ascii[2 * index + 1] = HEX_DIGITS[byte & 15]!;
  }
  return hexDecoder.decode(ascii);
}

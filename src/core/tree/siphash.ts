// SipHash-1-3 with key (0, 0) over a string hashed the way Rust's `DefaultHasher` hashes a `str`
// (UTF-8 bytes followed by one 0xFF byte): the hash the reference StaticMCP generator puts into
// long file names, so our long names match theirs.
import { utf8Bytes } from './utf8.js';

// Each 64-bit word is kept as two unsigned 32-bit halves in a Uint32Array (BigInt arithmetic
// cost 1.7 s for a 4 MB value, issue 21 item 5; this costs a few tens of milliseconds).
// State layout: [v0 high, v0 low, v1 high, v1 low, v2 high, v2 low, v3 high, v3 low].

/** v[a] += v[b] for the 64-bit words at half-indexes a and b (high half first). */
function add64(v: Uint32Array, a: number, b: number): void {
  const low = v[a + 1]! + v[b + 1]!;
  v[a] = v[a]! + v[b]! + (low > 0xffffffff ? 1 : 0);
  v[a + 1] = low;
}

/** v[a] = rotl(v[a], bits) ^ v[x], for 0 < bits < 32. */
function rotateXor(v: Uint32Array, a: number, bits: number, x: number): void {
  const high = v[a]!;
  const low = v[a + 1]!;
  v[a] = ((high << bits) | (low >>> (32 - bits))) ^ v[x]!;
  v[a + 1] = ((low << bits) | (high >>> (32 - bits))) ^ v[x + 1]!;
}

/** rotl(v[a], 32): the halves swap. */
function swapHalves(v: Uint32Array, a: number): void {
  const high = v[a]!;
  v[a] = v[a + 1]!;
  v[a + 1] = high;
}

function sipRound(v: Uint32Array): void {
  add64(v, 0, 2);
  rotateXor(v, 2, 13, 0);
  swapHalves(v, 0);
  add64(v, 4, 6);
  rotateXor(v, 6, 16, 4);
  add64(v, 0, 6);
  rotateXor(v, 6, 21, 0);
  add64(v, 4, 2);
  rotateXor(v, 2, 17, 4);
  swapHalves(v, 4);
}

/** v3 ^= m; one round; v0 ^= m. */
function compress(v: Uint32Array, high: number, low: number): void {
  v[6] = v[6]! ^ high;
  v[7] = v[7]! ^ low;
  sipRound(v);
  v[0] = v[0]! ^ high;
  v[1] = v[1]! ^ low;
}

/** SipHash-1-3, keys k0 = k1 = 0, over raw bytes; returns the 64-bit result. */
export function sipHash13(bytes: Uint8Array): bigint {
  const [high, low] = sipHash13Halves(bytes);
  return (BigInt(high) << 32n) | BigInt(low);
}

/** The state of the hash being taken: one for the module, as a hash runs to its end in one go. */
const state = new Uint32Array(8);

/** Leaves SipHash-1-3 of `bytes` in `state`: the result is the xor of its four words. */
function hashIntoState(bytes: Uint8Array): Uint32Array {
  const v = state;
  // v0..v3 = the key (0, 0) xor "somepseudorandomlygeneratedbytes".
  v[0] = 0x736f6d65;
  v[1] = 0x70736575;
  v[2] = 0x646f7261;
  v[3] = 0x6e646f6d;
  v[4] = 0x6c796765;
  v[5] = 0x6e657261;
  v[6] = 0x74656462;
  v[7] = 0x79746573;
  const length = bytes.length;
  const wholeWordsEnd = length - (length % 8);
  for (let offset = 0; offset < wholeWordsEnd; offset += 8) {
    // Little-endian: bytes 0..3 are the low half.
    const low = bytes[offset]! | (bytes[offset + 1]! << 8) | (bytes[offset + 2]! << 16) | (bytes[offset + 3]! << 24);
    const high =
      bytes[offset + 4]! | (bytes[offset + 5]! << 8) | (bytes[offset + 6]! << 16) | (bytes[offset + 7]! << 24);
    compress(v, high, low);
  }
  // The last word: the remaining bytes, and the length's low byte as its top byte.
  let lastHigh = (length & 0xff) << 24;
  let lastLow = 0;
  for (let i = wholeWordsEnd; i < length; i++) {
    const shift = 8 * (i - wholeWordsEnd);
    if (shift < 32) lastLow |= bytes[i]! << shift;
    else lastHigh |= bytes[i]! << (shift - 32);
  }
  compress(v, lastHigh, lastLow);
  v[5] = v[5]! ^ 0xff;
  sipRound(v);
  sipRound(v);
  sipRound(v);
  return v;
}

/**
 * The same hash as two unsigned 32-bit halves (high first), with no BigInt: a pack lookup hashes
 * every call path, and the BigInt result alone cost more than the hash (bench/pack-lookup.mjs).
 */
export function sipHash13Halves(bytes: Uint8Array): [number, number] {
  const v = hashIntoState(bytes);
  return [(v[0]! ^ v[2]! ^ v[4]! ^ v[6]!) >>> 0, (v[1]! ^ v[3]! ^ v[5]! ^ v[7]!) >>> 0];
}

/**
 * The low half alone, allocating nothing: a search part's boundaries hash each record's key two or
 * more times a build, and a state array a hash was much of the garbage of an edit's index step.
 */
export function sipHash13Low(bytes: Uint8Array): number {
  const v = hashIntoState(bytes);
  return (v[1]! ^ v[3]! ^ v[5]! ^ v[7]!) >>> 0;
}

/** What Rust prints for `{:016x}` of `DefaultHasher` after `text.hash(&mut hasher)`. */
export function hashLikeRustDefaultHasher(text: string): string {
  const utf8 = utf8Bytes(text);
  const withTerminator = new Uint8Array(utf8.length + 1);
  withTerminator.set(utf8);
  withTerminator[utf8.length] = 0xff;
  return sipHash13(withTerminator).toString(16).padStart(16, '0');
}

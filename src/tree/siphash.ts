// SipHash-1-3 with key (0, 0) over a string hashed the way Rust's `DefaultHasher` hashes a `str`
// (UTF-8 bytes followed by one 0xFF byte): the hash the reference StaticMCP generator puts into
// long file names, so our long names match theirs.
import { utf8Bytes } from './utf8.js';

const MASK = (1n << 64n) - 1n;

function rotl(x: bigint, b: bigint): bigint {
  return ((x << b) | (x >> (64n - b))) & MASK;
}

/** v0..v3 of SipHash's state. */
type SipState = [bigint, bigint, bigint, bigint];

function sipRound(v: SipState): void {
  v[0] = (v[0] + v[1]) & MASK;
  v[1] = rotl(v[1], 13n);
  v[1] ^= v[0];
  v[0] = rotl(v[0], 32n);
  v[2] = (v[2] + v[3]) & MASK;
  v[3] = rotl(v[3], 16n);
  v[3] ^= v[2];
  v[0] = (v[0] + v[3]) & MASK;
  v[3] = rotl(v[3], 21n);
  v[3] ^= v[0];
  v[2] = (v[2] + v[1]) & MASK;
  v[1] = rotl(v[1], 17n);
  v[1] ^= v[2];
  v[2] = rotl(v[2], 32n);
}

/** SipHash-1-3, keys k0 = k1 = 0, over raw bytes; returns the 64-bit result. */
export function sipHash13(bytes: Uint8Array): bigint {
  const k0 = 0n;
  const k1 = 0n;
  const v: SipState = [
    k0 ^ 0x736f6d6570736575n,
    k1 ^ 0x646f72616e646f6dn,
    k0 ^ 0x6c7967656e657261n,
    k1 ^ 0x7465646279746573n,
  ];
  const length = bytes.length;
  const wholeWordsEnd = length - (length % 8);
  for (let offset = 0; offset < wholeWordsEnd; offset += 8) {
    let m = 0n;
    for (let i = 7; i >= 0; i--) m = (m << 8n) | BigInt(bytes[offset + i]!);
    v[3] ^= m;
    sipRound(v);
    v[0] ^= m;
  }
  let last = BigInt(length & 0xff) << 56n;
  for (let i = length - 1; i >= wholeWordsEnd; i--) {
    last |= BigInt(bytes[i]!) << BigInt(8 * (i - wholeWordsEnd));
  }
  v[3] ^= last;
  sipRound(v);
  v[0] ^= last;
  v[2] ^= 0xffn;
  sipRound(v);
  sipRound(v);
  sipRound(v);
  return v[0] ^ v[1] ^ v[2] ^ v[3];
}

/** What Rust prints for `{:016x}` of `DefaultHasher` after `text.hash(&mut hasher)`. */
export function hashLikeRustDefaultHasher(text: string): string {
  const utf8 = utf8Bytes(text);
  const withTerminator = new Uint8Array(utf8.length + 1);
  withTerminator.set(utf8);
  withTerminator[utf8.length] = 0xff;
  return sipHash13(withTerminator).toString(16).padStart(16, '0');
}

// FNV-1a over a range of bytes: where an open-addressing table of paths or ids puts an entry (the
// same bytes always land in the same place; not a digest of anything kept).
export function fnv1aOf(bytes: Uint8Array, start: number, end: number): number {
  let hash = 0x811c9dc5;
  for (let index = start; index < end; index++) {
    hash ^= bytes[index]!;
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

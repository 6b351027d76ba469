// Whether two byte runs are equal, by the host's native code where it has one (issue #40): a rare
// word and its stem hold two records of the same postings (one-list-rank.ts), hundreds of KB at
// 650,000 documents, and a cold worker comparing them in JavaScript runs a loop it then compiles.
// workerd's `crypto.subtle.timingSafeEqual` compares them natively; elsewhere (Node, browsers) a
// loop does, four bytes at a time where both runs start on a 4-byte boundary. Portable.

type TimingSafeEqual = (left: ArrayBufferView, right: ArrayBufferView) => boolean;

/** Whether `left` and `right` (typed arrays of any element size) hold the same bytes. */
export function holdSameBytes(left: ArrayBufferView, right: ArrayBufferView): boolean {
  if (left.byteLength !== right.byteLength) return false;
  if (left.byteLength === 0) return true;
  const leftBytes = new Uint8Array(left.buffer, left.byteOffset, left.byteLength);
  const rightBytes = new Uint8Array(right.buffer, right.byteOffset, right.byteLength);
  const subtle = (globalThis as { crypto?: { subtle?: { timingSafeEqual?: TimingSafeEqual } } }).crypto?.subtle;
  if (subtle?.timingSafeEqual !== undefined) {
    try {
      return subtle.timingSafeEqual(leftBytes, rightBytes);
    } catch {
      // A host whose function refuses these views: the loop below answers.
    }
  }
  let at = 0;
  if (leftBytes.byteOffset % 4 === 0 && rightBytes.byteOffset % 4 === 0) {
    const words = leftBytes.length >>> 2;
    const leftWords = new Uint32Array(leftBytes.buffer, leftBytes.byteOffset, words);
    const rightWords = new Uint32Array(rightBytes.buffer, rightBytes.byteOffset, words);
    for (let index = 0; index < words; index += 1) if (leftWords[index] !== rightWords[index]) return false;
    at = words * 4;
  }
  for (; at < leftBytes.length; at += 1) if (leftBytes[at] !== rightBytes[at]) return false;
  return true;
}

// A term's postings as one record body: `df`, then df × (docDelta, tf, docLength), all unsigned
// LEB128 varints, documents in ascending number (the first delta is the number itself). The
// document's length rides in each posting so BM25 needs no per-document table read. Portable; the
// decoder never throws: bytes that do not parse as exactly what they claim are refused.

export interface Posting {
  document: number;
  termFrequency: number;
  documentLength: number;
}

/** Postings packed as parallel arrays: a 2.5 MB postings list decodes without an object per posting. */
export interface PostingList {
  documents: Uint32Array;
  termFrequencies: Uint32Array;
  documentLengths: Uint32Array;
}

/** Varints above 2^35 are not ours: a count, number or length never gets near that. */
const MAX_VARINT_BYTES = 5;

function writeVarint(target: number[], value: number): void {
  let rest = value;
  while (rest >= 0x80) {
    target.push((rest & 0x7f) | 0x80);
    rest = Math.floor(rest / 128);
  }
  target.push(rest);
}

/** `postings` sorted by document, numbers distinct. */
export function encodePostings(postings: readonly Posting[]): Uint8Array {
  const bytes: number[] = [];
  writeVarint(bytes, postings.length);
  let previous = 0;
  for (const posting of postings) {
    writeVarint(bytes, posting.document - previous);
    writeVarint(bytes, posting.termFrequency);
    writeVarint(bytes, posting.documentLength);
    previous = posting.document;
  }
  return Uint8Array.from(bytes);
}

/**
 * The postings of a record body, or a reason when the body is not sound (ends early, bytes left
 * over, a count larger than the bytes can hold, documents out of order or past `documentCount`).
 */
export function decodePostings(body: Uint8Array, documentCount: number): PostingList | { problem: string } {
  let offset = 0;
  const read = (): number | undefined => {
    let value = 0;
    let scale = 1;
    for (let used = 0; used < MAX_VARINT_BYTES; used += 1) {
      if (offset >= body.length) return undefined;
      const byte = body[offset]!;
      offset += 1;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 128;
    }
    return undefined;
  };
  const count = read();
  // Each posting takes at least 3 bytes: a count beyond that is a damaged body, not an allocation.
  if (count === undefined || count * 3 > body.length - offset)
    return { problem: 'its posting count does not fit its bytes' };
  const list: PostingList = {
    documents: new Uint32Array(count),
    termFrequencies: new Uint32Array(count),
    documentLengths: new Uint32Array(count),
  };
  let document = 0;
  for (let position = 0; position < count; position += 1) {
    const delta = read();
    const termFrequency = read();
    const documentLength = read();
    if (delta === undefined || termFrequency === undefined || documentLength === undefined)
      return { problem: 'it ends inside a posting' };
    if (position > 0 && delta === 0) return { problem: 'its documents are not in ascending order' };
    document += delta;
    if (document >= documentCount) return { problem: `it names document ${document} of ${documentCount}` };
    if (termFrequency === 0 || termFrequency > documentLength)
      return { problem: 'a posting counts more terms than its document has' };
    list.documents[position] = document;
    list.termFrequencies[position] = termFrequency;
    list.documentLengths[position] = documentLength;
  }
  if (offset !== body.length) return { problem: 'bytes follow its last posting' };
  return list;
}

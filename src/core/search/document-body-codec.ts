// A format 6 document record's body (issue #40): the document's JSON (search-results.ts) in UTF-8,
// compressed: its length as a big-endian u32, then a raw deflate stream of it (RFC 1951), which
// workerd and Node decode with DecompressionStream and no native module; the Node writers compress
// with zlib (search-document-compression.ts). Text compresses ~3×: the index stays below the size
// of the text it holds, and fetch still reads one record. Portable; never throws on bad bytes: a
// body that does not decompress, or whose length lies, is a problem for its one document.

/** Bytes before the deflate stream: the uncompressed length. */
export const BODY_LENGTH_BYTES = 4;
/**
 * A body claiming more is refused before it is inflated (a pack holds 24 MiB, and text deflates
 * at most ~1,000×, but no document text is near this).
 */
export const MAX_DOCUMENT_BODY_BYTES = 256 * 1024 * 1024;

/** Compressed bytes handed to the inflater at a time. */
const INPUT_SLICE_BYTES = 16 * 1024;

/** The JSON bytes of a compressed body, or why not. */
export async function decompressDocumentBody(body: Uint8Array): Promise<Uint8Array | { problem: string }> {
  if (body.length < BODY_LENGTH_BYTES) return { problem: 'its body is shorter than its length field' };
  const length = new DataView(body.buffer, body.byteOffset, body.byteLength).getUint32(0);
  if (length > MAX_DOCUMENT_BODY_BYTES)
    return { problem: `its body claims ${length} bytes, more than a document's ${MAX_DOCUMENT_BODY_BYTES}` };
  const out = new Uint8Array(length);
  let filled = 0;
  try {
    const inflater = new DecompressionStream('deflate-raw');
    const writer = inflater.writable.getWriter();
    // Their failures are the reader's too, and reported there.
    for (let offset = BODY_LENGTH_BYTES; offset < body.length; offset += INPUT_SLICE_BYTES)
      writer.write(body.slice(offset, offset + INPUT_SLICE_BYTES)).catch(() => {});
    writer.close().catch(() => {});
    const reader = inflater.readable.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      // Past the length it claims: stop inflating rather than trust the rest (a small body may inflate to gigabytes).
      if (filled + value.length > length) {
        await reader.cancel();
        return { problem: `its body inflates past the ${length} bytes it claims` };
      }
      out.set(value, filled);
      filled += value.length;
    }
  } catch {
    return { problem: 'its body does not decompress (not a deflate stream, or cut short)' };
  }
  if (filled !== length) return { problem: `its body inflates to ${filled} bytes, not the ${length} it claims` };
  return out;
}

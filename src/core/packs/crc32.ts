// CRC-32 (IEEE 802.3, the zip and PNG polynomial) over bytes, without Node's zlib: a pack record
// carries the CRC of its names and body so that a hand-edited or damaged record is refused by any
// reader, even one that reads just that record's byte range and never sees the rest of the pack.

/** The 256-entry table of the reflected polynomial 0xEDB88320, built once on first use. */
let table: Uint32Array | undefined;

function buildTable(): Uint32Array {
  const built = new Uint32Array(256);
  for (let byte = 0; byte < 256; byte += 1) {
    let value = byte;
    for (let bit = 0; bit < 8; bit += 1) value = value & 1 ? 0xedb88320 ^ (value >>> 1) : value >>> 1;
    built[byte] = value >>> 0;
  }
  return built;
}

/** CRC-32 of `bytes[start, end)`, as an unsigned 32-bit number. */
export function crc32(bytes: Uint8Array, start = 0, end = bytes.length): number {
  table ??= buildTable();
  let crc = 0xffffffff;
  // index < end <= bytes.length and (crc ^ byte) & 0xff < 256: both reads exist.
  for (let index = start; index < end; index += 1) crc = table[(crc ^ bytes[index]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

// UTF-8 bytes and base64 without Node's Buffer, so the tree's key rules and the MCP core run on
// edge runtimes too (TextEncoder, btoa and atob exist in Node and in every Workers runtime).

const encoder = new TextEncoder();
const strictDecoder = new TextDecoder('utf-8', { fatal: true });
const lenientDecoder = new TextDecoder('utf-8');

export function utf8Bytes(text: string): Uint8Array<ArrayBuffer> {
  return encoder.encode(text);
}

/** Decodes UTF-8; invalid bytes become U+FFFD and `replaced` says so. */
export function decodeUtf8(bytes: Uint8Array): { text: string; replaced: boolean } {
  try {
    return { text: strictDecoder.decode(bytes), replaced: false };
  } catch {
    return { text: lenientDecoder.decode(bytes), replaced: true };
  }
}

export function base64FromBytes(bytes: Uint8Array): string {
  let binary = '';
  // In slices: String.fromCharCode with a whole large array overflows the argument stack.
  for (let start = 0; start < bytes.length; start += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(start, start + 0x8000));
  }
  return btoa(binary);
}

/** Base64 (standard alphabet, padded) of the UTF-8 bytes of `text`. */
export function base64FromText(text: string): string {
  return base64FromBytes(utf8Bytes(text));
}

/** RFC 4648 base64url without padding. */
export function base64UrlFromText(text: string): string {
  return base64FromText(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The text of a base64url string; throws when it is not base64url or not UTF-8. */
export function textFromBase64Url(encoded: string): string {
  if (!/^[A-Za-z0-9_-]*$/.test(encoded)) throw new Error('not base64url');
  const binary = atob(encoded.replace(/-/g, '+').replace(/_/g, '/'));
  const bytes = Uint8Array.from(binary, (character) => character.charCodeAt(0));
  const decoded = decodeUtf8(bytes);
  if (decoded.replaced) throw new Error('not UTF-8');
  return decoded.text;
}

/** Byte order of the UTF-8 encodings, as Rust sorts strings. */
export function compareUtf8(left: string, right: string): number {
  const a = utf8Bytes(left);
  const b = utf8Bytes(right);
  const length = Math.min(a.length, b.length);
  // index < length, the shorter array's: both bytes exist.
  for (let index = 0; index < length; index += 1) if (a[index] !== b[index]) return a[index]! - b[index]!;
  return a.length - b.length;
}

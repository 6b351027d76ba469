// SHA-256 through Web Crypto (global in Node 20 and in Workers runtimes), so the core needs no node:crypto.
import { utf8Bytes } from './utf8.js';

export async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', utf8Bytes(text)));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** SHA-256 of raw bytes, lowercase hex. */
export async function sha256HexOfBytes(bytes: Uint8Array<ArrayBuffer> | Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

// SHA-256 through Web Crypto (global in Node 20 and in Workers runtimes), so the core needs no node:crypto.
import { utf8Bytes } from '../tree/utf8.js';

export async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', utf8Bytes(text)));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

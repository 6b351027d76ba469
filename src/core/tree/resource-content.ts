// Whether bytes a resource holds are published as `text` or as base64 `blob`: the one rule for
// resource files at build time, template instances a provider prints at build time, and the same
// instances read live (issue 21, item 10: a provider's PNG was decoded as UTF-8 and corrupted).
// Portable: no node:, Buffer or process, so the bridge and the worker apply it too.
import { base64FromBytes } from './utf8.js';

const TEXT_APPLICATION_TYPES = new Set([
  'application/json',
  'application/xml',
  'application/javascript',
  'application/yaml',
  'application/x-yaml',
  'application/toml',
  'application/ld+json',
  'application/x-sh',
  'application/sql',
  'application/graphql',
]);

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Text when the type says so (or is the unknown `application/octet-stream`) and the bytes are
 * valid UTF-8 without NULs; an image, audio, video or font type is never text (SVG is).
 */
export function isTextContent(mimeType: string, bytes: Uint8Array): boolean {
  const declaredText =
    mimeType.startsWith('text/') ||
    TEXT_APPLICATION_TYPES.has(mimeType) ||
    mimeType.endsWith('+json') ||
    mimeType.endsWith('+xml') ||
    mimeType === 'image/svg+xml';
  const declaredBinary = /^(image|audio|video|font)\//.test(mimeType) && mimeType !== 'image/svg+xml';
  if (declaredBinary) return false;
  if (bytes.includes(0)) return false;
  try {
    strictUtf8.decode(bytes);
  } catch {
    return false;
  }
  return declaredText || mimeType === 'application/octet-stream';
}

/** One resource's contents item: `{uri, mimeType, text}`, or `{uri, mimeType, blob}` for bytes that are not text. */
export function resourceContentOf(
  uri: string,
  mimeType: string,
  bytes: Uint8Array,
): { uri: string; mimeType: string; text: string } | { uri: string; mimeType: string; blob: string } {
  return isTextContent(mimeType, bytes)
    ? { uri, mimeType, text: strictUtf8.decode(bytes) }
    : { uri, mimeType, blob: base64FromBytes(bytes) };
}

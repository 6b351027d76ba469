// MIME types from file names (the one module that imports `mime`), and whether content is text.
import mime from 'mime';

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

export function mimeTypeFor(fileName: string): string {
  return mime.getType(fileName) ?? 'application/octet-stream';
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Text when the type says so, or when an unknown type's bytes are valid UTF-8 without NULs. */
export function isTextContent(mimeType: string, bytes: Buffer): boolean {
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

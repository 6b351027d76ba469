// MIME types from file names (the one module that imports `mime`), and whether content is text.
import mime from 'mime';

/**
 * mime's answer by extension, for names whose answer depends on nothing else (a dot after the
 * last separator, not first in the name): `mime.getType` runs two regexp replacements and two
 * lower-casings a call, once for every document of every build.
 */
const byExtension = new Map<string, string>();

export function mimeTypeFor(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  const nameStart = Math.max(fileName.lastIndexOf('/'), fileName.lastIndexOf('\\')) + 1;
  if (dot <= nameStart) return lookUpMimeType(fileName);
  const extension = fileName.slice(dot + 1);
  let type = byExtension.get(extension);
  if (type === undefined) {
    type = lookUpMimeType(fileName);
    byExtension.set(extension, type);
  }
  return type;
}

function lookUpMimeType(fileName: string): string {
  return mime.getType(fileName) ?? 'application/octet-stream';
}

// Text or bytes: the portable rule, shared with template instances and live reads.
export { isTextContent } from '../core/tree/resource-content.js';

// MIME types from file names (the one module that imports `mime`), and whether content is text.
import mime from 'mime';

export function mimeTypeFor(fileName: string): string {
  return mime.getType(fileName) ?? 'application/octet-stream';
}

// Text or bytes: the portable rule, shared with template instances and live reads.
export { isTextContent } from '../core/tree/resource-content.js';

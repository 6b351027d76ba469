// The section of llms.txt a document is listed under: its tool, or the folder of its URI's path,
// worked out once per folder rather than once per document.
import type { SearchDocument } from '../core/search/tree-documents.js';

/** The section a document is listed under: its tool, or the folder of its URI's path. */
function folderOf(document: SearchDocument): string {
  const metadata = document.metadata ?? {};
  if (typeof metadata.tool === 'string') return `${metadata.tool} (tool results)`;
  return folderOfUri(typeof metadata.uri === 'string' ? metadata.uri : document.id);
}

/** The folder of a URI's path ('Documents' when it has none). */
function folderOfUri(uri: string): string {
  const pathPart = /^https?:\/\//i.test(uri)
    ? uri.replace(/^https?:\/\/[^/]+/i, '')
    : uri.replace(/^[a-z][\w+.-]*:\/\//i, '');
  const folder = pathPart
    .replace(/[?#].*$/, '')
    .replace(/\/+$/, '')
    .split('/')
    .slice(0, -1)
    .filter(Boolean)
    .join('/');
  return folder === '' ? 'Documents' : folder;
}

/**
 * folderOf, remembered by the part of a URI it depends on: up to its last slash, when the rest is
 * a plain last segment (no query, fragment or trailing slash), which the folder drops whatever it
 * is; the scheme and host patterns end at a slash, so they match within that part alike. Documents
 * of one folder share it: the patterns run once a folder, not once a document.
 */
export class FolderNames {
  private readonly byPrefix = new Map<string, string>();

  of(document: SearchDocument): string {
    const metadata = document.metadata ?? {};
    if (typeof metadata.tool === 'string') return folderOf(document);
    const uri = typeof metadata.uri === 'string' ? metadata.uri : document.id;
    const slash = uri.lastIndexOf('/');
    if (slash < 0 || slash === uri.length - 1 || uri.includes('?') || uri.includes('#')) return folderOfUri(uri);
    const prefix = uri.slice(0, slash + 1);
    let folder = this.byPrefix.get(prefix);
    if (folder === undefined) {
      folder = folderOfUri(`${prefix}x`);
      this.byPrefix.set(prefix, folder);
    }
    return folder;
  }
}

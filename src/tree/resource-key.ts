// Where a resource's file lives in a tree: `resources/<uri without scheme://, each /-segment encoded>.json`.
import { encodeKeySegment } from './encode-filename.js';

export function resourceFilePath(uri: string): string {
  const schemeEnd = uri.indexOf('://');
  const afterScheme = schemeEnd >= 0 ? uri.slice(schemeEnd + 3) : uri.replace(/^[A-Za-z][A-Za-z0-9+.-]*:/, '');
  // `file:///a` and `res://a` both live at resources/a.json; the build reports such collisions.
  const withoutScheme = afterScheme.replace(/^\/+/, '');
  const segments = withoutScheme.split('/').map(encodeKeySegment);
  // A trailing slash leaves an empty last segment; it still needs a visible name.
  const last = segments.pop()!;
  return ['resources', ...segments, `${last}.json`].join('/');
}

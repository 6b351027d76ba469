// Which file of the tree a request to `serve --http`'s static site names, worked out once: the
// request target is split into segments, each percent-decoded exactly once, `.` and empty
// segments dropped, `..` refused; every later step (the hidden-name rule, the `_headers` rules,
// serve-handler) sees only that result. Before this, the filter read the target with
// `new URL(target, base)`, which takes `//_worker.js` as the host `_worker.js`, while serve-handler
// read the same target as the path `/_worker.js` and served it.
//
// Hidden, in every spelling: any segment starting with `.` (`.git/config`, `.env`, the deploy
// hosts' `.assetsignore`) except the public discovery folder `/.well-known/`, and the hosts' build
// control files at the top of the tree (`_worker.js`, `_headers`, …), compared case-insensitively
// and without trailing dots, spaces or a `:stream` suffix, since some file systems (macOS, Windows) open `_WORKER.JS`
// or `_worker.js.` as `_worker.js`.
import { ROUTES_FILE, WORKER_FILE } from '../../../core/tree/manifest.js';
import { SHARD_RECORD_FILE } from '../../../tree-writer/shard-record.js';

/**
 * The files a host or the build reads to decide what to do, never content: `_headers`,
 * `_redirects` (Netlify, Cloudflare Pages), `_worker.js` (a file or, on Pages, a folder) and
 * `_routes.json`, and a shard part's record. Dotted ones (`.assetsignore`, `.nojekyll`) are
 * hidden by the dotfile rule.
 */
const CONTROL_FILES: ReadonlySet<string> = new Set([
  '_headers',
  '_redirects',
  WORKER_FILE,
  ROUTES_FILE,
  SHARD_RECORD_FILE,
]);

export const WELL_KNOWN_FOLDER = '.well-known';
/** A server card, should a tree ship one beside /mcp (the static site answers `/mcp/…`, /mcp itself is MCP). */
const SERVER_CARD_PATHS: ReadonlySet<string> = new Set(['mcp/server-card', 'mcp/server-card.json']);

export type StaticTarget =
  | {
      kind: 'path';
      /** The decoded segments, none empty, `.` or `..`. */
      segments: string[];
      /** `/a/b` decoded, for the `_headers` rules and messages. */
      urlPath: string;
      /** The same path re-encoded, for serve-handler (which decodes it once more, back to `segments`). */
      encodedPath: string;
    }
  | { kind: 'refused'; status: 400 | 404 };

/** The tree path a request target names, or why it is refused (400 unreadable, 404 hidden or outside). */
export function resolveStaticTarget(target: string): StaticTarget {
  // Origin-form only: an absolute-form target (`GET http://x/y`) or `*` names no file of ours.
  if (!target.startsWith('/')) return { kind: 'refused', status: 400 };
  const rawPath = target.replace(/[?#].*$/s, '');
  // A backslash is a separator for some clients and file systems and a name character for others.
  if (rawPath.includes('\\')) return { kind: 'refused', status: 404 };
  const segments: string[] = [];
  for (const raw of rawPath.split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return { kind: 'refused', status: 400 };
    }
    // An encoded separator or NUL would become a different path once joined to the folder.
    if (/[/\\\0]/.test(segment)) return { kind: 'refused', status: 404 };
    if (segment === '' || segment === '.') continue;
    if (segment === '..') return { kind: 'refused', status: 404 };
    segments.push(segment);
  }
  if (isHiddenTreePath(segments)) return { kind: 'refused', status: 404 };
  const trailingSlash = segments.length > 0 && rawPath.endsWith('/') ? '/' : '';
  return {
    kind: 'path',
    segments,
    urlPath: `/${segments.join('/')}${trailingSlash}`,
    encodedPath: `/${segments.map(encodeURIComponent).join('/')}${trailingSlash}`,
  };
}

/** The name a case-insensitive file system would open (Windows also drops trailing dots and `::$DATA`). */
function foldName(segment: string): string {
  return segment
    .normalize('NFC')
    .toLowerCase()
    .replace(/:.*$/s, '')
    .replace(/[. ]+$/, '');
}

/** Whether a tree path (its segments) is a dotfile or a control file, which the site never serves. */
export function isHiddenTreePath(segments: readonly string[]): boolean {
  const [top] = segments;
  if (top !== undefined && CONTROL_FILES.has(foldName(top))) return true;
  return segments.some((segment, index) => segment.startsWith('.') && !(index === 0 && segment === WELL_KNOWN_FOLDER));
}

/** Discovery documents any web page may read, whatever origins the server allows otherwise. */
export function isPublicDiscoveryPath(segments: readonly string[]): boolean {
  return (segments[0] === WELL_KNOWN_FOLDER && segments.length > 1) || SERVER_CARD_PATHS.has(segments.join('/'));
}

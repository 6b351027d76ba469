// The one thing the worker keeps between requests: its site object (edge-site.ts), built from the
// site's `mcp.json` once per manifest version and reused by every request of that version. The
// manifest is revalidated with its ETag once a minute (the `_headers` rule gives mcp.json
// max-age=60), so a host that swaps the static files under a running isolate is noticed; a new
// manifest of the same version (the same content hash) keeps the site object and its caches.
// Requests never share a pending load: workerd warns when one request's promise settles in
// another's context.
import { loadTree, type LoadedTree } from '../../core/tree-reading/loaded-tree.js';
import type { ReadOutcome, TreeSource } from '../../core/tree/tree-source.js';
import { MANIFEST_FILE } from '../../core/tree/manifest.js';
import { PackIndexCache, type PackFileSource } from '../../core/packs/pack-reader.js';

export const MANIFEST_RECHECK_MS = 60_000;

/** What the cache needs of a site object: the tree it was opened on. */
export interface SiteOfTree {
  readonly tree: LoadedTree;
}

/**
 * Builds a version's site object from its loaded tree and the files it was read from; `packCache`
 * is the version's one bounded cache of pack indexes and whole packs (DEFAULT_PACK_CACHE_LIMITS),
 * which its search reader already shares: the isolate's memory has one ceiling, not one per reader.
 */
export type OpenSite<Site extends SiteOfTree> = (
  tree: LoadedTree,
  packCache: PackIndexCache,
  files: TreeSource & PackFileSource,
) => Site;

interface CachedSite {
  /** Which site it came from (the asset binding, or an origin when fetching). */
  siteKey: string;
  site: SiteOfTree;
  etag?: string;
  checkedAtMs: number;
}

let cached: CachedSite | undefined;

/** A source that answers the manifest from a read already made, and everything else as `source` does. */
function withManifest(source: TreeSource, manifest: ReadOutcome): TreeSource {
  return {
    displayName: source.displayName,
    revalidateAfterMs: source.revalidateAfterMs,
    read: (relativePath, etag) =>
      relativePath === MANIFEST_FILE ? Promise.resolve(manifest) : source.read(relativePath, etag),
    close: () => source.close(),
  };
}

/**
 * The site object of `siteKey`'s current manifest, from this isolate's copy when it is fresh;
 * throws a readable Error when mcp.json is unusable. `files` gives the request's view of the site's
 * files (called only when the manifest must be read); a new version's site keeps the one it was
 * opened with, which holds only the site's binding (or the global fetch) and its root, the same
 * for every request of the site.
 */
export async function loadSiteForIsolate<Site extends SiteOfTree>(
  files: () => TreeSource & PackFileSource,
  siteKey: string,
  openSite: OpenSite<Site>,
  nowMs = Date.now(),
): Promise<Site> {
  const previous = cached?.siteKey === siteKey ? cached : undefined;
  // One site object type per isolate (the worker's): the cast names what openSite made.
  if (previous && nowMs - previous.checkedAtMs < MANIFEST_RECHECK_MS) return previous.site as Site;
  const source = files();
  const outcome = await source.read(MANIFEST_FILE, previous?.etag);
  if (outcome.status === 'not-modified' && previous) {
    previous.checkedAtMs = nowMs;
    return previous.site as Site;
  }
  const packCache = new PackIndexCache();
  const tree = await loadTree(withManifest(source, outcome), {
    packFiles: source,
    packCache,
    onProblem: (text) => console.error(`staticmcp worker: ${text}`),
  });
  const etag = outcome.status === 'ok' ? outcome.etag : undefined;
  // The same version under a new ETag (a redeploy of the same build): the site object stays.
  if (previous && previous.site.tree.manifestHash === tree.manifestHash) {
    cached = { ...previous, etag, checkedAtMs: nowMs };
    return previous.site as Site;
  }
  const site = openSite(tree, packCache, source);
  cached = { siteKey, site, etag, checkedAtMs: nowMs };
  return site;
}

/** Forgets the cached site (tests, and a tree that proved unreadable). */
export function forgetIsolateTree(): void {
  cached = undefined;
}

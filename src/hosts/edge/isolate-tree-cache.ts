// The one thing the worker keeps between requests: the loaded `mcp.json` of its site, per isolate.
// Every request would otherwise fetch and index the manifest before answering. The copy is
// revalidated with its ETag once a minute (the `_headers` rule gives mcp.json max-age=60), so a
// host that swaps the static files under a running isolate is noticed. Requests never share a
// pending load: workerd warns when one request's promise settles in another's context.
import { loadTree, type LoadedTree } from '../../core/tree-reading/loaded-tree.js';
import type { ReadOutcome, TreeSource } from '../../core/tree/tree-source.js';
import { MANIFEST_FILE } from '../../core/tree/manifest.js';
import { type PackTable, packTableOfManifest } from '../../core/packs/pack-table.js';
import { PackIndexCache, type PackFileSource } from '../../core/packs/pack-reader.js';

export const MANIFEST_RECHECK_MS = 60_000;

export interface IsolatePacks {
  table: PackTable;
  indexCache: PackIndexCache;
}

interface CachedTree {
  /** Which site the tree came from (the asset binding, or an origin when fetching). */
  siteKey: string;
  tree: LoadedTree;
  etag?: string;
  checkedAtMs: number;
  /**
   * The manifest's pack table (its tools' calls are read from packs; undefined: not packed), and
   * the isolate's bounded cache of their parsed indexes and whole packs (DEFAULT_PACK_CACHE_LIMITS:
   * 1,024 indexes, 8 MiB; 32 MiB of packs), new with each manifest since names change with content.
   */
  packs?: IsolatePacks;
}

let cached: CachedTree | undefined;

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
 * The site's tree, from this isolate's copy when it is fresh; throws a readable Error when mcp.json
 * is unusable. `source` is also the tree's byte source (packs, the search index): the copy keeps the
 * first request's source, which holds only the site's binding (or the global fetch) and its root,
 * the same for every request of the site.
 */
export async function loadTreeForIsolate(
  source: TreeSource & PackFileSource,
  siteKey: string,
  nowMs = Date.now(),
): Promise<LoadedTree> {
  const previous = cached?.siteKey === siteKey ? cached : undefined;
  if (previous && nowMs - previous.checkedAtMs < MANIFEST_RECHECK_MS) return previous.tree;
  const outcome = await source.read(MANIFEST_FILE, previous?.etag);
  if (outcome.status === 'not-modified' && previous) {
    previous.checkedAtMs = nowMs;
    return previous.tree;
  }
  // One bounded cache of indexes and whole packs per loaded tree, shared by its packed calls and its
  // search reader: the isolate's memory has one ceiling (DEFAULT_PACK_CACHE_LIMITS), not one per reader.
  const indexCache = new PackIndexCache();
  const tree = await loadTree(withManifest(source, outcome), {
    packFiles: source,
    packCache: indexCache,
    onProblem: (text) => console.error(`staticmcp worker: ${text}`),
  });
  const packs = outcome.status === 'ok' ? packTableOfManifest(outcome.text) : undefined;
  // A malformed table: its tools' calls answer as not precomputed, said once per load.
  if (packs && 'problem' in packs) console.error(`staticmcp worker: ${MANIFEST_FILE}: ${packs.problem}`);
  cached = {
    siteKey,
    tree,
    etag: outcome.status === 'ok' ? outcome.etag : undefined,
    checkedAtMs: nowMs,
    ...(packs && 'table' in packs ? { packs: { table: packs.table, indexCache } } : {}),
  };
  return tree;
}

/** The packs of the tree loadTreeForIsolate last gave for `siteKey`, if it is packed. */
export function isolatePacks(siteKey: string): IsolatePacks | undefined {
  return cached?.siteKey === siteKey ? cached.packs : undefined;
}

/** Forgets the cached tree (tests, and a tree that proved unreadable). */
export function forgetIsolateTree(): void {
  cached = undefined;
}

// The tree as the worker sees it: files fetched from the static site it is deployed with, through
// the host's asset binding (`env.ASSETS`, Cloudflare Pages and Workers static assets) or, where
// there is none (Netlify edge functions), an ordinary fetch of the same origin.
import { isHostFallback } from '../../core/mcp/host-fallback.js';
import type { ReadOutcome, TreeSource } from '../../core/mcp/tree-source.js';
import type { BytesOutcome, PackFileSource } from '../../core/packs/pack-reader.js';

/** What `env.ASSETS` offers, and what the global `fetch` offers too. */
export interface AssetFetcher {
  fetch(request: Request): Promise<Response>;
}

/** `tools/a b/c?.json` → `tools/a%20b/c%3F.json`: a `?` or `#` in a key must not end the path. */
function encodePath(relativePath: string): string {
  return relativePath.split('/').map(encodeURIComponent).join('/');
}

/**
 * One tree file's response: 'missing' for a 404, 410 or redirect, a 304 or 2xx response as it is;
 * other statuses throw (a failure must not be cached as an answer).
 */
async function fetchTreeFile(
  fetcher: AssetFetcher,
  siteRoot: URL,
  relativePath: string,
  headers: Record<string, string>,
): Promise<Response | 'missing'> {
  const response = await fetcher.fetch(
    new Request(new URL(encodePath(relativePath), siteRoot), { headers, redirect: 'manual' }),
  );
  if (response.status === 304) return response;
  if (response.status === 404 || response.status === 410 || (response.status >= 300 && response.status < 400)) {
    await response.body?.cancel();
    return 'missing';
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(`${relativePath}: the site answered HTTP ${response.status}`);
  }
  return response;
}

/**
 * Reads tree files below `siteRoot` (a URL ending in `/`). A 404 or a redirect is a missing file;
 * so is a page that stands in for a `.json` path (host-fallback.ts: Pages serves index.html for
 * unknown paths when a site has no 404.html); other failures throw, so they are not cached.
 */
export function createAssetTreeSource(fetcher: AssetFetcher, siteRoot: URL): TreeSource & PackFileSource {
  return {
    displayName: siteRoot.href,
    // A reader lives for one request, so a file read twice in it is fetched once.
    revalidateAfterMs: 30_000,
    async read(relativePath: string, etag?: string): Promise<ReadOutcome> {
      const headers: Record<string, string> = { accept: 'application/json' };
      if (etag !== undefined) headers['if-none-match'] = etag;
      const response = await fetchTreeFile(fetcher, siteRoot, relativePath, headers);
      if (response === 'missing') return { status: 'missing' };
      if (response.status === 304) return { status: 'not-modified' };
      if (relativePath.endsWith('.json') && (response.headers.get('content-type') ?? '').startsWith('text/html')) {
        await response.body?.cancel();
        return { status: 'missing' };
      }
      const text = await response.text();
      if (isHostFallback(relativePath, text)) return { status: 'missing' };
      return { status: 'ok', text, etag: response.headers.get('etag') ?? undefined };
    },
    /**
     * A pack or pack index, always whole: the asset binding is not relied on for byte ranges (the
     * packs are sized for it: core/packs). A fallback page comes back as bytes without the pack
     * magic, which the reader takes for a missing pack.
     */
    async readBytes(relativePath: string): Promise<BytesOutcome> {
      const response = await fetchTreeFile(fetcher, siteRoot, relativePath, { accept: 'application/octet-stream' });
      if (response === 'missing') return { status: 'missing' };
      return { status: 'ok', bytes: new Uint8Array(await response.arrayBuffer()), whole: true };
    },
    close() {},
  };
}

// The tree as the worker sees it: files fetched from the static site it is deployed with, through
// the host's asset binding (`env.ASSETS`, Cloudflare Pages and Workers static assets) or, where
// there is none (Netlify edge functions), an ordinary fetch of the same origin.
import { isHostFallback } from '../../core/tree-reading/host-fallback.js';
import type { ReadOutcome, TreeSource } from '../../core/tree/tree-source.js';
import type { ByteRange, BytesOutcome, PackFileSource } from '../../core/packs/pack-reader.js';

/** What `env.ASSETS` offers, and what the global `fetch` offers too. */
export interface AssetFetcher {
  fetch(request: Request): Promise<Response>;
}

/** `tools/a b/c?.json` → `tools/a%20b/c%3F.json`: a `?` or `#` in a key must not end the path. */
function encodePath(relativePath: string): string {
  return relativePath.split('/').map(encodeURIComponent).join('/');
}

/**
 * One tree file's response: 'missing' for a 404, 410 or redirect, a 304, 416 (a range past the
 * file's end) or 2xx response as it is; other statuses throw (a failure must not be cached as an
 * answer), as does a fetch that fails twice.
 */
async function fetchTreeFile(
  fetcher: AssetFetcher,
  siteRoot: URL,
  relativePath: string,
  headers: Record<string, string>,
): Promise<Response | 'missing'> {
  const url = new URL(encodePath(relativePath), siteRoot);
  let response: Response;
  try {
    response = await fetcher.fetch(new Request(url, { headers, redirect: 'manual' }));
  } catch {
    // The fetch failed as a whole, with no status (a kept-alive connection the host had just
    // closed): a tree read changes nothing, so it is asked once more; a second failure throws.
    response = await fetcher.fetch(new Request(url, { headers, redirect: 'manual' }));
  }
  if (response.status === 304 || response.status === 416) return response;
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

/** workerd's extension of the BYOB reader: fills a view with at least `minBytes` (fewer only at the end). */
interface ReadAtLeastReader {
  readAtLeast(minBytes: number, view: Uint8Array): Promise<{ done: boolean; value?: Uint8Array }>;
  cancel(reason?: unknown): Promise<void>;
}

const CUT_READ_BYTES = 1024 * 1024;
/**
 * Packs up to this size are read whole with arrayBuffer(), kept or not: workerd reads a body
 * natively there, while a JavaScript loop over its chunks costs more CPU per byte than the bytes
 * it saves (650,000 documents, bench/search-query.mjs: a warm query 19.5 → 16.4 ms CPU p50). A
 * larger one the index names is cut as it streams. A host file is 25 MiB at most on Cloudflare.
 */
const WHOLE_READ_BYTES = 4 * 1024 * 1024;
/** What a cut read allocates first when the host sends no Content-Length (it then doubles). */
const FIRST_CUT_BYTES = 256 * 1024;

/** The body length a response declares, when it declares a sound one. */
function lengthOf(response: Response): number | undefined {
  const header = response.headers.get('content-length');
  const length = header === null ? Number.NaN : Number(header);
  return Number.isSafeInteger(length) && length >= 0 ? length : undefined;
}
/**
 * Read buffers that finished reads handed back, for the next reads of the isolate (a query reads
 * a few packs at once): a MiB each per read was garbage the isolate carried (92 MiB of
 * ArrayBuffers after 1,000 queries at 650,000 documents). Plain memory, shared across requests.
 */
const spareReadBuffers: ArrayBuffer[] = [];
const MAX_SPARE_READ_BUFFERS = 4;

/** The chunks of `body`: a MiB at a time where the runtime offers readAtLeast (workerd), else as they come. */
async function* chunksOf(body: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  let byob: ReadAtLeastReader | undefined;
  try {
    const reader = (body as unknown as { getReader(options: { mode: 'byob' }): unknown }).getReader({ mode: 'byob' });
    if (typeof (reader as Partial<ReadAtLeastReader>).readAtLeast === 'function') byob = reader as ReadAtLeastReader;
    // Elsewhere (Deno, browsers, Node) the stream is read as it comes: hand it back uncancelled.
    else (reader as ReadableStreamBYOBReader).releaseLock();
  } catch {
    // Not a byte stream: read it as it comes.
  }
  if (!byob) {
    const reader = body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        yield value;
      }
    } finally {
      await reader.cancel().catch(() => undefined);
    }
  }
  // Each read gives the buffer back (transferred): the next read fills it again. A chunk is used
  // before the next one is asked for, so the buffer is free again when the reading ends.
  let buffer = spareReadBuffers.pop() ?? new ArrayBuffer(CUT_READ_BYTES);
  try {
    for (;;) {
      const { done, value } = await byob.readAtLeast(CUT_READ_BYTES, new Uint8Array(buffer));
      if (value && value.length > 0) {
        // Before the yield: a reader that stops here never comes back to this line.
        buffer = value.buffer as ArrayBuffer;
        yield value;
      }
      if (done || !value || value.length < CUT_READ_BYTES) return;
    }
  } finally {
    await byob.cancel().catch(() => undefined);
    // A read that failed may have left it detached (no bytes): such a buffer is not handed on.
    if (buffer.byteLength === CUT_READ_BYTES && spareReadBuffers.length < MAX_SPARE_READ_BUFFERS)
      spareReadBuffers.push(buffer);
  }
}

/**
 * A whole file's body where `range` was asked: all of it when the reader keeps it, else only the
 * bytes of `range`, read no further than their end. At 650,000 documents a search index's term
 * packs were ~14 MB each; holding two per query made an isolate's ArrayBuffers reach 95 MiB of
 * garbage after 1,000 queries. A body longer than the index says is read one byte past that
 * length, a short one as far as it goes: the reader refuses either as a truncated or replaced pack.
 */
async function readWholeOrCut(
  body: ReadableStream<Uint8Array>,
  range: ByteRange,
  contentLength: number | undefined,
): Promise<BytesOutcome> {
  const whole = range.keepsWhole;
  const wanted = whole ? { offset: 0, length: range.fileLength + 1 } : range;
  // Sized by what the host says it sends, not by what the index promised: a damaged index can
  // promise a 24 MiB record in a pack of a few hundred bytes, and allocating (and zeroing) the
  // promise for every call cost the isolate its memory and half a second of CPU a call. A body
  // without a length, or longer than it said, grows the buffer by doubling.
  const expected = contentLength === undefined ? FIRST_CUT_BYTES : Math.max(contentLength - wanted.offset, 0);
  let kept = new Uint8Array(Math.min(wanted.length, expected));
  let position = 0;
  let filled = 0;
  // Leaving the loop early cancels the body: the rest of the file is not transferred.
  for await (const chunk of chunksOf(body)) {
    const start = Math.max(wanted.offset - position, 0);
    const end = Math.min(wanted.offset + wanted.length - position, chunk.length);
    if (end > start) {
      if (filled + end - start > kept.length) {
        const grown = new Uint8Array(Math.min(wanted.length, Math.max(filled + end - start, kept.length * 2)));
        grown.set(kept.subarray(0, filled));
        kept = grown;
      }
      kept.set(chunk.subarray(start, end), filled);
      filled += end - start;
    }
    position += chunk.length;
    if (filled === wanted.length) break;
  }
  return { status: 'ok', bytes: kept.subarray(0, filled), whole };
}

/**
 * Reads tree files below `siteRoot` (a URL ending in `/`). A 404 or a redirect is a missing file;
 * so is a page that stands in for a `.json` path (host-fallback.ts: Pages serves index.html for
 * unknown paths when a site has no 404.html); other failures throw, so they are not cached.
 */
export function createAssetTreeSource(fetcher: AssetFetcher, siteRoot: URL): TreeSource & PackFileSource {
  return {
    displayName: siteRoot.href,
    // The asset binding answers a range with the whole file (miniflare and Cloudflare alike).
    sendsWholeFiles: true,
    // The reader of a manifest version (edge-site.ts) keeps a parsed file this long before asking again.
    revalidateAfterMs: 30_000,
    async read(relativePath: string, etag?: string): Promise<ReadOutcome> {
      const headers: Record<string, string> = { accept: 'application/json' };
      if (etag !== undefined) headers['if-none-match'] = etag;
      const response = await fetchTreeFile(fetcher, siteRoot, relativePath, headers);
      if (response === 'missing') return { status: 'missing' };
      if (response.status === 304) return { status: 'not-modified' };
      if (response.status === 416) {
        await response.body?.cancel();
        throw new Error(`${relativePath}: the site answered HTTP 416 to a request without a range`);
      }
      if (relativePath.endsWith('.json') && (response.headers.get('content-type') ?? '').startsWith('text/html')) {
        await response.body?.cancel();
        return { status: 'missing' };
      }
      const text = await response.text();
      if (isHostFallback(relativePath, text)) return { status: 'missing' };
      return { status: 'ok', text, etag: response.headers.get('etag') ?? undefined };
    },
    /**
     * A pack or pack index, or a range of it with a Range request: a 206 for the range asked is
     * the record alone; a host that ignores ranges (the Workers asset binding does, in miniflare and
     * on Cloudflare alike) answers the whole file, which the reader cuts (and keeps, when it
     * keeps the pack), or, for a pack over WHOLE_READ_BYTES, which is cut here as it streams. A
     * fallback page is a missing file: by its type, or, sent as something else, by bytes without
     * the pack magic.
     */
    async readBytes(relativePath: string, range?: ByteRange): Promise<BytesOutcome> {
      const wanted = range && range.length > 0 ? range : undefined;
      const response = await fetchTreeFile(fetcher, siteRoot, relativePath, {
        accept: 'application/octet-stream',
        ...(wanted ? { range: `bytes=${wanted.offset}-${wanted.offset + wanted.length - 1}` } : {}),
      });
      if (response === 'missing') return { status: 'missing' };
      // The file is shorter than the range: the reader refuses the shortfall as a damaged pack.
      if (response.status === 416) {
        await response.body?.cancel();
        return { status: 'ok', bytes: new Uint8Array(0), whole: false };
      }
      // A pack is never a page: one is the host's stand-in for a file it lacks.
      if ((response.headers.get('content-type') ?? '').startsWith('text/html')) {
        await response.body?.cancel();
        return { status: 'missing' };
      }
      if (response.status !== 206 && wanted && response.body && wanted.fileLength > WHOLE_READ_BYTES)
        return readWholeOrCut(response.body, wanted, lengthOf(response));
      const bytes = new Uint8Array(await response.arrayBuffer());
      if (response.status !== 206) return { status: 'ok', bytes, whole: true };
      // A 206 for another range than asked (or several) is not the record: refused as short.
      const start = /^bytes (\d+)-/.exec(response.headers.get('content-range') ?? '')?.[1];
      if (!wanted || Number(start) !== wanted.offset) return { status: 'ok', bytes: new Uint8Array(0), whole: false };
      return { status: 'ok', bytes, whole: false };
    },
    close() {},
  };
}

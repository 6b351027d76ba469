// A document's page: the `url` search and fetch answer and the page a resource lists (issue #39).
// The tree stores it as its canonical absolute http(s) URL, or relative to the tree's root (a
// built site's page `guide/`, else the landing page's own view `?doc=<id>`, or
// `staticmcp.html?doc=<id>` when a site brings its index.html), so one tree answers correctly on
// any origin. Every host makes it absolute when answering, here: from the tree's publicUrl, else
// from the origin the request was addressed to (the edge, `serve --http`); `""` when neither is
// known (stdio without publicUrl). Portable: no node:.
import type { ToolResult } from '../results/tool-result.js';
import { isObject, type JsonObject } from '../tree/json-object.js';

/** The `_meta` key of a resource definition that holds its page (stored form in mcp.json, absolute in answers). */
export const DOCUMENT_URL_META_KEY = 'staticmcp/url';
/** Where the landing page moves when a built website brings its own index.html (its view's path then). */
export const MOVED_LANDING_FILE = 'staticmcp.html';
/** The query parameter of the landing page's document view (shared with the playground). */
export const DOCUMENT_VIEW_PARAMETER = 'doc';

/** Whether `value` is an absolute http(s) URL (the only canonical pages a document may claim). */
export function isHttpUrl(value: string): boolean {
  // No scheme, no absolute URL: every document's own view (`?doc=…`) is answered without a parse.
  if (!value.includes(':')) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.host !== '';
  } catch {
    return false;
  }
}

/** The characters encodeURIComponent leaves as they are, and `/`. */
const UNESCAPED_ID = /^[A-Za-z0-9_.!~*'()/-]*$/;

/** The landing page's view of one document, relative to the tree's root: `<landing>?doc=<id>`. */
export function documentViewUrl(id: string, landingFile = ''): string {
  // `/` stays readable in the query (it needs no escaping there), the rest is escaped. An id of
  // only what encodeURIComponent leaves as it is (most tree paths) goes in without a new string.
  const query = UNESCAPED_ID.test(id) ? id : encodeURIComponent(id).replace(/%2F/g, '/');
  return `${landingFile}?${DOCUMENT_VIEW_PARAMETER}=${query}`;
}

/** The base stored urls are resolved against: publicUrl, else the request's origin; undefined when neither. */
export function documentUrlBase(publicUrl: string | undefined, requestOrigin: string | undefined): string | undefined {
  const base = publicUrl ?? requestOrigin;
  if (base === undefined || !isHttpUrl(base)) return undefined;
  return base.endsWith('/') ? base : `${base}/`;
}

/** A stored url made absolute: as it is when absolute, resolved against `base` when relative, else "". */
export function resolveDocumentUrl(stored: string, base: string | undefined): string {
  if (stored === '' || isHttpUrl(stored)) return stored;
  if (base === undefined) return '';
  try {
    // A root-relative path would leave a publicUrl's own path (a GitHub Pages project site).
    return new URL(stored.replace(/^\/+/, ''), base).href;
  } catch {
    return '';
  }
}

function withResolvedUrl(value: unknown, base: string | undefined): unknown {
  if (!isObject(value) || typeof value.url !== 'string') return value;
  return { ...value, url: resolveDocumentUrl(value.url, base) };
}

/**
 * A search or fetch result with its urls made absolute (the structured content, and the text item
 * that holds the same JSON). Anything else passes as it is.
 */
export function resolveResultUrls(result: ToolResult, base: string | undefined): ToolResult {
  const structured = result.structuredContent;
  if (result.isError || structured === undefined) return result;
  const resolved: Record<string, unknown> = Array.isArray(structured.results)
    ? { ...structured, results: structured.results.map((hit) => withResolvedUrl(hit, base)) }
    : (withResolvedUrl(structured, base) as Record<string, unknown>);
  return {
    ...result,
    content: result.content.map((item, index) =>
      index === 0 && item.type === 'text' ? { ...item, text: JSON.stringify(resolved) } : item,
    ),
    structuredContent: resolved,
  };
}

/** A resource definition as listed: its page made absolute, or left out when it cannot be. */
export function resolveResourcePage(definition: JsonObject, base: string | undefined): JsonObject {
  const meta = definition._meta;
  if (!isObject(meta) || typeof meta[DOCUMENT_URL_META_KEY] !== 'string') return definition;
  const url = resolveDocumentUrl(meta[DOCUMENT_URL_META_KEY], base);
  const { [DOCUMENT_URL_META_KEY]: _stored, ...rest } = meta;
  const _meta = url === '' ? rest : { ...rest, [DOCUMENT_URL_META_KEY]: url };
  const { _meta: _old, ...fields } = definition;
  return Object.keys(_meta).length > 0 ? { ...fields, _meta } : fields;
}

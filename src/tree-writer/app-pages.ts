// An MCP App's page as its own document in the tree (`apps/<key>/index.html`), which the
// playground frames with sandbox="allow-scripts": the page with its declared CSP as a <meta> (every
// host), and a `_headers` rule giving the same policy plus `sandbox allow-scripts` (hosts that
// read `_headers`: the page has an opaque origin even when opened on its own). The policy is the
// MCP Apps spec's default for a host's sandbox (inline code, no network) widened only by the
// domains the app declared in its ui.meta.json (discover-apps.ts checked they are https origins).
import { APP_MIME_TYPE, appPageFolder } from '../core/tree/mcp-apps.js';
import { isObject, type JsonObject } from '../core/tree/json-object.js';

/** The folder of the app pages (core's appPageFolder names the same one) and the bridge's file, both the build's. */
export const APP_PAGES_FOLDER = 'apps';
export const APP_HOST_FILE = 'app-host.js';

export interface AppPage {
  /** The file in the tree (`apps/<key>/index.html`). */
  filePath: string;
  /** The URL path `_headers` names (`/apps/<key>/`, and what is under it). */
  urlPattern: string;
  html: string;
  policy: string;
}

/** The app pages of a tree's resources: those of the extension's MIME type with text content. */
export function appPagesOf(
  resources: readonly {
    uri: string;
    mimeType: string;
    content: { text: string } | { blob: string };
    meta?: Record<string, unknown>;
  }[],
): AppPage[] {
  const pages: AppPage[] = [];
  for (const resource of resources) {
    if (resource.mimeType !== APP_MIME_TYPE || !('text' in resource.content)) continue;
    const folder = appPageFolder(resource.uri);
    const policy = appPolicy(isObject(resource.meta) ? resource.meta : undefined);
    pages.push({
      filePath: `${folder}index.html`,
      urlPattern: `/${folder}*`,
      html: withPolicyMeta(resource.content.text, policy),
      policy,
    });
  }
  return pages;
}

/** Only https origins (the build checked them); anything else is dropped here too, never written into a policy. */
function declaredOrigins(csp: JsonObject, key: string): string[] {
  const list = csp[key];
  return Array.isArray(list)
    ? list.filter((item): item is string => typeof item === 'string' && /^(https|wss):\/\/[A-Za-z0-9.*:-]+$/.test(item))
    : [];
}

function appPolicy(meta: JsonObject | undefined): string {
  const ui = isObject(meta?.ui) ? meta.ui : {};
  const csp = isObject(ui.csp) ? ui.csp : {};
  const resources = declaredOrigins(csp, 'resourceDomains');
  const connect = declaredOrigins(csp, 'connectDomains');
  const frames = declaredOrigins(csp, 'frameDomains');
  const sources = (base: string, extra: string[]): string => [base, ...extra].join(' ');
  return [
    "default-src 'none'",
    sources("script-src 'unsafe-inline'", resources),
    sources("style-src 'unsafe-inline'", resources),
    sources('img-src data:', resources),
    sources('font-src data:', resources),
    sources('media-src data:', resources),
    connect.length > 0 ? sources('connect-src', connect) : "connect-src 'none'",
    frames.length > 0 ? sources('frame-src', frames) : "frame-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

/** The page with its policy as the first thing the parser sees after the doctype (before any of its scripts). */
function withPolicyMeta(html: string, policy: string): string {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${policy.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}">`;
  const doctype = /^\uFEFF?\s*<!doctype[^>]*>/i.exec(html);
  return doctype ? `${doctype[0]}\n${meta}${html.slice(doctype[0].length)}` : `${meta}\n${html}`;
}

/** `_headers` rules for the app pages: their policy, and an opaque origin wherever they are opened. */
export function renderAppPageHeaders(pages: readonly AppPage[]): string[] {
  return pages.map((page) => `${page.urlPattern}\n  Content-Security-Policy: ${page.policy}; sandbox allow-scripts\n`);
}

// The MCP Apps extension (io.modelcontextprotocol/ui, stable 2026-01-26) as the tree carries it:
// a UI is a `ui://` resource of the extension's MIME type, and a tool names its UI in
// `_meta.ui.resourceUri`. Shared by the build (which writes them) and every host (which declares
// the extension when a tree has one). Portable: no node:, Buffer or process.
import { isObject, type JsonObject } from './json-object.js';
import { resourceFilePath } from './resource-key.js';

export const APPS_EXTENSION_ID = 'io.modelcontextprotocol/ui';
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';
export const APP_URI_SCHEME = 'ui://';
/**
 * The flat `_meta` key the spec deprecates for `_meta.ui.resourceUri`; ext-apps' own
 * registerAppTool still writes both, for hosts that read only this one, and so does the build.
 */
export const FLAT_RESOURCE_URI_KEY = 'ui/resourceUri';

/** The extension's settings as a server declares them in `capabilities.extensions`. */
export function appsExtensionSettings(): JsonObject {
  return { mimeTypes: [APP_MIME_TYPE] };
}

/** Whether a resource definition is an MCP App (a `ui://` URI or the extension's MIME type). */
export function isAppResource(definition: JsonObject): boolean {
  return (
    (typeof definition.uri === 'string' && definition.uri.startsWith(APP_URI_SCHEME)) ||
    definition.mimeType === APP_MIME_TYPE
  );
}

/** Whether a tool definition names a UI (`_meta.ui.resourceUri`, or the deprecated flat `ui/resourceUri`). */
export function namesAppResource(definition: JsonObject): boolean {
  const meta = definition._meta;
  if (!isObject(meta)) return false;
  return (
    (isObject(meta.ui) && typeof meta.ui.resourceUri === 'string') || typeof meta[FLAT_RESOURCE_URI_KEY] === 'string'
  );
}

/**
 * Where the tree serves an app's page as its own document (`apps/<resource key>/`), for the
 * playground's sandboxed iframe: the resource's file is JSON, and a `srcdoc` frame would inherit
 * the landing page's CSP, which blocks the app's inline scripts. A folder, so every host serves it
 * at the same URL (Cloudflare Pages and `serve --http` redirect `…/index.html` to `…/`).
 */
export function appPageFolder(uri: string): string {
  return `${resourceFilePath(uri)
    .replace(/^resources\//, 'apps/')
    .replace(/\.json$/, '')}/`;
}

// Files that make a tree pleasant on static hosts: `.nojekyll` (GitHub Pages must not hide
// anything), `_headers` (Netlify/Cloudflare Pages: cache rules, the page's CSP), an `index.html`
// telling a human what this server offers and how to connect, and letting them try it (the
// playground script, src/page, inlined with its hash in the page's Content-Security-Policy), a `404.html` so a miss is a 404 on every host, the edge worker
// (`_worker.js`, bundled when the package was built) with `_routes.json` so only `/mcp` runs
// code. A packed tree's `_headers` also makes its packs immutable in caches. The discovery files (server.json, the server card, the AI Catalog) are discovery-files.ts's;
// this file gives them their `_headers` rules.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { INSTALL_HINT, STATICMCP_COMMAND } from '../shared/staticmcp-command.js';
import { DEFAULT_CACHE_TTL_SECONDS, ROUTES_FILE, WORKER_FILE, type Manifest } from '../core/tree/manifest.js';
import {
  AI_CATALOG_FILE,
  AI_CATALOG_MEDIA_TYPE,
  REGISTRY_AUTH_FILE,
  SERVER_CARD_FILE,
  SERVER_CARD_MEDIA_TYPE,
} from './server-card.js';
import { treeJsonFile } from '../core/tree/canonical-json.js';
import { APP_HOST_FILE, type AppPage, renderAppPageHeaders } from './app-pages.js';

/** The tree's folders and files answered from the build (each fresh for the owner's TTL). */
const CACHED_PATHS = ['/tools/*', '/resources/*', '/prompts/*', '/completions.json'];

/**
 * The `_headers` file: call and resource files are fresh for the owner's TTL (`cache.ttlSeconds`,
 * the same number the MCP answers give as `ttlMs`); mcp.json for at most a minute, because it is
 * how the edge worker and other bridges notice a new build.
 *
 * Cloudflare and Netlify join the values of every rule that matches a path, so no header is set
 * by two rules that can match one path: a `/*.json` rule beside `/mcp.json` gave mcp.json two
 * Cache-Control values (a cache reading the first kept it 300 s). No rule sets Content-Type: the
 * hosts already serve `.json` as JSON, and a rule would label a host's HTML fallback page JSON.
 * The landing page's Content-Security-Policy is set on `/` and `/index.html` only, by no other rule.
 */
function renderHeaders(
  ttlSeconds: number,
  discovery: DiscoveryHeaders,
  packs: boolean,
  appPages: readonly AppPage[],
): string {
  const cached = (pattern: string): string =>
    `${pattern}\n  Cache-Control: public, max-age=${ttlSeconds}, must-revalidate\n`;
  const headers = [
    '/*\n  Access-Control-Allow-Origin: *\n  X-Content-Type-Options: nosniff\n',
    `/mcp.json\n  Cache-Control: public, max-age=${Math.min(ttlSeconds, MANIFEST_MAX_AGE_SECONDS)}, must-revalidate\n`,
    ...CACHED_PATHS.map(cached),
    ...discoveryHeaderRules(discovery),
    renderPageHeaders(appPages.length > 0),
    ...renderAppPageHeaders(appPages),
  ].join('\n');
  return packs ? withPacksHeaderRule(headers) : headers;
}

/**
 * A packed tree's `_headers`: the unpacked tree's plus one rule for packs/. A pack or index is
 * named by its content (pack-writer.ts), so the bytes at its URL never change and a cache may keep
 * them for a year without asking again (a new build writes new names, and mcp.json, fresh for a
 * minute, points at them). Appended last, so a shard part's `_headers` (never packed) becomes the
 * one-machine build's when `staticmcp merge` packs the merged tree. No other rule matches
 * `/packs/*`, so Cache-Control is set once. Only in packed trees: an unpacked tree's `_headers`
 * stays byte-identical to what other StaticMCP bridges and earlier builds know.
 */
export function withPacksHeaderRule(headers: string): string {
  return `${headers}\n${PACKS_RULE}`;
}

const PACKS_RULE = '/packs/*\n  Cache-Control: public, max-age=31536000, immutable\n';

/** Which discovery files the tree has, so `_headers` types exactly those. */
export interface DiscoveryHeaders {
  card: boolean;
  registryAuth: boolean;
}

/**
 * The discovery files' own media types, which no host infers (the card has no extension; the
 * catalog is `.json` but has its own type): written only beside the files, so a rule never labels
 * a host's page for a miss. Cached for an hour, as the server-card draft recommends (the card is
 * advisory: a client checks it against server/discover). `Access-Control-Allow-Origin: *` comes
 * from `/*` (set twice, the hosts would join the values); the card also lets pages read its ETag.
 */
function discoveryHeaderRules({ card, registryAuth }: DiscoveryHeaders): string[] {
  const rules: string[] = [];
  if (card) {
    rules.push(
      `/${SERVER_CARD_FILE}\n  Content-Type: ${SERVER_CARD_MEDIA_TYPE}\n  Cache-Control: public, max-age=${DISCOVERY_MAX_AGE_SECONDS}\n  Access-Control-Expose-Headers: ETag\n`,
      `/${AI_CATALOG_FILE}\n  Content-Type: ${AI_CATALOG_MEDIA_TYPE}\n  Cache-Control: public, max-age=${DISCOVERY_MAX_AGE_SECONDS}\n`,
    );
  }
  if (registryAuth) rules.push(`/${REGISTRY_AUTH_FILE}\n  Content-Type: text/plain; charset=utf-8\n`);
  return rules;
}

const DISCOVERY_MAX_AGE_SECONDS = 3600;

/**
 * The page a host serves for a path that is not in the tree. Without one, Cloudflare Pages
 * answers every missing path with index.html and status 200, which a reader of the tree can
 * only take for a broken file; with it, a miss is a 404 everywhere.
 */
function renderNotFoundHtml(manifest: Manifest): string {
  const title = escapeHtml(manifest.serverInfo.title ?? manifest.serverInfo.name);
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Not found — ${title}</title></head>
<body>
<h1>Not found</h1>
<p>This address is not part of the MCP server <strong>${title}</strong>: no precomputed answer, resource or page is stored here. The front page of this site says what the server offers and how to connect to it.</p>
</body>
</html>
`;
}

const MANIFEST_MAX_AGE_SECONDS = 60;

export const NOT_FOUND_FILE = '404.html';
export const HEADERS_FILE = '_headers';

/** Cloudflare Pages: run `_worker.js` for `/mcp` only; every other path is served as a static file, free and uncounted. */
const ROUTES = treeJsonFile({ version: 1, include: ['/mcp'], exclude: [] });

/** Where `npm run build` puts the bundled worker, beside this module's folder (dist/edge/_worker.js). */
const WORKER_BUNDLE_URL = new URL('../edge/_worker.js', import.meta.url);

/** Where `npm run build` puts the page script (scripts/bundle-page.mjs): dist/page/playground.js. */
const PAGE_BUNDLE_URL = new URL('../page/playground.js', import.meta.url);

/**
 * The playground's MCP Apps host (ext-apps' AppBridge, src/page/app-host.ts), bundled beside the
 * page script: about 0.5 MB (the SDK and zod), so it is its own file, written only into trees that
 * have apps, and loaded by the page only when a tool's app is shown (its hash is in the page's CSP).
 */
const APP_HOST_BUNDLE_URL = new URL('../page/app-host.js', import.meta.url);
let appHostScript: string | null | undefined;

/** The bundled app host, or null when this staticmcp was compiled without it (tsc alone). */
function readAppHostScript(): string | null {
  if (appHostScript === undefined) {
    try {
      appHostScript = readFileSync(APP_HOST_BUNDLE_URL, 'utf8');
    } catch {
      appHostScript = null;
    }
  }
  return appHostScript;
}

let template: string | undefined;
let style: string | undefined;
let pageScript: string | undefined;
let workerBundle: string | null | undefined;

/** The bundled worker, or null when this copy of staticmcp was compiled without it (tsc alone). */
function readWorkerBundle(): string | null {
  if (workerBundle === undefined) {
    try {
      workerBundle = readFileSync(WORKER_BUNDLE_URL, 'utf8');
    } catch {
      workerBundle = null;
    }
  }
  return workerBundle;
}

export interface DeployOptions {
  /** The site's public address from staticmcp.json, without a trailing slash. */
  publicUrl?: string;
  /** The discovery files this tree has (discovery-files.ts writes them). */
  discovery?: DiscoveryHeaders;
  /** `cache.ttlSeconds` from staticmcp.json (default DEFAULT_CACHE_TTL_SECONDS). */
  cacheTtlSeconds?: number;
  /** Tools with no precomputed call: index.html marks them live only. */
  liveOnlyTools?: readonly string[];
  /** Whether the build packs call files (pack-call-files.ts): `_headers` then has the packs/ rule. */
  packs?: boolean;
  /** The tree's MCP App pages (app-pages.ts): written with the app host, and the page may frame them. */
  appPages?: readonly AppPage[];
}

/** Element content only (quotes stay readable in a snippet's page source). */
function escapeText(text: string): string {
  return text.replace(/[&<>]/g, (character) => `&#${character.charCodeAt(0)};`);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** Tree text shown on the page is cut here (a 1 MB description stays in mcp.json, not in every page view). */
const PAGE_TEXT_LIMIT = 2000;

function clipText(text: string): string {
  return text.length <= PAGE_TEXT_LIMIT
    ? text
    : `${text.slice(0, PAGE_TEXT_LIMIT)}… (${text.length - PAGE_TEXT_LIMIT} more characters in mcp.json)`;
}

/** One entry of a list on the page: the playground script (src/page) finds it by its data attribute. */
function entries(
  kind: 'tool' | 'resource' | 'template' | 'prompt',
  items: { key: string; heading: string; mark?: string; title?: string; text?: string }[],
): string {
  if (items.length === 0) return '<p class="muted">None.</p>';
  const attribute = { tool: 'data-tool', resource: 'data-uri', template: 'data-template', prompt: 'data-prompt' }[kind];
  return items
    .map(
      (item) =>
        `<article class="${kind}" ${attribute}="${escapeHtml(item.key)}"><h3><code>${escapeHtml(item.heading)}</code>${item.mark ? ` <span class="mark">${escapeHtml(item.mark)}</span>` : ''}</h3>` +
        `${item.title ? `<p><strong>${escapeHtml(clipText(item.title))}</strong></p>` : ''}${item.text ? `<p>${escapeHtml(clipText(item.text))}</p>` : ''}` +
        `${kind === 'tool' ? '<div class="tool-run"></div>' : ''}</article>`,
    )
    .join('\n');
}

/**
 * One word of a shell command a person pastes: as it is when it holds nothing a shell reads,
 * else single-quoted (a tree someone else built may name its server `x; rm -rf ~`).
 */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_.,:/@%+=-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/** A snippet with its copy button (shown by the page script, which does the copying). */
function snippet(title: string, text: string, note?: string): string {
  return (
    `<div class="snippet-box"><div class="snippet-head"><h4>${title}</h4><button type="button" class="copy" aria-label="Copy: ${title.replace(/<[^>]*>/g, '')}" hidden>Copy</button></div>` +
    `${note ? `<p class="muted">${note}</p>` : ''}<pre class="snippet">${escapeText(text)}</pre></div>`
  );
}

/** The client snippets for the remote MCP URL and for the local bridge, named `name`, at `site` (ends in `/`). */
function connectSnippets(name: string, site: string): { remote: string; bridge: string } {
  const url = `${site}mcp`;
  const run = STATICMCP_COMMAND.join(' ');
  const json = (value: unknown): string => JSON.stringify(value, null, 2);
  const stdio = { command: STATICMCP_COMMAND[0], args: [...STATICMCP_COMMAND.slice(1), 'serve', site] };
  const remote = [
    snippet('Claude (claude.ai, Desktop)', url, 'Settings → Connectors → Add custom connector, with this URL.'),
    snippet(
      'ChatGPT',
      url,
      'Settings → Apps &amp; Connectors → Advanced settings → Developer mode, then Create a connector with this URL.',
    ),
    snippet('Claude Code', `claude mcp add --transport http ${shellWord(name)} ${url}`),
    snippet('VS Code (<code>.vscode/mcp.json</code>)', json({ servers: { [name]: { type: 'http', url } } })),
    snippet('Cursor (<code>.cursor/mcp.json</code>)', json({ mcpServers: { [name]: { url } } })),
    snippet('MCP Inspector', `npx @modelcontextprotocol/inspector --transport http --server-url ${url}`),
  ];
  const bridge = [
    snippet('Command', `${run} serve ${site}`),
    snippet('Claude Desktop (<code>claude_desktop_config.json</code>)', json({ mcpServers: { [name]: stdio } })),
    snippet('Claude Code', `claude mcp add ${shellWord(name)} -- ${run} serve ${site}`),
    snippet('VS Code (<code>.vscode/mcp.json</code>)', json({ servers: { [name]: { type: 'stdio', ...stdio } } })),
    snippet('Cursor (<code>.cursor/mcp.json</code>)', json({ mcpServers: { [name]: stdio } })),
    snippet('MCP Inspector', `npx @modelcontextprotocol/inspector ${run} serve ${site}`),
  ];
  return {
    remote: remote.join('\n'),
    bridge: `${bridge.join('\n')}\n<p class="muted">ChatGPT and Claude's connectors take a remote URL only: use the section above.</p>`,
  };
}

/** The bundled page script (dist/page/playground.js), or '' when this staticmcp was compiled without it (tsc alone). */
function readPageScript(): string {
  if (pageScript === undefined) {
    try {
      pageScript = readFileSync(PAGE_BUNDLE_URL, 'utf8').trimEnd();
    } catch {
      pageScript = '';
    }
    // Inline in a <script> element: these would end or confuse it (esbuild escapes them; checked anyway).
    if (/<\/script|<!--/i.test(pageScript))
      throw new Error(`${PAGE_BUNDLE_URL.pathname} cannot be inlined: it holds </script or <!--`);
  }
  return pageScript;
}

function sha256Of(text: string): string {
  return `sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}`;
}

function sha256Source(text: string): string {
  return `'${sha256Of(text)}'`;
}

/** The app host's hash (its `integrity` and its entry in the page's script-src), when the tree has apps and the bundle exists. */
function appHostHash(hasApps: boolean): string | undefined {
  const script = hasApps ? readAppHostScript() : null;
  return script === null ? undefined : sha256Of(script);
}

/**
 * The page's Content-Security-Policy: its own inline script and style by hash, requests to this
 * origin only (the tree's files and /mcp), images and audio from answers as inline data, nothing
 * else. The same text goes in a <meta> and, for hosts that read it, in `_headers`.
 */
function pagePolicy(script: string, style: string, appHost: string | undefined): string {
  return [
    "default-src 'none'",
    `script-src ${sha256Source(script)}${appHost ? ` '${appHost}'` : ''}`,
    `style-src ${sha256Source(style)}`,
    "img-src 'self' data:",
    "media-src 'self' data:",
    "connect-src 'self'",
    // The tree's app pages (apps/<key>/), framed sandboxed; nothing is framed in a tree without apps.
    ...(appHost ? ["frame-src 'self'"] : []),
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

/** The page's CSP as `_headers` serves it (frame-ancestors works only as a header). */
export function renderPageHeaders(hasApps = false): string {
  const policy = `${pagePolicy(readPageScript(), readPageStyle(), appHostHash(hasApps))}; frame-ancestors 'self'`;
  return ['/', '/index.html'].map((path) => `${path}\n  Content-Security-Policy: ${policy}\n`).join('\n');
}

function readPageStyle(): string {
  style ??= readFileSync(new URL('../../templates/index.css', import.meta.url), 'utf8').trimEnd();
  return style;
}

/** `liveOnlyTools`: tools with no precomputed call (only `serve --live` answers them, never this site's /mcp). */
export function renderIndexHtml(
  manifest: Manifest,
  publicUrl?: string,
  liveOnlyTools: readonly string[] = [],
  hasApps = false,
): string {
  template ??= readFileSync(new URL('../../templates/index.html', import.meta.url), 'utf8');
  const { serverInfo, capabilities } = manifest;
  // Without a known address the page fills in the one it is served from (src/page/playground.ts).
  const site = `${publicUrl ?? 'https://<where-you-deployed-this-folder>'}/`;
  const liveOnly = new Set(liveOnlyTools);
  const script = readPageScript();
  const css = readPageStyle();
  const snippets = connectSnippets(serverInfo.name, site);
  const appHost = appHostHash(hasApps);
  const values: Record<string, string> = {
    csp: escapeHtml(pagePolicy(script, css, appHost)),
    appHost: appHost ?? '',
    style: css,
    script,
    title: escapeHtml(clipText(serverInfo.title ?? serverInfo.name)),
    description: escapeHtml(clipText(serverInfo.description ?? manifest.instructions ?? '')),
    treeUrl: escapeHtml(site),
    runCommand: escapeHtml(STATICMCP_COMMAND.join(' ')),
    installHint: escapeHtml(INSTALL_HINT),
    remoteSnippets: snippets.remote,
    bridgeSnippets: snippets.bridge,
    toolCount: String(capabilities.tools.length),
    resourceCount: String(capabilities.resources.length),
    tools: entries(
      'tool',
      capabilities.tools.map((tool) => ({
        key: tool.name,
        heading: tool.name,
        title: tool.title,
        text: tool.description,
        mark: liveOnly.has(tool.name) ? 'live only' : undefined,
      })),
    ),
    liveOnlyNote:
      liveOnly.size === 0
        ? ''
        : "<p>Tools marked <em>live only</em> have no precomputed answer: only the project's scripts answer them, with <code>" +
          `${escapeHtml(STATICMCP_COMMAND.join(' '))} serve ${escapeHtml(site)} --live &lt;project folder&gt;</code>.</p>`,
    resources: entries(
      'resource',
      capabilities.resources.map((resource) => ({
        key: resource.uri,
        heading: resource.uri,
        title: resource.title ?? resource.name,
        text: resource.description,
      })),
    ),
    templateCount: String(capabilities.resourceTemplates?.length ?? 0),
    templates: entries(
      'template',
      (capabilities.resourceTemplates ?? []).map((template) => ({
        key: template.uriTemplate,
        heading: template.uriTemplate,
        title: template.title ?? template.name,
        text: template.description,
      })),
    ),
    promptCount: String(capabilities.prompts?.length ?? 0),
    prompts: entries(
      'prompt',
      (capabilities.prompts ?? []).map((prompt) => ({
        key: prompt.name,
        heading: prompt.name,
        title: prompt.title,
        text: `${prompt.description ?? ''}${prompt.arguments?.length ? ` (arguments: ${prompt.arguments.map((argument) => `${argument.name}${argument.required ? '' : '?'}`).join(', ')})` : ''}`,
      })),
    ),
  };
  // One pass: a value's own text (a tool description with `{{tools}}` in it) is never expanded again.
  return template.replace(/\{\{(\w+)\}\}/g, (placeholder, key: string) => values[key] ?? placeholder);
}

/** The deploy files that belong to the tree's content (and to its content hash). */
export function deployFiles(manifest: Manifest, options: DeployOptions): Map<string, string> {
  const hasApps = (options.appPages?.length ?? 0) > 0;
  const files = new Map([
    ['.nojekyll', ''],
    [
      HEADERS_FILE,
      renderHeaders(
        options.cacheTtlSeconds ?? DEFAULT_CACHE_TTL_SECONDS,
        {
          card: options.discovery?.card === true,
          registryAuth: options.discovery?.registryAuth === true,
        },
        options.packs === true,
        options.appPages ?? [],
      ),
    ],
    // Cloudflare Workers static assets: the worker's code, Pages' routing file and local secrets files are not assets to publish.
    ['.assetsignore', workerDeployFiles().get('.assetsignore')!],
    ['index.html', renderIndexHtml(manifest, options.publicUrl, options.liveOnlyTools, hasApps)],
    [NOT_FOUND_FILE, renderNotFoundHtml(manifest)],
    [ROUTES_FILE, ROUTES],
  ]);
  const appHost = hasApps ? readAppHostScript() : null;
  if (appHost !== null) {
    files.set(APP_HOST_FILE, appHost);
    for (const page of options.appPages ?? []) files.set(page.filePath, page.html);
  }
  return files;
}

/**
 * The worker's deploy files (`_routes.json`: only /mcp runs code on Pages; `.assetsignore`: the
 * worker and local secrets files are not assets), as deployFiles writes them: `staticmcp index` adds them to a tree that lacks them.
 */
export function workerDeployFiles(): Map<string, string> {
  return new Map([
    [ROUTES_FILE, ROUTES],
    // Local secrets files too: were one left in the tree, Workers static assets would publish it.
    ['.assetsignore', `${WORKER_FILE}\n${ROUTES_FILE}\n.dev.vars*\n.env*\n`],
  ]);
}

/**
 * The code a host runs beside the tree (`_worker.js`): the generator's, not the tree's content,
 * so it stays out of the content hash (a new staticmcp release does not make every tree "edited").
 * Null when this staticmcp was compiled without the bundle.
 */
export function runtimeFiles(): Map<string, string> | null {
  const bundle = readWorkerBundle();
  return bundle === null ? null : new Map([[WORKER_FILE, bundle]]);
}

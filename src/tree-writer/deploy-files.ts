// Files that make a tree pleasant on static hosts: `.nojekyll` (GitHub Pages must not hide
// anything), `_headers` (Netlify/Cloudflare Pages: cache rules), an `index.html` telling a human
// what this server offers and how to connect, a `404.html` so a miss is a 404 on every host, the edge worker
// (`_worker.js`, bundled when the package was built) with `_routes.json` so only `/mcp` runs
// code. A packed tree's `_headers` also makes its packs immutable in caches. The discovery files (server.json, the server card, the AI Catalog) are discovery-files.ts's;
// this file gives them their `_headers` rules.
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
 */
function renderHeaders(ttlSeconds: number, discovery: DiscoveryHeaders, packs: boolean): string {
  const cached = (pattern: string): string =>
    `${pattern}\n  Cache-Control: public, max-age=${ttlSeconds}, must-revalidate\n`;
  const headers = [
    '/*\n  Access-Control-Allow-Origin: *\n  X-Content-Type-Options: nosniff\n',
    `/mcp.json\n  Cache-Control: public, max-age=${Math.min(ttlSeconds, MANIFEST_MAX_AGE_SECONDS)}, must-revalidate\n`,
    ...CACHED_PATHS.map(cached),
    ...discoveryHeaderRules(discovery),
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

let template: string | undefined;
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
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

function definitionList(items: { term: string; text?: string; mark?: string }[]): string {
  if (items.length === 0) return '<dt>none</dt>';
  return items
    .map(
      (item) =>
        `<dt><code>${escapeHtml(item.term)}</code>${item.mark ? ` <em>${escapeHtml(item.mark)}</em>` : ''}</dt><dd>${escapeHtml(item.text ?? '')}</dd>`,
    )
    .join('\n');
}

/** `liveOnlyTools`: tools with no precomputed call (only `serve --live` answers them, never this site's /mcp). */
export function renderIndexHtml(manifest: Manifest, publicUrl?: string, liveOnlyTools: readonly string[] = []): string {
  template ??= readFileSync(new URL('../../templates/index.html', import.meta.url), 'utf8');
  const { serverInfo, capabilities } = manifest;
  const site = publicUrl !== undefined ? escapeHtml(publicUrl) : 'https://&lt;where-you-deployed-this-folder&gt;';
  const liveOnly = new Set(liveOnlyTools);
  const values: Record<string, string> = {
    title: escapeHtml(serverInfo.title ?? serverInfo.name),
    name: escapeHtml(serverInfo.name),
    description: escapeHtml(serverInfo.description ?? manifest.instructions ?? ''),
    remoteUrl: `${site}/mcp`,
    treeUrl: `${site}/`,
    // Without a known address the page fills in the one it is served from.
    fillAddress: publicUrl === undefined ? 'true' : 'false',
    // The local bridge's command line and its client-config form ("command" plus the leading "args");
    // our own words, free of HTML specials, so the quotes stay readable in the page source.
    runCommand: STATICMCP_COMMAND.join(' '),
    stdioCommand: JSON.stringify(STATICMCP_COMMAND[0]),
    stdioArgs: [...STATICMCP_COMMAND.slice(1), 'serve'].map((word) => JSON.stringify(word)).join(', '),
    installHint: escapeHtml(INSTALL_HINT),
    toolCount: String(capabilities.tools.length),
    resourceCount: String(capabilities.resources.length),
    tools: definitionList(
      capabilities.tools.map((tool) => ({
        term: tool.name,
        text: tool.title ? `${tool.title}: ${tool.description ?? ''}` : tool.description,
        mark: liveOnly.has(tool.name) ? 'live only' : undefined,
      })),
    ),
    liveOnlyNote:
      liveOnly.size === 0
        ? ''
        : "<p>Tools marked <em>live only</em> have no precomputed answer: the remote URL cannot answer them. Run the project's scripts with <code>" +
          `${escapeHtml(STATICMCP_COMMAND.join(' '))} serve ${site}/ --live &lt;project folder&gt;</code> to use them.</p>`,
    resources: definitionList(
      capabilities.resources.map((resource) => ({ term: resource.uri, text: resource.description })),
    ),
    templateCount: String(capabilities.resourceTemplates?.length ?? 0),
    templates: definitionList(
      (capabilities.resourceTemplates ?? []).map((template) => ({
        term: template.uriTemplate,
        text: template.description ?? template.title,
      })),
    ),
    promptCount: String(capabilities.prompts?.length ?? 0),
    prompts: definitionList(
      (capabilities.prompts ?? []).map((prompt) => ({
        term: prompt.name,
        text: `${prompt.description ?? ''}${prompt.arguments?.length ? ` (arguments: ${prompt.arguments.map((argument) => `${argument.name}${argument.required ? '' : '?'}`).join(', ')})` : ''}`,
      })),
    ),
  };
  return template.replace(/\{\{(\w+)\}\}/g, (placeholder, key: string) => values[key] ?? placeholder);
}

/** The deploy files that belong to the tree's content (and to its content hash). */
export function deployFiles(manifest: Manifest, options: DeployOptions): Map<string, string> {
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
      ),
    ],
    // Cloudflare Workers static assets: the worker's code and Pages' routing file are not assets to publish.
    ['.assetsignore', workerDeployFiles().get('.assetsignore')!],
    ['index.html', renderIndexHtml(manifest, options.publicUrl, options.liveOnlyTools)],
    [NOT_FOUND_FILE, renderNotFoundHtml(manifest)],
    [ROUTES_FILE, ROUTES],
  ]);
  return files;
}

/**
 * The worker's deploy files (`_routes.json`: only /mcp runs code on Pages; `.assetsignore`: the
 * worker is not an asset), as deployFiles writes them: `staticmcp index` adds them to a tree that lacks them.
 */
export function workerDeployFiles(): Map<string, string> {
  return new Map([
    [ROUTES_FILE, ROUTES],
    ['.assetsignore', `${WORKER_FILE}\n${ROUTES_FILE}\n`],
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

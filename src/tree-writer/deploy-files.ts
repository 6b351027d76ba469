// Files that make a tree pleasant on static hosts: `.nojekyll` (GitHub Pages must not hide
// anything), `_headers` (Netlify/Cloudflare Pages: cache rules, the page's CSP), an `index.html`
// telling a human what this server offers and how to connect, and letting them try it
// (landing-page.ts), a `404.html` so a miss is a 404 on every host, the edge worker
// (`_worker.js`, bundled when the package was built) with `_routes.json` so only `/mcp` runs
// code. A packed tree's `_headers` also makes its packs immutable in caches. The discovery files
// (server.json, the server card, the AI Catalog) are discovery-files.ts's; this file gives them
// their `_headers` rules.
import { readFileSync } from 'node:fs';
import { DEFAULT_CACHE_TTL_SECONDS, ROUTES_FILE, WORKER_FILE, type Manifest } from '../core/tree/manifest.js';
import {
  AI_CATALOG_FILE,
  AI_CATALOG_MEDIA_TYPE,
  REGISTRY_AUTH_FILE,
  SERVER_CARD_FILE,
  SERVER_CARD_MEDIA_TYPE,
} from './server-card.js';
import { treeJsonFile } from '../core/tree/canonical-json.js';
import type { SkillEntry } from '../core/tree/skills.js';
import { APP_HOST_FILE, type AppPage, renderAppPageHeaders } from './app-pages.js';
import {
  escapeHtml,
  type PageFacts,
  pageFactsOf,
  readAppHostScript,
  renderIndexHtml,
  renderPageHeaders,
} from './landing-page.js';

/** The tree's folders and files answered from the build (each fresh for the owner's TTL). */
const CACHED_PATHS = ['/tools/*', '/resources/*', '/prompts/*', '/completions.json'];
/**
 * Skill files and skills/list.json (core/tree/skills.ts), fresh for the same TTL: a rule only in
 * trees that have skills, so every other tree's `_headers` stays as it was.
 */
const SKILLS_PATH = '/skills/*';

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
  skills: boolean,
): string {
  const cached = (pattern: string): string =>
    `${pattern}\n  Cache-Control: public, max-age=${ttlSeconds}, must-revalidate\n`;
  const headers = [
    '/*\n  Access-Control-Allow-Origin: *\n  X-Content-Type-Options: nosniff\n',
    `/mcp.json\n  Cache-Control: public, max-age=${Math.min(ttlSeconds, MANIFEST_MAX_AGE_SECONDS)}, must-revalidate\n`,
    ...CACHED_PATHS.map(cached),
    ...(skills ? [cached(SKILLS_PATH)] : []),
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
  /** The tree's skills (discover-skills.ts): listed on the page, and `_headers` caches their files. */
  skills?: readonly SkillEntry[];
  /** Per-tool facts and whether the tree has a search index, for the landing page. */
  page?: PageFacts;
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
        (options.skills?.length ?? 0) > 0,
      ),
    ],
    // Cloudflare Workers static assets: the worker's code, Pages' routing file and local secrets files are not assets to publish.
    ['.assetsignore', workerDeployFiles().get('.assetsignore')!],
    [
      'index.html',
      renderIndexHtml(manifest, options.publicUrl, options.liveOnlyTools, hasApps, {
        ...(options.page ?? pageFactsOf(manifest)),
        skills: options.skills,
      }),
    ],
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

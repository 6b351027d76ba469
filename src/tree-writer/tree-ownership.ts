// Who owns what at the top of an output folder. The build owns these names (whether or not this
// build writes each one); everything else there is the user's: a gh-pages worktree's `.git`,
// `CNAME`, `robots.txt`, a favicon, files copied from the project's `public/` folder. A rebuild
// keeps the user's entries, the content hash leaves them out, and `check` does not flag them.
//
// `mcp/` is the build's (the MCP endpoint's own namespace: the server card lives at
// /mcp/server-card). `.well-known/` is the user's (public/.well-known/ is copied, a deploy target
// may hold one), except the discovery files the build writes there (BUILD_OWNED_NESTED_PATHS):
// those are the build's wherever they appear, so a stale one is never kept and a user's copy in
// public/ is refused with a message rather than silently replacing the build's.
import { MOVED_LANDING_FILE } from '../core/search/document-url.js';
import { MANIFEST_FILE, ROUTES_FILE, WORKER_FILE } from '../core/tree/manifest.js';
import { APP_HOST_FILE, APP_PAGES_FOLDER } from './app-pages.js';
import { AI_CATALOG_FILE, REGISTRY_AUTH_FILE } from './server-card.js';

/** Where the landing page moves when a built website (`site`) brings its own index.html. */
export const LANDING_PAGE_FILE = MOVED_LANDING_FILE;

export const BUILD_OWNED_TOP_LEVEL: ReadonlySet<string> = new Set([
  MANIFEST_FILE,
  WORKER_FILE,
  ROUTES_FILE,
  'index.html',
  '404.html',
  '_headers',
  '.nojekyll',
  '.assetsignore',
  'completions.json',
  'server.json',
  'mcp',
  'tools',
  'resources',
  'prompts',
  // Packed call files (issue #24): a rebuild that packs less, or not at all, must not keep old ones.
  'packs',
  // The resource list's parts past mcp.json's inline entries (core/tree/resource-list.ts).
  'lists',
  // MCP App pages as documents and the playground's bridge (app-pages.ts), in trees with apps.
  APP_PAGES_FOLDER,
  APP_HOST_FILE,
  // Skill files and their entries (core/tree/skills.ts), in trees with skills.
  'skills',
  LANDING_PAGE_FILE,
]);

/**
 * Files a build writes for content trees that a project may bring instead (public/ or its site
 * wins): not the build's to refuse, but never kept from a previous tree either, where they would be
 * stale (a build that no longer indexes anything, or whose project stopped bringing its own).
 */
const REWRITTEN_TOP_LEVEL: ReadonlySet<string> = new Set(['llms.txt', 'llms-full.txt']);

/** Whether a top-level entry of the previous tree stays when a build or merge replaces it. */
export function isKeptOnRebuild(name: string): boolean {
  return !BUILD_OWNED_TOP_LEVEL.has(name) && !REWRITTEN_TOP_LEVEL.has(name);
}

/** Files the build owns inside folders that are otherwise the user's. */
export const BUILD_OWNED_NESTED_PATHS: readonly string[] = [AI_CATALOG_FILE, REGISTRY_AUTH_FILE];

/** Whether a tree-relative path (`/`-separated) lies under a name the build owns. */
export function isBuildOwnedPath(treePath: string): boolean {
  return BUILD_OWNED_TOP_LEVEL.has(treePath.split('/', 1)[0] ?? '') || BUILD_OWNED_NESTED_PATHS.includes(treePath);
}

/**
 * What a deploy target holds before any tree was built into it (a gh-pages worktree, a host's
 * files): an output folder holding only these may be built into, and they are kept.
 */
export const DEPLOY_TARGET_FILES: ReadonlySet<string> = new Set([
  '.git',
  'CNAME',
  'robots.txt',
  '_redirects',
  'favicon.ico',
  '.well-known',
]);

/**
 * Whether a file name is a local secrets file (`.dev.vars`, `.env` and their variants): wrangler
 * reads the origin secret from one when running locally, and no host must publish it. Cloudflare
 * Pages and Netlify publish every file of the tree, so such a file never belongs there.
 */
export function isLocalSecretsFile(name: string): boolean {
  return /^\.(dev\.vars|env)(\..*)?$/.test(name);
}

/** Where a local secrets file goes instead of the tree, for the messages that refuse one. */
export const LOCAL_SECRETS_ADVICE =
  "keep it beside deploy/wrangler.jsonc (wrangler dev -c deploy/wrangler.jsonc reads deploy/.dev.vars) or in the project folder (wrangler pages dev dist, run there, reads .dev.vars), and put the deployed secret in the host's secret store (wrangler secret put STATICMCP_ORIGIN_KEY)";

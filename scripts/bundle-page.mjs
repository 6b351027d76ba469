// Bundles the landing page's script (src/page/playground.ts and the portable core it imports: the
// call-key encoder, the pack reader, the lenient file shapes) into one classic script,
// `<outDir>/page/playground.js`, which `staticmcp build` inlines into every tree's index.html with
// its hash in the page's Content-Security-Policy. Run by `npm run build` (outDir = dist) and by the
// test setup (a private outDir). A classic script, not a module: Chromium refuses module scripts
// from file://, and the page must still show itself there.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const PAGE_BUNDLE_PATH = path.join('page', 'playground.js');
/**
 * The MCP Apps host (src/page/app-host.ts: ext-apps' AppBridge with the SDK and zod, ~0.5 MB): its
 * own file, which the build copies only into trees that have apps, next to their index.html.
 */
export const APP_HOST_BUNDLE_PATH = path.join('page', 'app-host.js');

/**
 * ext-apps' App class with its dependencies (its `app-with-deps` entry, the 1.x line the project
 * tests) as one classic script setting globalThis.ExtApps: `staticmcp build` inlines it into an
 * app's page that asks for it (src/project/app-class.ts). Never a runtime dependency.
 */
export const APP_CLASS_BUNDLE_PATH = path.join('page', 'ext-apps.js');

export async function bundlePage(outDir) {
  const root = path.resolve(REPO_ROOT, outDir);
  const outfile = path.join(root, PAGE_BUNDLE_PATH);
  await Promise.all([
    bundleScript('src/page/playground.ts', outfile),
    bundleScript('src/page/app-host.ts', path.join(root, APP_HOST_BUNDLE_PATH)),
    bundleScript('@modelcontextprotocol/ext-apps/app-with-deps', path.join(root, APP_CLASS_BUNDLE_PATH), 'ExtApps'),
  ]);
  return outfile;
}

async function bundleScript(entry, outfile, globalName) {
  await build({
    absWorkingDir: REPO_ROOT,
    entryPoints: [entry],
    outfile,
    ...(globalName ? { globalName } : {}),
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    // Served with every tree: as small as esbuild makes it, with no comments (the page carries it inline).
    minify: true,
    legalComments: 'none',
    charset: 'utf8',
    logLevel: 'warning',
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    await bundlePage(process.argv[2] ?? 'dist');
  } catch {
    // esbuild has printed what failed.
    process.exit(1);
  }
}

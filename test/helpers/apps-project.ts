// The MCP Apps fixture (fixtures/apps) as a host would render it: its pages get the App class of
// @modelcontextprotocol/ext-apps inlined (a host gives an app no network, so the page cannot fetch
// it), then the project is built by the real CLI. Also used by the playground's browser tests.
import { execFileSync } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { buildSync } from 'esbuild';
import { CLI, REPO_ROOT } from './paths.js';
import { temporaryFolderSync } from './temp-folders.js';

/** Where each fixture page takes the SDK: an empty classic script, filled with an IIFE that sets globalThis.ExtApps. */
export const EXT_APPS_PLACEHOLDER = '<script id="ext-apps"></script>';
/** The fixture's pages, relative to the project. */
export const APP_PAGES = ['tools/forecast/ui/index.html', 'tools/echo-app.sh.ui.html', 'ui/dashboard/index.html'];

let bundle: string | undefined;

/** ext-apps' self-contained App bundle (app-with-deps) as one classic script defining globalThis.ExtApps. */
export function extAppsScript(): string {
  if (bundle === undefined) {
    const entry = createRequire(import.meta.url).resolve('@modelcontextprotocol/ext-apps/app-with-deps');
    const output = buildSync({
      entryPoints: [entry],
      bundle: true,
      format: 'iife',
      globalName: 'ExtApps',
      minify: true,
      write: false,
      logLevel: 'silent',
    });
    // Inside <script>, a `</script` in the code would end it.
    bundle = output.outputFiles[0]!.text.replace(/<\/script/gi, '<\\/script');
  }
  return bundle;
}

/** A page with the SDK in its placeholder script. */
export function inlineExtApps(html: string): string {
  if (!html.includes(EXT_APPS_PLACEHOLDER)) throw new Error(`the page has no ${EXT_APPS_PLACEHOLDER}`);
  return html.replace(EXT_APPS_PLACEHOLDER, () => `<script id="ext-apps">${extAppsScript()}</script>`);
}

/**
 * A copy of fixtures/apps with the SDK inlined into its pages, built; returns the project folder
 * (tree in dist/). `change` edits the copy (its folder given) before the SDK goes in.
 */
export function buildAppsProject(
  buildArguments: readonly string[] = [],
  change: (project: string) => void = () => {},
): string {
  const project = path.join(temporaryFolderSync('staticmcp-apps-'), 'apps');
  cpSync(path.join(REPO_ROOT, 'fixtures', 'apps'), project, { recursive: true });
  change(project);
  for (const page of APP_PAGES) {
    const file = path.join(project, page);
    writeFileSync(file, inlineExtApps(readFileSync(file, 'utf8')));
  }
  execFileSync(process.execPath, [CLI, 'build', project, ...buildArguments], { stdio: ['ignore', 'ignore', 'pipe'] });
  return project;
}

// Compiles src/ into `<outDir>/` as ES modules, one file per source file, with esbuild: the first
// step of `npm run build` (outDir = dist) and of the test setup (test/global-setup.ts, a private
// outDir), so the tests run the very modules `npm install` ships. esbuild only strips the types;
// `npm run typecheck` checks them (tsconfig.test.json covers src/ with tsconfig.json's settings), so
// the types are checked once, not again by the build. src/page is left to scripts/bundle-page.mjs,
// as tsconfig.json leaves it out.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, stop } from 'esbuild';

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The TypeScript sources under src/, src/page left out. */
function listSources(srcDir) {
  return readdirSync(srcDir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .filter((file) => !path.relative(srcDir, file).startsWith(`page${path.sep}`));
}

/**
 * Writes `<outDir>/<path>.js` for every `src/<path>.ts`; rejects with esbuild's messages when one
 * does not compile. Asynchronous so the test setup's process, vitest's own, goes on handing test
 * files to workers while esbuild works in its own process.
 */
export async function compileSources(outDir) {
  await build({
    absWorkingDir: REPO_ROOT,
    entryPoints: listSources(path.join(REPO_ROOT, 'src')),
    outdir: path.resolve(REPO_ROOT, outDir),
    outbase: 'src',
    format: 'esm',
    platform: 'node',
    // The oldest Node `engines` allows.
    target: 'node20',
    logLevel: 'silent',
  });
  // esbuild's service process would otherwise stay until the calling process ends, exchanging a
  // ping with it: the test setup compiles in vitest's own process, which lives for the
  // whole run and builds nothing more. A later build starts a new service.
  await stop();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await compileSources(process.argv[2] ?? 'dist');
}

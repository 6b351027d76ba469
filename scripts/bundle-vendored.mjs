// Bundles the npm packages our bundles load only when a line needs them into one CommonJS file
// each, `<outDir>/vendor/<name>.cjs`, so the installed package needs nothing from node_modules (its
// `dependencies` are empty: an install is the one tarball) and each stays out of the command
// bundles that start on every line:
// - `ajv.cjs`, ajv and its JSON Schema 2020-12 class (src/shared/ajv-validator.ts loads it on the
//   first schema it compiles at run time);
// - `serve-handler.cjs` (src/hosts/node/http/static-tree.ts; scripts/bundle-cli.mjs points the
//   bundles' `serve-handler` at it), loaded when `serve` starts its HTTP host.
// The unbundled modules run from src/ (unit tests) import the packages themselves (devDependencies).
// Run by `npm run build` (outDir = dist) and by the test setup (a private outDir).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Each vendored file, `vendor/<name>.cjs`, and what it exports. */
const VENDORED = {
  ajv: "module.exports = { Ajv: require('ajv').Ajv, Ajv2020: require('ajv/dist/2020').Ajv2020 };",
  'serve-handler': "module.exports = require('serve-handler');",
};
export const VENDOR_FOLDER = 'vendor';
/** esbuild's options for one minified CommonJS file Node 20 runs (the vendored files and the bin). */
export const NODE_FILE_OPTIONS = {
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  minifyWhitespace: true,
  minifySyntax: true,
};

/** Writes every vendored package into `<outDir>/vendor/`. */
export function bundleVendored(outDir) {
  const root = path.resolve(REPO_ROOT, outDir);
  return Promise.all(
    Object.entries(VENDORED).map(([name, contents]) =>
      build({
        absWorkingDir: REPO_ROOT,
        stdin: { contents, resolveDir: REPO_ROOT, sourcefile: `vendor-${name}.cjs`, loader: 'js' },
        outfile: path.join(root, VENDOR_FOLDER, `${name}.cjs`),
        ...NODE_FILE_OPTIONS,
        banner: {
          js: `// ${name}, bundled by scripts/bundle-vendored.mjs with its dependencies (their licenses: node_modules).`,
        },
        legalComments: 'inline',
        logLevel: 'warning',
      }),
    ),
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await bundleVendored(process.argv[2] ?? 'dist');

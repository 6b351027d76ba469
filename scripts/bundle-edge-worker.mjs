// Bundles the edge worker (src/hosts/edge/worker.ts and the portable MCP core it imports) into one
// self-contained ES module, `<outDir>/edge/_worker.js`, which `staticmcp build` copies into every
// tree. Run by `npm run build` (outDir = dist) and by the test setup (a private outDir).
// The bundle must not need anything at run time: a Node built-in reaching it fails the bundle here,
// with the importer named, rather than failing in workerd after a deploy.
import { readFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const WORKER_BUNDLE_PATH = path.join('edge', '_worker.js');

const NODE_BUILTIN = new RegExp(
  `^(node:.*|${builtinModules.map((name) => name.replace(/[/.]/g, '\\$&')).join('|')})(/.*)?$`,
);

/** Refuses Node built-ins: the edge runtimes have none (and must not need nodejs_compat). */
const refuseNodeBuiltins = {
  name: 'refuse-node-builtins',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: NODE_BUILTIN }, (args) => ({
      errors: [
        {
          text: `${args.path} is a Node built-in, imported by ${path.relative(REPO_ROOT, args.importer)}: the edge worker must stay portable (src/core, src/hosts/edge and the validators they import may not use Node APIs)`,
        },
      ],
    }));
  },
};

/** `import('./x.js')` of a module of ours (not `typeof import(…)`, a type). */
const RELATIVE_DYNAMIC_IMPORT = /(typeof\s+)?(?<![\w$.])import\((['"])(\.{1,2}\/[^'"]+)\2\)/g;

/**
 * Makes our modules' dynamic imports static, so esbuild hoists every module into the bundle's one
 * scope rather than wrapping the ones imported on demand in a function each that a first request
 * compiles and runs. In one bundle that deferral saves nothing: the code is parsed with the module
 * either way. Without the wrappers a cold search runs fewer instructions, its `initialize` and the
 * module's evaluation most (bench/search-cold-instructions.mjs).
 */
const staticImports = (editSource) => ({
  name: 'static-imports',
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, async (args) => {
      const read = await readFile(args.path, 'utf8');
      const source = editSource === undefined ? read : editSource(args.path, read);
      const names = new Map();
      const contents = source.replace(RELATIVE_DYNAMIC_IMPORT, (whole, type, _quote, specifier) => {
        if (type) return whole;
        if (!names.has(specifier)) names.set(specifier, `staticImport${names.size}`);
        return `Promise.resolve(${names.get(specifier)})`;
      });
      if (names.size === 0) return source === read ? undefined : { contents: source, loader: 'ts' };
      const imports = [...names].map(([specifier, name]) => `import * as ${name} from ${JSON.stringify(specifier)};`);
      // On the first line, so the module's own lines keep their numbers in the source map.
      return { contents: `${imports.join(' ')}${contents}`, loader: 'ts' };
    });
  },
});

/**
 * `sourcemap`: also write `_worker.js.map` beside it (not shipped), to read a deployed worker's
 * stack trace. `editSource(path, text)`: each of our source files' text as the bundle takes it
 * (benches only: bench/search-cold-parts.mjs cuts the search reader short with it).
 */
export async function bundleEdgeWorker(outDir, { sourcemap = false, editSource } = {}) {
  const outfile = path.join(path.resolve(REPO_ROOT, outDir), WORKER_BUNDLE_PATH);
  await build({
    absWorkingDir: REPO_ROOT,
    entryPoints: ['src/hosts/edge/worker.ts'],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    mainFields: ['module', 'main'],
    // Every new isolate parses the whole module before its first request (issue #40 counts that
    // as cold), and parsing costs by the character: short names make it a fifth cheaper
    // (bench/search-cold-startup.mjs). Esbuild's keepNames would keep names for stack traces but
    // sets each one at evaluation, which costs the gain back; a trace is read with the source map
    // that `node scripts/bundle-edge-worker.mjs <dir> --sourcemap` writes for the same version.
    minify: true,
    ...(sourcemap ? { sourcemap: 'external', sourcesContent: false } : {}),
    legalComments: 'inline',
    banner: {
      js: '// _worker.js: the MCP endpoint of a StaticMCP tree, written by staticmcp build. Routes /mcp; see _routes.json.',
    },
    plugins: [refuseNodeBuiltins, staticImports(editSource)],
    logLevel: 'warning',
  });
  return outfile;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const outDir = args.find((arg) => !arg.startsWith('--')) ?? 'dist';
  try {
    await bundleEdgeWorker(outDir, { sourcemap: args.includes('--sourcemap') });
  } catch {
    // esbuild has printed what failed.
    process.exit(1);
  }
}

// Bundles the command's CommonJS entry (src/cli/start-cli.ts and code-cache.ts) into
// `<outDir>/cli/staticmcp.cjs`, the package's bin: Node 20 starts a CommonJS entry without setting
// up its ES module loader, which an ordinary serve line then never needs (bench/bridge-startup.mjs).
// And it bundles the `serve` command line (src/cli/serve-command-line.ts, every module it can reach and
// the npm packages they import) into ONE CommonJS file, `<outDir>/cli/staticmcp-serve.cjs`, which
// dist/cli/main.js runs for an ordinary serve line: Node then reads and compiles one file instead of
// the bridge's dozens of ES modules, and V8's code cache keeps that compile between runs
// (src/cli/code-cache.ts, on every Node version). The ordinary lines of every other command go the
// same way, each command from a bundle of its own, `<outDir>/cli/staticmcp-<command>.cjs`
// (src/cli/fast-command-line.ts and the command's module): `check`, `merge`, `index` and `init`
// then read and compile none of `build`'s code (search, Markdown, the tree writer), which is most of
// the bytes; help and usage errors (yargs) run from the whole command line's bundle,
// `<outDir>/cli/staticmcp-command-line.cjs` (src/cli/run-command-line.ts: every command). With
// ajv and serve-handler in `<outDir>/vendor/` (scripts/bundle-vendored.mjs), the bundles need
// nothing from node_modules: the package has no dependencies. One file per bundle, no
// chunks: every class a line uses (the errors `instanceof` tells apart) exists once in it, and
// nothing in it is shared with the unbundled modules or another bundle. Run by `npm run build` (outDir = dist) and by the test setup (a
// private outDir), after esbuild wrote the modules. (One bundle for every command was slower for
// serve: 1.7 MB to read and deserialize at every start.)
//
// A module of ours that finds files beside itself (`new URL('../../templates/…', import.meta.url)`)
// gets, in the bundle, the URL its compiled file has in outDir, so those paths resolve as they do
// for the unbundled modules. Line 1 of the bundle names a hash of the rest, the code cache's key.
import { createHash } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { NODE_FILE_OPTIONS, VENDOR_FOLDER } from './bundle-vendored.mjs';

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
const SOURCE_ROOT = path.join(REPO_ROOT, 'src');
export const SERVE_BUNDLE_PATH = path.join('cli', 'staticmcp-serve.cjs');
/** Each command besides serve and its module in src/cli/commands (src/cli/start-cli.ts's BUNDLED_COMMANDS). */
const COMMAND_MODULES = {
  build: 'build.ts',
  merge: 'merge.ts',
  index: 'index-command.ts',
  dev: 'dev.ts',
  check: 'check.ts',
  init: 'init.ts',
};
/** Each command's bundle, `cli/staticmcp-<command>.cjs`, by command. */
export const COMMAND_BUNDLE_PATHS = Object.fromEntries(
  Object.keys(COMMAND_MODULES).map((name) => [name, path.join('cli', `staticmcp-${name}.cjs`)]),
);
/** The whole command line (run-command-line.ts: yargs, every command) for help and usage errors. */
export const COMMAND_LINE_BUNDLE_PATH = path.join('cli', 'staticmcp-command-line.cjs');
export const ENTRY_BUNDLE_PATH = path.join('cli', 'staticmcp.cjs');
const BUNDLE_FOLDER = path.join(SOURCE_ROOT, path.dirname(SERVE_BUNDLE_PATH));

// An import() of something not bundled (a file found at run time): `__importModule`, which
// is Node's import() when Node loads the bundle, and main.js's when code-cache.ts does (a vm script
// has no import() of its own on Node 20). import('./…') of our modules stays: esbuild bundles it.
const RUNTIME_IMPORT = /\bawait import\((?!\s*['"]\.)/g;
// As src/cli/code-cache.ts's wrapCommonJs writes it (test/bridge/compile-cache.test.ts runs the bundle).
const COMMONJS_WRAPPER_START = '(function (exports, require, module, __filename, __dirname, __staticmcpImport) {';
const COMMONJS_WRAPPER_END = '\n})';

/** Replaces `import.meta.url` in our modules with the URL of the module's compiled file. */
const moduleUrlOfCompiledFile = {
  name: 'module-url-of-compiled-file',
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: /\.ts$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      if (!args.path.startsWith(SOURCE_ROOT)) return undefined;
      const compiled = path.relative(BUNDLE_FOLDER, args.path).replace(/\.ts$/, '.js').split(path.sep).join('/');
      return {
        contents: text
          .replaceAll('import.meta.url', `new URL(${JSON.stringify(compiled)}, __bundleUrl()).href`)
          .replace(RUNTIME_IMPORT, 'await __importModule('),
        loader: 'ts',
      };
    });
  },
};

/** A bundle's file: line 1 names the hash of `code` (the code cache's key), then `code`. */
export function stampBundle(code) {
  const hash = createHash('sha256').update(code).digest('hex').slice(0, 32);
  return `// staticmcp bundle ${hash}, written by scripts/bundle-cli.mjs\n${code}`;
}

/**
 * Only `serve --port` needs serve-handler (with its dependencies, a third of the serve bundle): the
 * bundles require it, when the HTTP host starts, from the file scripts/bundle-vendored.mjs wrote
 * (a path from outDir/cli, where the entry whose require() the bundles use is).
 */
const vendoredServeHandler = {
  name: 'vendored-serve-handler',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^serve-handler$/ }, () => ({
      path: `../${VENDOR_FOLDER}/serve-handler.cjs`,
      external: true,
    }));
  },
};

/**
 * yargs and its parser find their folder from `import.meta.url` (empty in CommonJS): yargs' locale
 * files, node_modules above it, a require() for config files we never ask it to read. In the
 * bundle it is the bundle's own URL: there are no locale files beside it, so yargs' messages are
 * English whatever the user's locale, as ours are.
 */
const yargsModuleUrl = {
  name: 'yargs-module-url',
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: /[\\/]node_modules[\\/]yargs(-parser)?[\\/].*\.m?js$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      return { contents: text.replaceAll('import.meta.url', '__bundleUrl()'), loader: 'js' };
    });
  },
};

/**
 * Each of `entries` (esbuild's `entryPoints`: `in` a module, `out` the bundle's path in outDir
 * without `.cjs`) and every module it reaches, as one pre-wrapped CommonJS file. One build for
 * them all: esbuild reads and parses the modules the bundles share once, and each bundle is still
 * whole, since nothing is split into chunks.
 */
async function bundleCommandLines(outDir, entries, minifyIdentifiers = false) {
  const root = path.resolve(REPO_ROOT, outDir);
  const result = await build({
    absWorkingDir: REPO_ROOT,
    entryPoints: entries,
    outdir: root,
    outExtension: { '.js': '.cjs' },
    ...NODE_FILE_OPTIONS,
    // Less to read and compile at every start (minified, as NODE_FILE_OPTIONS says). Local names too
    // for the serve bundle: a third less source to read and hold (each page of it is a fault at
    // every start); error names are set in the classes themselves, so only a stack trace's function
    // names read shorter.
    minifyIdentifiers,
    write: false,
    banner: {
      js: [
        '"use strict";',
        // Made when first asked for: no module the bridge starts with needs it.
        'var __bundleUrlText;',
        'var __bundleUrl = () => (__bundleUrlText ??= require("node:url").pathToFileURL(__filename).href);',
        'var __importModule = typeof __staticmcpImport === "function" ? __staticmcpImport : (specifier) => import(specifier);',
      ].join('\n'),
    },
    plugins: [vendoredServeHandler, yargsModuleUrl, commandEntries, moduleUrlOfCompiledFile],
    logLevel: 'warning',
  });
  return Promise.all(
    result.outputFiles.map(async ({ path: outfile, text }) => {
      // The file is the function expression code-cache.ts compiles (its wrapCommonJs): wrapping it at
      // each start would make V8 copy the joined text once more.
      await mkdir(path.dirname(outfile), { recursive: true });
      await writeFile(outfile, stampBundle(`${COMMONJS_WRAPPER_START}${text}${COMMONJS_WRAPPER_END}`));
      return outfile;
    }),
  );
}

/** Where a bundle goes, as esbuild's `out` names it: its path in outDir without `.cjs`. */
const outName = (bundlePath) => bundlePath.replace(/\.cjs$/, '');

/** The serve command line's bundle (serve-command-line.ts). */
export function bundleServe(outDir) {
  return bundleCommandLines(outDir, [{ in: 'src/cli/serve-command-line.ts', out: outName(SERVE_BUNDLE_PATH) }], true);
}

const COMMAND_ENTRY = 'staticmcp-command:';

/**
 * What start-cli.ts calls for each other command, `staticmcp-command:<command>`: the one command,
 * read by fast-command-line.ts.
 */
const commandEntries = {
  name: 'command-entries',
  setup(pluginBuild) {
    // Named as the bundle is: esbuild names the entry's exports object after it.
    pluginBuild.onResolve({ filter: new RegExp(`^${COMMAND_ENTRY}`) }, (args) => ({
      path: `staticmcp-${args.path.slice(COMMAND_ENTRY.length)}.ts`,
      namespace: 'command-entry',
    }));
    pluginBuild.onLoad({ filter: /.*/, namespace: 'command-entry' }, (args) => ({
      contents: [
        `import { command } from './commands/${COMMAND_MODULES[args.path.slice('staticmcp-'.length, -'.ts'.length)]}';`,
        `import { runFastCommandLine } from './fast-command-line.ts';`,
        'export const runCommandLine = (argv) => runFastCommandLine(command, argv);',
      ].join('\n'),
      resolveDir: BUNDLE_FOLDER,
      loader: 'ts',
    }));
  },
};

/**
 * Each other command's ordinary line (fast-command-line.ts with that command): a bundle per command;
 * and every other line (help, usage errors) from the whole command line's bundle.
 */
export function bundleOtherCommands(outDir) {
  return bundleCommandLines(outDir, [
    ...Object.keys(COMMAND_MODULES).map((name) => ({
      in: `${COMMAND_ENTRY}${name}`,
      out: outName(COMMAND_BUNDLE_PATHS[name]),
    })),
    { in: 'src/cli/run-command-line.ts', out: outName(COMMAND_LINE_BUNDLE_PATH) },
  ]);
}

/** The bin: start-cli.ts run with this file's folder and its own import() and require() (which resolve from there). */
export async function bundleEntry(outDir) {
  const outfile = path.join(path.resolve(REPO_ROOT, outDir), ENTRY_BUNDLE_PATH);
  await build({
    absWorkingDir: REPO_ROOT,
    entryPoints: ['src/cli/start-cli.ts'],
    outfile,
    ...NODE_FILE_OPTIONS,
    banner: {
      js: '#!/usr/bin/env node\n// The staticmcp command, written by scripts/bundle-cli.mjs from src/cli/start-cli.ts',
    },
    footer: { js: 'module.exports.startCli(__dirname, (specifier) => import(specifier), require);' },
    logLevel: 'warning',
  });
  await chmod(outfile, 0o755);
  return outfile;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outDir = process.argv[2] ?? 'dist';
  await Promise.all([bundleServe(outDir), bundleOtherCommands(outDir), bundleEntry(outDir)]);
}

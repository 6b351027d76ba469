#!/usr/bin/env node
// Entry point of the `staticmcp` command. It keeps V8's compiled code between runs: Node's compile
// cache on Node 22.1+ (turned on before any of our modules is compiled), code-cache.ts on Node 20
// for the serve bundle. Both live in $NODE_COMPILE_CACHE or os.tmpdir()/node-compile-cache: never
// in the user's project or the install folder, so a read-only install works, and a cache that
// cannot be read or written is silently not used. NODE_DISABLE_COMPILE_CACHE=1 turns both off.
// An ordinary `serve` line runs from the serve bundle beside this file (staticmcp-serve.cjs,
// scripts/bundle-cli.mjs: one file instead of the modules the bridge needs, which pays for its
// start-up: see bench/bridge-startup.mjs); every other line, or a build without the bundle, runs
// the command line's modules (run-command-line.ts).
import { existsSync, readFileSync } from 'node:fs';
import module from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

interface ServeBundle {
  runServeCommandLine(argv: string[]): Promise<boolean>;
}

const SERVE_BUNDLE = fileURLToPath(new URL('./staticmcp-serve.cjs', import.meta.url));

const enableCompileCache = (module as { enableCompileCache?: () => unknown }).enableCompileCache;
enableCompileCache?.();

/** The serve bundle's exports, or undefined when there is no bundle. */
async function loadServeBundle(): Promise<ServeBundle | undefined> {
  // Node's compile cache keeps the bundle's code when Node loads it.
  if (enableCompileCache)
    return existsSync(SERVE_BUNDLE) ? (module.createRequire(import.meta.url)(SERVE_BUNDLE) as ServeBundle) : undefined;
  let source: string;
  try {
    source = readFileSync(SERVE_BUNDLE, 'utf8');
  } catch {
    return undefined;
  }
  // Node 20 only: Node 22.1+ never loads it.
  const { cacheFileFor, requireWithCodeCache } = await import('./code-cache.js');
  const key = /^\/\/ staticmcp bundle ([0-9a-f]+)/.exec(source)?.[1];
  const cacheFolder = process.env.NODE_COMPILE_CACHE || path.join(tmpdir(), 'node-compile-cache');
  const cacheFile =
    key === undefined || process.env.NODE_DISABLE_COMPILE_CACHE ? undefined : cacheFileFor(cacheFolder, key);
  // The bundle's own import() (of files found at run time) resolves from this folder.
  return requireWithCodeCache(SERVE_BUNDLE, source, cacheFile, (specifier) => import(specifier)) as ServeBundle;
}

const argv = process.argv.slice(2);
const served = argv[0] === 'serve' && (await (await loadServeBundle())?.runServeCommandLine(argv));
if (!served) await import('./run-command-line.js');

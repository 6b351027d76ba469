// What the `staticmcp` command does first, for both of its entry files: dist/cli/staticmcp.cjs, the
// bin (this module bundled as CommonJS by scripts/bundle-cli.mjs: Node 20 starts a CommonJS entry
// without setting up its ES module loader, which an ordinary serve line then never needs), and
// dist/cli/main.js (ES module, the path `node dist/cli/main.js …` runs in a clone). It keeps V8's
// compiled code between runs: code-cache.ts's for the bundles (on every Node version: it loads a
// bundle with less copying than Node's loader), Node's compile cache on Node 22.1+ for the other
// modules (turned on before any of them is compiled: src/shared/node-compile-cache.ts). Both live
// in $NODE_COMPILE_CACHE or os.tmpdir()/node-compile-cache: never in the user's project or the
// install folder, so a read-only install works, and a cache that cannot be read or written is
// silently not used. NODE_DISABLE_COMPILE_CACHE=1 turns both off. An ordinary `serve` line runs
// from the serve bundle (staticmcp-serve.cjs: one file instead of the modules the bridge needs,
// which pays for its start-up: see bench/bridge-startup.mjs); an ordinary line of any other command
// from that command's own bundle (staticmcp-<command>.cjs, fast-command-line.ts and the command's
// module: a `check` or `init` then reads none of `build`'s code); `--version` alone is answered
// here; every other line (help, usage errors: yargs) runs the whole command line
// (run-command-line.ts) from its bundle, staticmcp-command-line.cjs, or from the modules in a build
// without the bundles.
import path from 'node:path';
import { enableNodeCompileCache } from '../shared/node-compile-cache.js';
import { readPackageJson } from '../shared/version.js';
import { cacheFileFor, readScriptFile, requireWithCodeCache } from './code-cache.js';

/** What both bundles export: run `argv` when it is an ordinary line of theirs (true), else nothing (false). */
interface ServeBundle {
  runServeCommandLine(argv: string[]): Promise<boolean>;
}
interface CommandLineBundle {
  runCommandLine(argv: string[]): Promise<boolean>;
}

/** The commands besides serve with a bundle of their own, `staticmcp-<name>.cjs` (scripts/bundle-cli.mjs writes one for each). */
export const BUNDLED_COMMANDS: readonly string[] = ['build', 'merge', 'index', 'dev', 'check', 'init'];

/** `import()` as the entry file has it: specifiers resolve from dist/cli, where both entry files are. */
export type ImportModule = (specifier: string) => Promise<unknown>;

/** os.tmpdir() without loading node:os where its rule is this simple (everywhere but Windows). */
function tmpdirOf(requireModule: NodeJS.Require): string {
  if (process.platform === 'win32') return (requireModule('node:os') as typeof import('node:os')).tmpdir();
  const folder = process.env.TMPDIR || process.env.TMP || process.env.TEMP || '/tmp';
  return folder.length > 1 && folder.endsWith('/') ? folder.slice(0, -1) : folder;
}

/** A bundle's exports (`name` in cliFolder), or undefined when there is no such bundle. */
function loadBundle(
  cliFolder: string,
  name: string,
  importModule: ImportModule,
  requireModule: NodeJS.Require,
): unknown {
  const bundle = path.join(cliFolder, name);
  let script: ReturnType<typeof readScriptFile>;
  try {
    script = readScriptFile(bundle);
  } catch {
    return undefined;
  }
  const key = /^\/\/ staticmcp bundle ([0-9a-f]+)/.exec(script.source)?.[1];
  const cacheFolder = process.env.NODE_COMPILE_CACHE || path.join(tmpdirOf(requireModule), 'node-compile-cache');
  const cacheFile =
    key === undefined || process.env.NODE_DISABLE_COMPILE_CACHE ? undefined : cacheFileFor(cacheFolder, key);
  // The bundle's own import() (of files found at run time) resolves as the entry file's does, and
  // its require() as the entry's: both files are in cliFolder.
  return requireWithCodeCache(bundle, script.source, cacheFile, importModule, requireModule, script.scratch);
}

/** The package's version, as `staticmcp --version` prints it (the same package.json as shared/version.ts). */
function readVersion(cliFolder: string): string {
  return readPackageJson(path.join(cliFolder, '..', '..', 'package.json')).version;
}

/**
 * Runs the command line in process.argv; `cliFolder` is the folder of the entry file (dist/cli),
 * `importModule` and `requireModule` its import() and require() (the CommonJS bin's own require;
 * main.js makes one with createRequire).
 */
export async function startCli(
  cliFolder: string,
  importModule: ImportModule,
  requireModule: NodeJS.Require,
): Promise<void> {
  const argv = process.argv.slice(2);
  // serve turns it on where it loads a module through Node (src/shared/node-compile-cache.ts).
  if (argv[0] !== 'serve') enableNodeCompileCache(requireModule);
  if (argv.length === 1 && argv[0] === '--version') {
    try {
      process.stdout.write(`${readVersion(cliFolder)}\n`);
    } catch (error) {
      ((await importModule('./print-error.js')) as typeof import('./print-error.js')).printError(error);
      process.exitCode = 1;
    }
    return;
  }
  const name = argv[0];
  const ran =
    name === 'serve'
      ? await (
          loadBundle(cliFolder, 'staticmcp-serve.cjs', importModule, requireModule) as ServeBundle | undefined
        )?.runServeCommandLine(argv)
      : name !== undefined && BUNDLED_COMMANDS.includes(name)
        ? await (
            loadBundle(cliFolder, `staticmcp-${name}.cjs`, importModule, requireModule) as CommandLineBundle | undefined
          )?.runCommandLine(argv)
        : false;
  if (ran !== true) {
    enableNodeCompileCache(requireModule);
    const commandLine =
      (loadBundle(cliFolder, 'staticmcp-command-line.cjs', importModule, requireModule) as
        | CommandLineBundle
        | undefined) ?? ((await importModule('./run-command-line.js')) as CommandLineBundle);
    await commandLine.runCommandLine(argv);
  }
}

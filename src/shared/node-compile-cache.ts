// Node's compile cache (module.enableCompileCache, Node 22.1+) for the modules Node's own loader
// compiles; the two bundles keep their code through src/cli/code-cache.ts instead. Turning it on
// costs a start a few milliseconds, so every command but `serve` turns it on as it starts
// (src/cli/start-cli.ts), and `serve` only where it is about to load such a module: the project's
// config validator, ajv, and the HTTP and origin servers (serve-handler). A stdio server on a tree
// loads none of them before its first answer. The cache lives in $NODE_COMPILE_CACHE or
// os.tmpdir()/node-compile-cache, never in the project or the install folder, and a cache that cannot
// be read or written is silently not used; NODE_DISABLE_COMPILE_CACHE=1 turns it off.

type ModuleBuiltin = { enableCompileCache?: () => unknown };

/**
 * Turns Node's compile cache on (again is harmless). Older Nodes are told from the version, so that
 * there node:module (and the ES module loader it brings) is not loaded for nothing. `requireModule`
 * is the caller's require where it has one; otherwise process.getBuiltinModule (Node 22.3+) finds it.
 */
export function enableNodeCompileCache(requireModule?: NodeJS.Require): void {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  if (major < 22 || (major === 22 && minor < 1)) return;
  const builtin = (requireModule?.('node:module') ?? process.getBuiltinModule?.('node:module')) as
    | ModuleBuiltin
    | undefined;
  builtin?.enableCompileCache?.();
}

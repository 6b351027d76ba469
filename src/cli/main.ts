#!/usr/bin/env node
// Entry point of the `staticmcp` command: turns on Node's compile cache before any of our modules
// is compiled, then runs the command line (run-command-line.ts). The cache (Node 22.1+; Node 20
// has none and skips this) keeps V8's compiled code of our modules between runs, in
// os.tmpdir()/node-compile-cache (or $NODE_COMPILE_CACHE): never in the user's project or the
// install folder, so a read-only install works, and a cache that cannot be written is silently
// not used. NODE_DISABLE_COMPILE_CACHE=1 turns it off. It pays for `serve`'s start-up: see
// bench/bridge-startup.mjs.
import module from 'node:module';

(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
await import('./run-command-line.js');

// Global setup of the `cli` and `runtimes` tiers (vitest.config.ts): compiles src/ once per
// `vitest run` into a private folder beside dist/ (`.test-dist-<pid>/`, removed afterwards), with
// the edge worker bundled beside it exactly as `npm run build` does (edge/_worker.js, and the
// precompiled staticmcp.json validator, project/config-validator.cjs, and the CLI bundle that
// cli/main.js runs, cli/staticmcp-<command>.cjs), so integration tests
// exercise exactly what `npm install` ships, and a `npm run build` or a second test run in the
// same checkout can never swap files under a running test. Tests get the CLI path from
// test/helpers/paths.ts.
//
// src/ is transpiled file by file with esbuild by scripts/compile-src.mjs, the step `npm run build`
// compiles dist/ with, instead of tsc, which would check the types a second time and hold back
// the first test; `npm test` checks the types beside vitest.
//
// It then builds fixtures/example once with that CLI into a temporary folder, read-only for the
// tests (test/helpers/example.ts: `builtExample()` shares it, `copyBuiltExample()` copies it for a
// test that changes it), instead of once in every file that needs it. Both tiers' setups run in
// the same vitest process: the second reuses the first's compile and example (neither changes
// during a run), and the last teardown removes them.
//
// The setup does not wait for that work: it provides the paths at once and the tests start. The
// compile and the example build (and, for the runtimes tier, the install of tools/runtimes) run
// beside the first test files, the `core` tier's, which need none of it; each `cli` and `runtimes`
// file waits for them before it starts (test/helpers/wait-for-setup.setup.ts asks the loopback
// server `setupReady` names, which answers once the work is done, or with its error). On a 2-core
// machine the cores are then busy from the start instead of idling through a serial setup.
// It also makes the empty folder where the first test file that needs staticmcp installed from its
// packed tarball installs it for every file of the run (test/helpers/shared-install.ts); nothing is
// packed or installed when no file asks.
// For the runtimes tier it installs tools/runtimes when it is missing, beside the compile
// (test/helpers/runtime-tools.ts), and serves the host runtimes started once per run over that
// example (test/shared-hosts.ts).
import { execFile } from 'node:child_process';
import { cpSync, promises as fs, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';
import { compileSources } from '../scripts/compile-src.mjs';
import { logOutsideCpu } from './helpers/process-tree-cpu.js';
import { installRuntimeTools } from './helpers/runtime-tools.js';
import { type SharedHostsServer, startSharedHostsServer } from './shared-hosts.js';
import { type ReadinessServer, serveReadiness } from './setup-readiness.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Absolute path of the compiled `staticmcp` bin (cli/staticmcp.cjs) to run with node. */
    cli: string;
    /** Absolute path of a copy of fixtures/example built by that CLI (`dist/` inside); never change it. */
    builtExample: string;
    /** Runtimes tier only: where to ask for a host runtime over that example (test/helpers/shared-hosts.ts). */
    sharedHosts?: string;
    /** An empty folder where the first file that asks installs the packed package for every file (test/helpers/shared-install.ts). */
    sharedInstall: string;
    /** Where a file waits until `cli` and `builtExample` (and the tier's tools) are ready (test/helpers/wait-for-setup.setup.ts). */
    setupReady: string;
  }
}

interface Compiled {
  cli: string;
  example: string;
  sharedInstall: string;
  /** Resolves once src/ is compiled and the example built; rejects with what failed. */
  ready: Promise<void>;
  /** Tiers whose setup uses it and has not torn down yet. */
  users: number;
  remove(): Promise<void>;
}

// On globalThis, not in a module variable: each project may load this file as a module of its own.
const SHARED = Symbol.for('staticmcp.test.compiled');
type WithCompiled = typeof globalThis & { [SHARED]?: Compiled };

/** Starts compiling src/ into `.test-dist-<pid>/` and building fixtures/example with it; returns at once. */
function startCompile(root: string): Compiled {
  // A direct child of the repository, like dist/, so `../package.json` and `../../templates` resolve.
  const outDir = path.join(root, `.test-dist-${process.pid}`);
  // The installed bin (package.json `bin`), what users run; test/helpers/paths.ts names main.js too.
  const cli = path.join(outDir, 'cli', 'staticmcp.cjs');
  const exampleParent = mkdtempSync(path.join(tmpdir(), 'staticmcp-built-example-'));
  const example = path.join(exampleParent, 'example');
  const sharedInstall = mkdtempSync(path.join(tmpdir(), 'staticmcp-shared-install-'));
  const ready = (async () => {
    try {
      await compileSources(outDir);
      // Each script bundles from src/ on its own: side by side, the setup takes about as long as
      // the longest of them instead of their sum (most of each is starting node and esbuild).
      await Promise.all(
        [
          'scripts/bundle-edge-worker.mjs',
          'scripts/bundle-page.mjs',
          'scripts/compile-validators.mjs',
          'scripts/bundle-vendored.mjs',
          'scripts/bundle-cli.mjs',
        ].map((script) => runNode([path.join(root, script), outDir], root)),
      );
    } catch (error) {
      const { stdout, stderr, message } = error as { stdout?: string; stderr?: string; message?: string };
      throw new Error(
        `compiling src/ for the integration tests failed:\n${message ?? ''}\n${stdout ?? ''}${stderr ?? ''}`,
      );
    }
    try {
      cpSync(path.join(root, 'fixtures', 'example'), example, { recursive: true });
      await runNode([cli, 'build', example], root);
    } catch (error) {
      throw new Error(
        `building fixtures/example for the tests failed:\n${(error as { stderr?: string }).stderr ?? error}`,
      );
    }
  })();
  // Its failure is reported to every file that waits for it, and once here, where it happened.
  ready.catch((error: Error) => process.stderr.write(`\ntest/global-setup.ts: ${error.message}\n`));
  // Side by side and off the event loop: an installed package is thousands of files, and a
  // synchronous removal held back the ending of the test workers. After the work ends: a removal
  // beside a running compile or build would leave what it writes next.
  const remove = async (): Promise<void> => {
    await ready.catch(() => undefined);
    await Promise.all(
      [outDir, exampleParent, sharedInstall].map((folder) => fs.rm(folder, { recursive: true, force: true })),
    );
  };
  return { cli, example, sharedInstall, ready, users: 0, remove };
}

/** Runs `node <args>` in `cwd`; rejects with its output when it fails. */
function runNode(args: string[], cwd: string): Promise<unknown> {
  return promisify(execFile)(process.execPath, args, { cwd, maxBuffer: 64 * 1024 * 1024 });
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const shared = globalThis as WithCompiled;
  shared[SHARED] ??= startCompile(root);
  const compiled = shared[SHARED];
  compiled.users += 1;
  // A missing tools/runtimes installs (a minute, mostly network) while src/ compiles.
  const ready = Promise.all([compiled.ready, project.name === 'runtimes' ? installRuntimeTools() : undefined]);
  let readiness: ReadinessServer | undefined;
  let sharedHosts: SharedHostsServer | undefined;
  const teardown = async (): Promise<void> => {
    const cpuLog = process.env.STATICMCP_TEST_CPU_LOG;
    if (cpuLog) logOutsideCpu(cpuLog, `${project.name} teardown`);
    await sharedHosts?.close();
    await readiness?.close();
    compiled.users -= 1;
    if (compiled.users > 0) return;
    delete shared[SHARED];
    await compiled.remove();
  };
  try {
    readiness = await serveReadiness(ready);
    project.provide('cli', compiled.cli);
    project.provide('builtExample', compiled.example);
    project.provide('sharedInstall', compiled.sharedInstall);
    project.provide('setupReady', readiness.url);
    if (project.name === 'runtimes') {
      sharedHosts = await startSharedHostsServer(compiled.cli, compiled.example, root, ready);
      project.provide('sharedHosts', sharedHosts.url);
    }
  } catch (error) {
    await teardown();
    throw error;
  }
  return teardown;
}

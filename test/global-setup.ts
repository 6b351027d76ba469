// Shared by every test folder that runs the real CLI (test/build, test/bridge): compiles src/ once
// per `vitest run` into a private folder beside dist/ (`.test-dist-<pid>/`, removed afterwards),
// with the edge worker bundled beside it exactly as `npm run build` does (edge/_worker.js, and the
// precompiled staticmcp.json validator, project/config-validator.js), so
// integration tests exercise exactly what `npm install` ships, and a `npm run build` or a second
// test run in the same checkout can never swap files under a running test.
// Tests get the CLI path with `inject('cli')`.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Absolute path of the compiled `staticmcp` entry point to run with node. */
    cli: string;
  }
}

export default function setup(project: TestProject): () => void {
  const root = fileURLToPath(new URL('..', import.meta.url));
  // A direct child of the repository, like dist/, so `../package.json` and `../../templates` resolve.
  const outDir = path.join(root, `.test-dist-${process.pid}`);
  try {
    execFileSync(
      process.execPath,
      [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json', '--outDir', outDir],
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    for (const script of ['scripts/bundle-edge-worker.mjs', 'scripts/compile-config-validator.mjs']) {
      execFileSync(process.execPath, [path.join(root, script), outDir], {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    }
  } catch (error) {
    rmSync(outDir, { recursive: true, force: true });
    const { stdout, stderr } = error as { stdout?: Buffer; stderr?: Buffer };
    throw new Error(
      `compiling src/ for the integration tests failed:\n${stdout?.toString() ?? ''}${stderr?.toString() ?? ''}`,
    );
  }
  project.provide('cli', path.join(outDir, 'cli', 'main.js'));
  return () => rmSync(outDir, { recursive: true, force: true });
}

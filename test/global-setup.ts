// Shared by every test folder that runs the real CLI (test/build, test/bridge): compiles src/ to
// dist/ once per `vitest run`, so integration tests exercise exactly what `npm install` ships.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  const root = fileURLToPath(new URL('..', import.meta.url));
  try {
    execFileSync(process.execPath, [fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url)), '-p', 'tsconfig.json'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: Buffer; stderr?: Buffer };
    throw new Error(`compiling src/ for the integration tests failed:\n${stdout?.toString() ?? ''}${stderr?.toString() ?? ''}`);
  }
}

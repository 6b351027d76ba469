// The type check of `npm test`, run as a test file so it shares the machine with the others
// instead of delaying them (test/global-setup.ts only transpiles): src/ under tsconfig.json, the
// portable core (src/mcp, src/edge) without Node's types, where a node: import, Buffer or process
// fails, and the tests themselves under tsconfig.test.json (src/'s strictness). The three are
// independent compilations, run side by side.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'vitest';
import { REPO_ROOT } from '../helpers/paths.js';

function typeCheck(config: string): Promise<string> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', config, '--noEmit', '--pretty', 'false'],
      { cwd: REPO_ROOT, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => resolve(error ? `${stdout}${stderr}` || String(error) : ''),
    );
  });
}

describe.concurrent('types', () => {
  it('src/ type-checks (tsconfig.json)', async ({ expect }) => {
    expect(await typeCheck('tsconfig.json')).toBe('');
  });

  it("the portable core type-checks without Node's types (tsconfig.portable.json)", async ({ expect }) => {
    expect(await typeCheck('tsconfig.portable.json')).toBe('');
  });

  it('test/ type-checks as strictly as src/ (tsconfig.test.json)', async ({ expect }) => {
    expect(await typeCheck('tsconfig.test.json')).toBe('');
  });
});

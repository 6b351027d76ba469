// The type check of `npm test`, run as a test file so it shares the machine with the others instead
// of delaying them (test/global-setup.ts only transpiles): src/ and test/ together under
// tsconfig.test.json (tsconfig.json's settings over both folders: one compilation instead of a
// second pass over src/), and the portable core (src/core, src/hosts/edge and the validators they
// plug in) without Node's types, where a node: import, Buffer or process fails, and the landing
// page's script (src/page) with the browser's types. They run side by side. (`npm run build`, which npm ci runs, compiles src/ under tsconfig.json itself.)
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

// tsc over src/ and test/ takes 20-30 CPU-seconds; on a busy 2-core machine that can pass the
// 60-second default, which is meant for hung processes, not for slow ones.
const TYPE_CHECK_TIMEOUT_MS = 240_000;

describe.concurrent('types', { timeout: TYPE_CHECK_TIMEOUT_MS }, () => {
  it("the portable core type-checks without Node's types (tsconfig.portable.json)", async ({ expect }) => {
    expect(await typeCheck('tsconfig.portable.json')).toBe('');
  });

  it("the landing page's script type-checks with the browser's types and without Node's (tsconfig.page.json)", async ({
    expect,
  }) => {
    expect(await typeCheck('tsconfig.page.json')).toBe('');
  });

  it("src/ and test/ type-check under src/'s settings (tsconfig.test.json)", async ({ expect }) => {
    expect(await typeCheck('tsconfig.test.json')).toBe('');
  });
});

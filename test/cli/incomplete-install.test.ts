// An install missing its package.json (a dist/ folder copied on its own): every command, and
// `--version`, says what is missing and what to do, without a stack trace or "this is a bug".
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { cpSync } from 'node:fs';
import path from 'node:path';
import { CLI, REPO_ROOT } from '../helpers/paths.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

describe('a dist/ folder without the package.json beside it', () => {
  it('refuses --version and build with what to do', async () => {
    const folder = await temporaryFolder('staticmcp-incomplete-install-');
    const dist = path.join(folder, 'dist');
    cpSync(path.dirname(path.dirname(CLI)), dist, { recursive: true });
    const project = path.join(folder, 'example');
    cpSync(path.join(REPO_ROOT, 'fixtures', 'example'), project, { recursive: true });
    const bin = path.join(dist, 'cli', path.basename(CLI));
    for (const args of [['--version'], ['build', project]]) {
      const run = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
      expect(run.status, args.join(' ')).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain(
        `staticmcp: error [INSTALL_INCOMPLETE]: staticmcp cannot read its own package.json at ${path.join(folder, 'package.json')} (ENOENT)`,
      );
      expect(run.stderr).toContain('what to do: reinstall staticmcp');
      expect(run.stderr).not.toMatch(/this is a bug|\n\s+at /);
    }
  });
});

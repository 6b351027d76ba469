// The MCP Apps fixture (fixtures/apps) built by the real CLI: its pages ask for the App class of
// @modelcontextprotocol/ext-apps with the documented marker, and the build inlines it. Also used
// by the playground's browser tests.
import { execFileSync } from 'node:child_process';
import { cpSync } from 'node:fs';
import path from 'node:path';
import { CLI, REPO_ROOT } from './paths.js';
import { temporaryFolderSync } from './temp-folders.js';

/**
 * A copy of fixtures/apps, built; returns the project folder
 * (tree in dist/). `change` edits the copy (its folder given) before the build.
 */
export function buildAppsProject(
  buildArguments: readonly string[] = [],
  change: (project: string) => void = () => {},
): string {
  const project = path.join(temporaryFolderSync('staticmcp-apps-'), 'apps');
  cpSync(path.join(REPO_ROOT, 'fixtures', 'apps'), project, { recursive: true });
  change(project);
  execFileSync(process.execPath, [CLI, 'build', project, ...buildArguments], { stdio: ['ignore', 'ignore', 'pipe'] });
  return project;
}

// Shared by the build benchmarks: a project with one trivial shell script whose integer
// parameter has 2,000 values, and helpers to time whole commands.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync, chmodSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cliPath, median, repoRoot, tempDir } from './common.mjs';

export { cliPath, median, repoRoot };

export const TRIVIAL_SCRIPT = `#!/bin/sh
if [ "$1" = "--help" ]; then
  echo '{"description": "Echo a number"}'
  echo '{"n": {"description": "A number", "required": true, "value_type": "integer", "size": {"min": 1, "max": 2000}}}' >&2
  exit 0
fi
echo "$n"
`;

/** Creates `<tmp>/project/tools/echo-n`; returns the paths a benchmark needs. */
export function createBenchProject(argumentSets = 2000) {
  const root = tempDir('staticmcp-bench-');
  const project = path.join(root, 'project');
  mkdirSync(path.join(project, 'tools'), { recursive: true });
  const script = path.join(project, 'tools', 'echo-n');
  writeFileSync(script, TRIVIAL_SCRIPT.replace('"max": 2000', `"max": ${argumentSets}`));
  chmodSync(script, 0o755);
  writeFileSync(path.join(project, 'staticmcp.json'), JSON.stringify({ limits: { maxIntegerRange: argumentSets } }));
  return { root, project, script };
}

/** Runs a command and returns its wall time in ms; throws if it fails. */
export function timeCommand(command, args, options = {}) {
  const startedAt = process.hrtime.bigint();
  const result = spawnSync(command, args, { stdio: ['ignore', 'ignore', 'pipe'], ...options });
  const elapsedMs = Number(process.hrtime.bigint() - startedAt) / 1e6;
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status}): ${result.stderr}`);
  return elapsedMs;
}

export function cores() {
  return os.availableParallelism();
}

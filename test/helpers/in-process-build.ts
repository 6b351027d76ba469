// `staticmcp build --json` without starting the CLI: the build command's own decision
// (buildOrReplay: replay the recorded report, or run the pipeline) called in the test's process,
// with the exit code the command would give. The project's scripts still run as real processes;
// what is saved is a Node start and the CLI's imports per build. The tree differs from the CLI's
// in one file: src/ has no bundled edge worker, so no `_worker.js` is written (deploy-files.ts);
// the report's warning saying so is left out, so reports read as the CLI's do. Nor has src/ the
// bundled page script, so index.html (and the content hash over it) differ from the CLI's.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { BuildOptions } from '../../src/builder/build-options.js';
import type { BuildReport } from '../../src/builder/build-report.js';
import { buildOrReplay } from '../../src/cli/commands/build.js';
import { exitCodeOf } from '../../src/cli/exit-codes.js';
import { StaticMcpError } from '../../src/core/staticmcp-error.js';
import { REPO_ROOT } from './paths.js';
import { temporaryFolder } from './temp-folders.js';

const WORKER_FILE = '_worker.js';

export interface InProcessBuild {
  /** The exit code `staticmcp build` would give: 0, 1 (failures in the report), or 2 (refused). */
  code: number;
  report: BuildReport;
  /** The refusal, when the build stopped before writing anything (code 2, or 1 for a broken project). */
  error?: StaticMcpError;
}

/** Builds `project` in-process as `staticmcp build <project> --json` with `options` would. */
export async function buildInProcess(
  project: string,
  options: Omit<BuildOptions, 'projectRoot'> = {},
): Promise<InProcessBuild> {
  try {
    const report = await buildOrReplay({ projectRoot: project, ...options });
    const warnings = report.warnings.filter((warning) => warning.path !== WORKER_FILE);
    return { code: report.ok ? 0 : 1, report: { ...report, warnings } };
  } catch (error) {
    if (!(error instanceof StaticMcpError)) throw error;
    return { code: exitCodeOf(error), report: undefined as unknown as BuildReport, error };
  }
}

/**
 * Builds `project` in-process as `staticmcp build <project>` does, for a test that needs its tree
 * (to serve, read or damage), not the build's output; throws with the report's failures when the
 * command would exit non-zero, as buildProjectTree (the CLI) does.
 */
export async function buildTreeInProcess(
  project: string,
  options: Omit<BuildOptions, 'projectRoot'> = {},
): Promise<BuildReport> {
  const { code, report, error } = await buildInProcess(project, options);
  if (code !== 0)
    throw new Error(
      `building ${project} failed (exit ${code}): ${error?.message ?? JSON.stringify([...report.failures, ...report.tools.flatMap((tool) => tool.failures)])}`,
    );
  return report;
}

/**
 * A copy of a fixture project (under test/fixtures/, or fixtures/…) in a temporary folder, changed
 * by `prepare` and then built in-process: buildFixtureProject (projects.ts) without the CLI.
 */
export async function buildFixtureInProcess(
  fixture: string,
  prepare?: (project: string) => void | Promise<void>,
): Promise<string> {
  const project = path.join(await temporaryFolder('staticmcp-fixture-'), path.basename(fixture));
  await fs.cp(path.join(REPO_ROOT, fixture.startsWith('fixtures/') ? '' : 'test/fixtures', fixture), project, {
    recursive: true,
  });
  await prepare?.(project);
  await buildTreeInProcess(project);
  return project;
}

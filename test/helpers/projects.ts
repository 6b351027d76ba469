// Test projects and trees: projects made of the real one-purpose scripts in
// test/fixtures/scripts/ (makeProject), projects written inline (writeProject), copies of the
// fixture projects built by the real CLI, and hand-written trees. All live in temporary folders.
import { execFileSync } from 'node:child_process';
import { cpSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { copyBuiltExample } from './example.js';
import { CLI, FIXTURE_SCRIPTS, REPO_ROOT } from './paths.js';
import { temporaryFolder, temporaryFolderSync } from './temp-folders.js';

export interface ProjectSpec {
  /** Tool path inside tools/ → fixture script name in test/fixtures/scripts/. */
  tools?: Record<string, string>;
  /** staticmcp.json content. */
  config?: unknown;
  /** Other files: project-relative path → content. */
  files?: Record<string, string | Buffer>;
}

/** A file of a test project: text, or an executable script. */
export type ProjectFile = string | Buffer | { script: string };

/** Writes `files` (relative path → content; `{ script }` is made executable) under `root`. */
export async function writeFiles(root: string, files: Record<string, ProjectFile>): Promise<void> {
  for (const [relative, content] of Object.entries(files)) {
    const file = path.join(root, relative);
    await fs.mkdir(path.dirname(file), { recursive: true });
    if (typeof content === 'string' || Buffer.isBuffer(content)) await fs.writeFile(file, content);
    else await fs.writeFile(file, content.script, { mode: 0o755 });
  }
}

export async function copyFixtureScript(fixture: string, destination: string): Promise<void> {
  await fs.mkdir(path.dirname(destination), { recursive: true });
  await fs.copyFile(path.join(FIXTURE_SCRIPTS, fixture), destination);
  await fs.chmod(destination, 0o755);
}

/** Makes a project of fixture scripts in a new temporary folder (or as `<parent>/project`). */
export async function makeProject(spec: ProjectSpec, parent?: string): Promise<string> {
  const root = parent ? path.join(parent, 'project') : await temporaryFolder('staticmcp-project-');
  await fs.mkdir(path.join(root, 'tools'), { recursive: true });
  for (const [toolPath, fixture] of Object.entries(spec.tools ?? {})) {
    await copyFixtureScript(fixture, path.join(root, 'tools', toolPath));
  }
  if (spec.config !== undefined)
    await fs.writeFile(path.join(root, 'staticmcp.json'), JSON.stringify(spec.config, null, 2));
  await writeFiles(root, spec.files ?? {});
  return root;
}

/** Writes a project (project-relative path → content) as `<new temporary folder>/project`. */
export async function writeProject(files: Record<string, ProjectFile>): Promise<string> {
  const project = path.join(await temporaryFolder('staticmcp-project-'), 'project');
  await writeFiles(project, files);
  return project;
}

/** Writes `files` (tree-relative path → JSON value or raw text) under a new temporary folder. */
export async function writeTree(files: Record<string, unknown>): Promise<string> {
  const root = await temporaryFolder('staticmcp-tree-');
  await writeFiles(
    root,
    Object.fromEntries(
      Object.entries(files).map(([file, content]) => [
        file,
        typeof content === 'string' ? content : JSON.stringify(content, null, 2),
      ]),
    ),
  );
  return root;
}

/** Builds a project with the compiled CLI; throws with its stderr when the build fails. */
export function buildProjectTree(project: string): void {
  execFileSync(process.execPath, [CLI, 'build', project], { stdio: ['ignore', 'ignore', 'pipe'] });
}

/**
 * Copies a fixture project (under test/fixtures/, or fixtures/…) to a temporary folder and builds
 * it. fixtures/example without build arguments is copied already built (test/helpers/example.ts).
 */
export function buildFixtureProject(
  fixture: string,
  buildArguments: readonly string[] = [],
  /** Changes the copy before it is built (adds files to it). */
  prepare?: (project: string) => void,
): string {
  if (fixture === 'fixtures/example' && buildArguments.length === 0 && !prepare) return copyBuiltExample();
  const project = path.join(temporaryFolderSync('staticmcp-fixture-'), path.basename(fixture));
  cpSync(path.join(REPO_ROOT, fixture.startsWith('fixtures/') ? '' : 'test/fixtures', fixture), project, {
    recursive: true,
  });
  prepare?.(project);
  execFileSync(process.execPath, [CLI, 'build', project, ...buildArguments], { stdio: 'ignore' });
  return project;
}

// staticmcp as npm users get it: `npm pack` of the package (its package.json `files`, with the
// dist/ this test run compiled) and a global install of that tarball into a temporary prefix.
// Shared by test/cli/packed-install.test.ts and test/cli/readme-walkthrough.test.ts.
//
// The install resolves the dependencies as a user's does (their newest matching versions, not the
// lockfile's), preferring the npm cache that `npm ci` filled; what the cache lacks comes from the
// registry, so the first run on a machine needs it.
import { execFile } from 'node:child_process';
import { promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { CLI, REPO_ROOT } from './paths.js';

/** npm's own settings from a surrounding `npm test` (prefix, dry-run, …) must not steer an install. */
export const NPM_ENVIRONMENT: Record<string, string | undefined> = Object.fromEntries(
  Object.entries(process.env).filter(
    ([name]) => !/^npm_/i.test(name) || /^npm_config_(cache|userconfig|registry)$/i.test(name),
  ),
);

export const PACKAGE_JSON = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  files: string[];
};

export interface CommandRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `command` to its end (at most 3 minutes) in `cwd`, with npm's settings from outside removed. */
export function runCommand(
  command: string,
  args: readonly string[],
  cwd: string,
  env: Record<string, string | undefined> = NPM_ENVIRONMENT,
): Promise<CommandRun> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env, timeout: 180_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

export interface PackedPackage {
  /** Absolute path of the tarball: `<name>-<version>.tgz`, as `npm pack` names it. */
  tarball: string;
  /** The paths inside it, sorted. */
  files: string[];
}

/**
 * Packs the package into `destination`. What `npm run build` writes to dist/ is what global setup
 * compiled for this run (same tsc, same worker bundle), so the tarball holds the code under test,
 * never a stale dist/.
 */
export async function packPackage(destination: string): Promise<PackedPackage> {
  const stage = await fs.mkdtemp(path.join(destination, 'stage-'));
  // package.json "files" besides dist/ (staged from this run's build below): templates, the config schema.
  const shipped = PACKAGE_JSON.files.filter((entry) => !entry.startsWith('dist') && !entry.startsWith('!'));
  for (const entry of ['package.json', 'README.md', 'LICENSE', ...shipped]) {
    await fs.cp(path.join(REPO_ROOT, entry), path.join(stage, entry), { recursive: true });
  }
  await fs.cp(path.dirname(path.dirname(CLI)), path.join(stage, 'dist'), { recursive: true });
  const pack = await runCommand(
    'npm',
    ['pack', '--ignore-scripts', '--json', '--pack-destination', destination],
    stage,
  );
  if (pack.code !== 0) throw new Error(`npm pack failed (exit ${pack.code}):\n${pack.stderr}`);
  const [report] = JSON.parse(pack.stdout) as [{ filename: string; files: { path: string }[] }];
  return { tarball: path.join(destination, report.filename), files: report.files.map((file) => file.path).sort() };
}

/** Installs `tarball` globally into `prefix` with every install script refused; the path of its `staticmcp` bin. */
export async function installGlobally(tarball: string, prefix: string): Promise<string> {
  const install = await runCommand(
    'npm',
    [
      'install',
      '--global',
      '--prefix',
      prefix,
      '--ignore-scripts',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      tarball,
    ],
    path.dirname(tarball),
  );
  if (install.code !== 0) throw new Error(`npm install -g failed (exit ${install.code}):\n${install.stderr}`);
  return path.join(prefix, 'bin', 'staticmcp');
}

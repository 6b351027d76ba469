// staticmcp installed from its packed tarball once per `vitest run`, as the README's first step
// installs it: `npm pack` of this run's build (test/helpers/npm-package.ts) written into a folder
// that stands for a clone, then the README's line `npm install -g ./staticmcp-<version>.tgz` run by
// bash there, exactly as written, in a user's shell (userShellEnvironment) with npm's global prefix
// pointed at a folder of the run. packed-install and readme-walkthrough both test that one install
// (each `npm install` costs seconds of CPU, and the two installed the same tarball the same way):
// neither changes the installed files.
//
// The test files run in several worker processes: the first to ask claims test/global-setup.ts's
// `sharedInstall` folder (an atomic mkdir) and installs; the others wait for the result it writes.
// A failed install is written too, so every file that asks fails with npm's message.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { type CommandRun, NPM_ENV, PACKAGE_JSON, packThisBuild, runCommand } from './npm-package.js';

export interface SharedInstall {
  /** The tarball npm pack wrote, in `clone`. */
  tarball: string;
  /** The paths inside the package, sorted, as npm pack listed them. */
  files: string[];
  /** The folder the install command ran in (a clone after `npm pack`). */
  clone: string;
  /** npm's global prefix for the install: the bin is in `prefix/bin`, the package in `prefix/lib/node_modules`. */
  prefix: string;
  /** `prefix/bin/staticmcp`. */
  bin: string;
  /** The command line bash ran, as the README writes it. */
  command: string;
  /** What the install printed (stdout, then stderr). */
  output: string;
}

/** The README's install line for the tarball `npm pack` writes. */
export const INSTALL_LINE = `npm install -g ./${PACKAGE_JSON.name}-${PACKAGE_JSON.version}.tgz`;
/** How long a file waits for another's install before it gives up (npm's own limit is 3 minutes). */
const WAIT_LIMIT_MS = 240_000;
const POLL_MS = 200;

/**
 * A user's shell: `prefix/bin` first on PATH and nothing of this repository's node_modules, a home
 * of its own (the Inspector keeps a catalog there), the machine's npm cache, and no npm settings of
 * a surrounding `npm test`.
 */
export function userShellEnvironment(prefix: string, home: string): Record<string, string> {
  const userPath = (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter((entry) => !entry.endsWith(path.join('node_modules', '.bin')));
  return {
    ...NPM_ENV,
    PATH: [path.join(prefix, 'bin'), ...userPath].join(path.delimiter),
    HOME: home,
    npm_config_cache: process.env.npm_config_cache ?? path.join(os.homedir(), '.npm'),
    npm_config_prefer_offline: 'true',
    npm_config_update_notifier: 'false',
    NO_COLOR: '1',
  };
}

/** Packs this run's build and installs it with the README's line; resolves once, for every file of the run. */
export async function installPackedOnce(): Promise<SharedInstall> {
  const folder = inject('sharedInstall');
  const result = path.join(folder, 'result.json');
  const claimed = await fs.mkdir(path.join(folder, 'claim')).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'EEXIST') return false;
      throw error;
    },
  );
  if (!claimed) return waitForResult(result);
  let outcome: { install?: SharedInstall; error?: string };
  try {
    outcome = { install: await packAndInstall(folder) };
  } catch (error) {
    outcome = { error: error instanceof Error ? error.message : String(error) };
  }
  // Written whole, then renamed: a waiting file never reads half of it.
  await fs.writeFile(`${result}.partial`, JSON.stringify(outcome));
  await fs.rename(`${result}.partial`, result);
  return unwrap(outcome);
}

async function packAndInstall(folder: string): Promise<SharedInstall> {
  const clone = path.join(folder, 'clone');
  const prefix = path.join(folder, 'prefix');
  const home = path.join(folder, 'home');
  await Promise.all([clone, prefix, home].map((each) => fs.mkdir(each)));
  const packed = await packThisBuild(folder);
  const tarball = path.join(clone, path.basename(packed.tarball));
  await fs.rename(packed.tarball, tarball);
  // The staged copy is packed: removed here, beside the install, not at the end of the run.
  const staged = fs.rm(path.dirname(packed.tarball), { recursive: true, force: true });
  const run: CommandRun = await runCommand('bash', ['-e', '-c', INSTALL_LINE], {
    cwd: clone,
    env: { ...userShellEnvironment(prefix, home), npm_config_prefix: prefix },
  });
  await staged;
  if (run.code !== 0) throw new Error(`${INSTALL_LINE} failed (exit ${run.code}):\n${run.stdout}${run.stderr}`);
  return {
    tarball,
    files: packed.files,
    clone,
    prefix,
    bin: path.join(prefix, 'bin', 'staticmcp'),
    command: INSTALL_LINE,
    output: run.stdout + run.stderr,
  };
}

async function waitForResult(result: string): Promise<SharedInstall> {
  const deadline = Date.now() + WAIT_LIMIT_MS;
  for (;;) {
    const text = await fs.readFile(result, 'utf8').catch(() => undefined);
    if (text !== undefined) return unwrap(JSON.parse(text) as { install?: SharedInstall; error?: string });
    if (Date.now() > deadline)
      throw new Error(`no shared install after ${WAIT_LIMIT_MS} ms: the file installing it stopped (${result})`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function unwrap(outcome: { install?: SharedInstall; error?: string }): SharedInstall {
  if (!outcome.install) throw new Error(`the shared install of the packed package failed: ${outcome.error}`);
  return outcome.install;
}

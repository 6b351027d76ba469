// `staticmcp init [folder]`: its declaration, and the handler that copies the starter project from templates/project into a new or empty
// folder, keeping the executable bit of scripts, with deploy files for the common hosts (deploy/,
// netlify.toml, a GitHub Pages workflow) that a user keeps or deletes. With `--shards N` the Pages
// workflow builds the calls as an N-job matrix and merges the parts; in an existing project, that
// workflow is all it adds. Never overwrites anything.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { StaticMcpError } from '../../staticmcp-error.js';
import { defineCommand } from '../command-spec.js';
import { commandLine } from '../invocation.js';
import { printError } from '../print-error.js';
import { packageInfo } from '../../version.js';

const TEMPLATE_ROOT = fileURLToPath(new URL('../../../templates/project', import.meta.url));
const SHARDED_WORKFLOW_TEMPLATE = fileURLToPath(
  new URL('../../../templates/shards/staticmcp-pages.yml', import.meta.url),
);
/** Where the Pages workflow lands in a project, sharded or not. */
const PAGES_WORKFLOW = path.join('.github', 'workflows', 'staticmcp-pages.yml');
/** The most jobs one GitHub Actions matrix runs. */
const MAX_MATRIX_JOBS = 256;

/** The sharded Pages workflow for `count` shards, pinned to this staticmcp (shards and merge must agree). */
async function renderShardedWorkflow(count: number): Promise<string> {
  const values: Record<string, string> = {
    count: String(count),
    matrix: Array.from({ length: count }, (_, index) => index + 1).join(', '),
    version: packageInfo().version,
  };
  const template = await fs.readFile(SHARDED_WORKFLOW_TEMPLATE, 'utf8');
  return template.replace(/\{\{(\w+)\}\}/g, (placeholder, key: string) => values[key] ?? placeholder);
}

/** Writes the sharded workflow into `target`, refusing to replace one that is there. */
async function writeShardedWorkflow(target: string, count: number): Promise<string> {
  const file = path.join(target, PAGES_WORKFLOW);
  await fs.mkdir(path.dirname(file), { recursive: true });
  try {
    await fs.writeFile(file, await renderShardedWorkflow(count), { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    throw new StaticMcpError(
      'INIT_WORKFLOW_EXISTS',
      `${PAGES_WORKFLOW} already exists in ${target}; init never overwrites files`,
      `Delete or rename it first (it is the one-machine Pages workflow if init wrote it), then run ${commandLine(['init', '--shards', String(count)])} again.`,
    );
  }
  return file;
}
/**
 * npm drops `.gitignore` from published packages, and a `.github` folder in this repository would
 * read as its own CI: the template stores both without the dot.
 */
const RENAMED_ON_COPY: Record<string, string> = { gitignore: '.gitignore', github: '.github' };

async function copyFolder(from: string, to: string): Promise<string[]> {
  const written: string[] = [];
  await fs.mkdir(to, { recursive: true });
  for (const entry of await fs.readdir(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, RENAMED_ON_COPY[entry.name] ?? entry.name);
    if (entry.isDirectory()) {
      written.push(...(await copyFolder(source, target)));
    } else {
      await fs.copyFile(source, target, fs.constants.COPYFILE_EXCL);
      await fs.chmod(target, (await fs.stat(source)).mode & 0o777);
      written.push(target);
    }
  }
  return written;
}

export const command = defineCommand({
  name: 'init',
  describe: 'create a starter project (a tool, a resource, a prompt, staticmcp.json) in a new folder',
  positional: { name: 'folder', describe: 'a new or empty folder', default: '.' },
  options: {
    shards: {
      type: 'number',
      describe:
        'write a GitHub Pages workflow that builds on N machines (a matrix of build --shard jobs) and merges; in an existing project, add only that workflow',
      check: (value: number) =>
        Number.isInteger(value) && value >= 1 && value <= MAX_MATRIX_JOBS
          ? undefined
          : `--shards must be a whole number from 1 to ${MAX_MATRIX_JOBS} (the most jobs one GitHub Actions matrix runs)`,
    },
  },
  run: ({ positional, options }) => runInitCommand(positional ?? '.', options),
});

interface InitOptions {
  /** Build on this many machines in CI: the Pages workflow becomes a matrix of shards and a merge. */
  shards?: number;
}

async function runInitCommand(folder: string, options: InitOptions = {}): Promise<number> {
  try {
    const target = path.resolve(folder);
    const existing = await fs.readdir(target).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [];
      throw new StaticMcpError(
        'INIT_UNREADABLE',
        `${folder} cannot be read (${error.code})`,
        'Choose a folder you can write to.',
      );
    });
    const relative = path.relative(process.cwd(), target) || '.';
    if (existing.length > 0 && options.shards !== undefined) {
      const file = await writeShardedWorkflow(target, options.shards);
      process.stderr.write(
        `staticmcp: added ${path.relative(process.cwd(), file)}: it builds ${relative} as ${options.shards} shards on GitHub Actions, merges them and publishes the tree to GitHub Pages\n`,
      );
      return 0;
    }
    if (existing.length > 0) {
      throw new StaticMcpError(
        'INIT_NOT_EMPTY',
        `${folder} is not empty; init never overwrites files`,
        `Run it with a new folder name: ${commandLine(['init', 'my-server'])} (or add only the sharded CI workflow to this project: ${commandLine(['init', '--shards', 'N'])})`,
      );
    }
    const written = await copyFolder(TEMPLATE_ROOT, target);
    if (options.shards !== undefined) {
      // The one-machine workflow just copied gives way to the sharded one (both would deploy Pages).
      await fs.rm(path.join(target, PAGES_WORKFLOW));
      await writeShardedWorkflow(target, options.shards);
    }
    process.stderr.write(
      `staticmcp: created ${written.length} files in ${relative}\n  next: ${commandLine(['build', relative])} && ${commandLine(['serve', relative])}\n` +
        `  to deploy: see ${path.join(relative, 'deploy', 'README.md')} (delete the deploy files of hosts you do not use)\n`,
    );
    return 0;
  } catch (error) {
    printError(error);
    return error instanceof StaticMcpError ? 2 : 1;
  }
}

// `staticmcp init [folder]`: its declaration, and the handler that copies the starter project from templates/project into a new or empty
// folder, keeping the executable bit of scripts, with deploy files for the common hosts (deploy/,
// netlify.toml, a GitHub Pages workflow) that a user keeps or deletes. Every command those files run
// names this exact staticmcp (src/shared/staticmcp-command.ts); before staticmcp is on the npm registry
// they install it from a tarball of this installation that init writes to deploy/. With
// `--shards N` the Pages workflow builds the calls as an N-job matrix and merges the parts; in an
// existing project, that workflow (and the tarball, if missing) is all it adds. Never overwrites anything.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  deployCommandWords,
  PUBLISHED_ON_NPM,
  pinnedPackage,
  projectTarballPath,
} from '../../shared/staticmcp-command.js';
import { StaticMcpError } from '../../core/staticmcp-error.js';
import { packageInfo } from '../../shared/version.js';
import { defineCommand } from '../command-spec.js';
import { exitCodeOf } from '../exit-codes.js';
import { commandLine } from '../invocation.js';
import { packRunningPackage } from '../pack-running-package.js';
import { printError } from '../print-error.js';

const TEMPLATE_ROOT = fileURLToPath(new URL('../../../templates/project', import.meta.url));
const SHARDED_WORKFLOW_TEMPLATE = fileURLToPath(
  new URL('../../../templates/shards/staticmcp-pages.yml', import.meta.url),
);
/** Where the Pages workflow lands in a project, sharded or not. */
const PAGES_WORKFLOW = path.join('.github', 'workflows', 'staticmcp-pages.yml');
/** The most jobs one GitHub Actions matrix runs. */
const MAX_MATRIX_JOBS = 256;
/** The config schema this staticmcp validates with, copied beside the project's staticmcp.json. */
const CONFIG_SCHEMA = fileURLToPath(new URL('../../../staticmcp.schema.json', import.meta.url));
const CONFIG_SCHEMA_FILE = 'staticmcp.schema.json';
/**
 * Template files with `{{placeholders}}` (the deploy commands, pinned to this staticmcp). Only
 * these are rendered: a prompt's own `{{name}}` must reach the project as it is.
 */
const RENDERED_TEMPLATES = new Set(
  ['Dockerfile', 'netlify.toml', 'staticmcp.json', 'deploy/README.md', 'deploy/wrangler.jsonc', PAGES_WORKFLOW].map(
    (file) => path.normalize(file),
  ),
);

/** What the templates' placeholders become: every command names this exact staticmcp. */
function templateValues(): Record<string, string> {
  const words = deployCommandWords();
  const { version } = packageInfo();
  return {
    version,
    // The command a CI job or a host's build runs in the project folder.
    staticmcp: words.join(' '),
    // The bridge as a client config runs it: published, npx with the pinned package; before that the
    // installed command (a client starts it from anywhere, where no ./deploy/ tarball is).
    stdioCommand: JSON.stringify(PUBLISHED_ON_NPM ? 'npx' : 'staticmcp'),
    stdioArgs: [...(PUBLISHED_ON_NPM ? ['-y', pinnedPackage()] : []), 'serve']
      .map((word) => JSON.stringify(word))
      .join(', '),
    configSchema: `./${CONFIG_SCHEMA_FILE}`,
    // The live origin's image installs this exact staticmcp: from the registry once published,
    // until then from the tarball init packs beside the deploy files.
    dockerInstall: PUBLISHED_ON_NPM
      ? `RUN npm install --global ${pinnedPackage()} && npm cache clean --force`
      : `COPY ${projectTarballPath()} /tmp/staticmcp.tgz\nRUN npm install --global /tmp/staticmcp.tgz && rm /tmp/staticmcp.tgz && npm cache clean --force`,
    beforePublication: PUBLISHED_ON_NPM
      ? ''
      : `staticmcp is not on the npm registry yet, so the commands here install it from
\`${projectTarballPath()}\`, the staticmcp ${version} that wrote these files, packed by \`init\`:
commit it with them. Run locally, \`staticmcp\` is the command you installed;
once staticmcp ${version} is published, \`npx --yes staticmcp@${version}\` does the same as the tarball.

`,
  };
}

function renderTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (placeholder, key: string) => values[key] ?? placeholder);
}

/** The sharded Pages workflow for `count` shards, pinned to this staticmcp (shards and merge must agree). */
async function renderShardedWorkflow(count: number): Promise<string> {
  const values: Record<string, string> = {
    ...templateValues(),
    count: String(count),
    matrix: Array.from({ length: count }, (_, index) => index + 1).join(', '),
  };
  return renderTemplate(await fs.readFile(SHARDED_WORKFLOW_TEMPLATE, 'utf8'), values);
}

/**
 * Before publication the deploy files install staticmcp from a tarball in the project: writes it
 * unless it is there (an earlier init of this same version wrote it). Returns its path when written.
 */
async function writeProjectTarball(target: string): Promise<string | undefined> {
  if (PUBLISHED_ON_NPM) return undefined;
  const file = path.join(target, projectTarballPath());
  await fs.mkdir(path.dirname(file), { recursive: true });
  try {
    await fs.writeFile(file, await packRunningPackage(), { flag: 'wx' });
    return file;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw error;
  }
}

/** One line for init's output: where the deploy files get staticmcp from. */
function describeDeploySource(relative: string): string {
  const { version } = packageInfo();
  return PUBLISHED_ON_NPM
    ? `  the deploy files run staticmcp ${version} from the npm registry (${deployCommandWords().join(' ')})\n`
    : `  staticmcp is not on the npm registry yet: the deploy files install staticmcp ${version} from ${path.join(relative, projectTarballPath())}; commit it with them\n`;
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
 * read as its own CI: the template stores both without the dot (and `.dockerignore` likewise).
 */
const RENAMED_ON_COPY: Record<string, string> = {
  gitignore: '.gitignore',
  github: '.github',
  dockerignore: '.dockerignore',
};

/** Copies the starter project into `to` (`root` is where it started, for RENDERED_TEMPLATES). */
async function copyFolder(from: string, to: string, values: Record<string, string>, root = to): Promise<string[]> {
  const written: string[] = [];
  await fs.mkdir(to, { recursive: true });
  for (const entry of await fs.readdir(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, RENAMED_ON_COPY[entry.name] ?? entry.name);
    if (entry.isDirectory()) {
      written.push(...(await copyFolder(source, target, values, root)));
    } else {
      if (RENDERED_TEMPLATES.has(path.relative(root, target))) {
        await fs.writeFile(target, renderTemplate(await fs.readFile(source, 'utf8'), values), { flag: 'wx' });
      } else {
        await fs.copyFile(source, target, fs.constants.COPYFILE_EXCL);
      }
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
      const tarball = await writeProjectTarball(target);
      process.stderr.write(
        `staticmcp: added ${path.relative(process.cwd(), file)}${tarball ? ` and ${path.relative(process.cwd(), tarball)}` : ''}: it builds ${relative} as ${options.shards} shards on GitHub Actions, merges them and publishes the tree to GitHub Pages\n` +
          describeDeploySource(relative),
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
    const written = await copyFolder(TEMPLATE_ROOT, target, templateValues());
    // staticmcp.json's $schema names this copy: a fresh project has no node_modules/staticmcp, and
    // a copy is right offline, before publication, and for exactly the version that validates it.
    await fs.copyFile(CONFIG_SCHEMA, path.join(target, CONFIG_SCHEMA_FILE), fs.constants.COPYFILE_EXCL);
    written.push(path.join(target, CONFIG_SCHEMA_FILE));
    const tarball = await writeProjectTarball(target);
    if (tarball) written.push(tarball);
    if (options.shards !== undefined) {
      // The one-machine workflow just copied gives way to the sharded one (both would deploy Pages).
      await fs.rm(path.join(target, PAGES_WORKFLOW));
      await writeShardedWorkflow(target, options.shards);
    }
    process.stderr.write(
      `staticmcp: created ${written.length} files in ${relative}\n  next: ${commandLine(['build', relative])} && ${commandLine(['serve', relative])}\n` +
        `  to deploy: see ${path.join(relative, 'deploy', 'README.md')} (delete the deploy files of hosts you do not use)\n` +
        describeDeploySource(relative),
    );
    return 0;
  } catch (error) {
    printError(error);
    return exitCodeOf(error);
  }
}

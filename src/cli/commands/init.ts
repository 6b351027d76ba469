// `staticmcp init [folder]`: its declaration, and the handler that copies the starter project from templates/project into a new or empty
// folder, keeping the executable bit of scripts, with deploy files for the common hosts (deploy/,
// netlify.toml, a GitHub Pages workflow) that a user keeps or deletes. Never overwrites anything.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { StaticMcpError } from '../../staticmcp-error.js';
import { defineCommand } from '../command-spec.js';
import { commandLine } from '../invocation.js';
import { printError } from '../print-error.js';

const TEMPLATE_ROOT = fileURLToPath(new URL('../../../templates/project', import.meta.url));
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
  options: {},
  run: ({ positional }) => runInitCommand(positional ?? '.'),
});

async function runInitCommand(folder: string): Promise<number> {
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
    if (existing.length > 0) {
      throw new StaticMcpError(
        'INIT_NOT_EMPTY',
        `${folder} is not empty; init never overwrites files`,
        `Run it with a new folder name: ${commandLine(['init', 'my-server'])}`,
      );
    }
    const written = await copyFolder(TEMPLATE_ROOT, target);
    const relative = path.relative(process.cwd(), target) || '.';
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

// staticmcp as npm users get it: `npm pack` of the package (its package.json `files`, with the
// dist/ this test run compiled), installed globally into a temporary prefix with every install
// script refused, must run on its own: --version, init, build of the example project, check, and
// serve answering initialize over stdio. Also: the tarball holds only what runs, and the README's
// install line names the tarball npm pack really writes.
//
// Packing and installing: test/helpers/packed-package.ts (shared with readme-walkthrough.test.ts).
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  installGlobally,
  NPM_ENVIRONMENT as ENV,
  PACKAGE_JSON,
  packPackage,
  runCommand as run,
} from '../helpers/packed-package.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

/** Starts `staticmcp serve <project>`, sends initialize on stdin and returns the first line it answers. */
function initializeOverStdio(
  bin: string,
  project: string,
): Promise<{ answer: Record<string, unknown>; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['serve', project], { env: ENV, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no answer to initialize within 30 s; stderr: ${stderr}`));
    }, 30_000);
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      const newline = stdout.indexOf('\n');
      if (newline < 0) return;
      clearTimeout(timer);
      child.stdin.end();
      child.on('exit', () => resolve({ answer: JSON.parse(stdout.slice(0, newline)), stderr }));
    });
    child.on('error', reject);
    child.stdin.write(
      `${JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'packed-install', version: '1' },
        },
      })}\n`,
    );
  });
}

describe('the packed package, installed globally', () => {
  const packageJson = PACKAGE_JSON;
  let tarball = '';
  let packedFiles: string[] = [];
  let bin = '';
  let work = '';

  beforeAll(async () => {
    work = await temporaryFolder('staticmcp-packed-');
    ({ tarball, files: packedFiles } = await packPackage(work));
    bin = await installGlobally(tarball, path.join(work, 'prefix'));
  }, 240_000);

  it('is named as the README says to install it, and holds only what runs', async () => {
    expect(path.basename(tarball)).toBe(`${packageJson.name}-${packageJson.version}.tgz`);
    const readme = await fs.readFile(path.join(REPO_ROOT, 'README.md'), 'utf8');
    expect(readme).toContain(`npm install -g ./${path.basename(tarball)}`);

    expect(packedFiles).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json', 'dist/cli/main.js']));
    expect(packedFiles).toContain('dist/edge/_worker.js');
    expect(packedFiles).toContain('templates/index.html');
    expect(packedFiles).toContain('templates/project/tools/hello');
    // The schema init's staticmcp.json names, and the validator compiled from it.
    expect(packedFiles).toContain('staticmcp.schema.json');
    expect(packedFiles).toContain('dist/project/config-validator.js');
    const unexpected = packedFiles.filter(
      (file) =>
        !['LICENSE', 'README.md', 'package.json', 'staticmcp.schema.json'].includes(file) &&
        !/^templates\//.test(file) &&
        !(/^dist\/.+\.js$/.test(file) && !/^dist\/edge\/(?!_worker\.js$)/.test(file)),
    );
    expect(unexpected, 'only the compiled CLI, the worker bundle, the config schema and the templates ship').toEqual(
      [],
    );
  });

  it('needs no install script: npm runs none for its users and asks them to allow none', async () => {
    const installed = JSON.parse(
      await fs.readFile(path.join(path.dirname(bin), '..', 'lib', 'node_modules', 'staticmcp', 'package.json'), 'utf8'),
    ) as { scripts?: Record<string, string> };
    const installScripts = Object.keys(installed.scripts ?? {}).filter((name) =>
      ['preinstall', 'install', 'postinstall', 'prepare'].includes(name),
    );
    expect(installScripts).toEqual([]);
  });

  it('prints its version', async () => {
    const version = await run(bin, ['--version'], work);
    expect(version.code, version.stderr).toBe(0);
    expect(version.stdout.trim()).toBe(packageJson.version);
  });

  it('builds the example project, checks the tree and serves it over stdio', async () => {
    const project = path.join(work, 'example');
    await fs.cp(path.join(REPO_ROOT, 'fixtures', 'example'), project, {
      recursive: true,
      filter: (source) => !/[/\\](dist|\.staticmcp)$/.test(source),
    });
    const build = await run(bin, ['build', project], work);
    expect(build.code, build.stderr).toBe(0);
    const tree = path.join(project, 'dist');
    const manifest = JSON.parse(await fs.readFile(path.join(tree, 'mcp.json'), 'utf8')) as {
      staticmcp: { generator: string };
    };
    expect(manifest.staticmcp.generator).toBe(`staticmcp ${packageJson.version}`);
    // The tree carries the worker bundle and the landing page, both read from the installed package.
    expect(await fs.readFile(path.join(tree, '_worker.js'), 'utf8')).toMatch(/^\/\/ _worker\.js: the MCP endpoint/);
    expect(await fs.readFile(path.join(tree, 'index.html'), 'utf8')).toContain('<h2>Tools (6)</h2>');

    const check = await run(bin, ['check', tree], work);
    expect(check.code, check.stderr).toBe(0);

    const { answer, stderr } = await initializeOverStdio(bin, project);
    expect(answer, stderr).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      result: { protocolVersion: '2025-06-18', serverInfo: { name: 'example' } },
    });
  });

  it('creates a starter project with init, its tool still executable', async () => {
    const starter = path.join(work, 'starter');
    const init = await run(bin, ['init', starter], work);
    expect(init.code, init.stderr).toBe(0);
    expect((await fs.stat(path.join(starter, 'tools', 'hello'))).mode & 0o111).not.toBe(0);
    await expect(fs.access(path.join(starter, '.gitignore'))).resolves.toBeUndefined();
  });
});

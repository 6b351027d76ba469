// staticmcp as npm users get it: `npm pack` of the package (its package.json `files`, with the
// dist/ this test run compiled), installed globally into a temporary prefix with every install
// script refused, must run on its own: --version, init, build of the example project, check, and
// serve answering initialize over stdio. Also: the tarball holds only what runs, and the README's
// install line names the tarball npm pack really writes.
//
// The install resolves the dependencies as a user's does (their newest matching versions, not the
// lockfile's), preferring the npm cache that `npm ci` filled; what the cache lacks comes from the
// registry, so the first run on a machine needs it.
import { execFile, spawn } from 'node:child_process';
import { promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLI, REPO_ROOT } from '../helpers/paths.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

/** npm's own settings from a surrounding `npm test` (prefix, dry-run, …) must not steer the install. */
const ENV = Object.fromEntries(
  Object.entries(process.env).filter(
    ([name]) => !/^npm_/i.test(name) || /^npm_config_(cache|userconfig|registry)$/i.test(name),
  ),
);

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: readonly string[], cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd, env: ENV, timeout: 180_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

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
  const packageJson = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
    files: string[];
  };
  let tarball = '';
  let packedFiles: string[] = [];
  let bin = '';
  let work = '';

  beforeAll(async () => {
    work = await temporaryFolder('staticmcp-packed-');
    // What `npm run build` writes to dist/ is what global setup compiled for this run (same tsc,
    // same worker bundle), so the tarball holds the code under test, never a stale dist/.
    const stage = path.join(work, 'stage');
    await fs.mkdir(stage);
    // package.json "files" besides dist/ (staged from this run's build below): templates, the config schema.
    const shipped = packageJson.files.filter((entry) => !entry.startsWith('dist') && !entry.startsWith('!'));
    for (const entry of ['package.json', 'README.md', 'LICENSE', ...shipped]) {
      await fs.cp(path.join(REPO_ROOT, entry), path.join(stage, entry), { recursive: true });
    }
    await fs.cp(path.dirname(path.dirname(CLI)), path.join(stage, 'dist'), { recursive: true });
    const pack = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], stage);
    expect(pack.code, pack.stderr).toBe(0);
    const [report] = JSON.parse(pack.stdout) as [{ filename: string; files: { path: string }[] }];
    tarball = path.join(work, report.filename);
    packedFiles = report.files.map((file) => file.path).sort();

    const prefix = path.join(work, 'prefix');
    const install = await run(
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
      work,
    );
    expect(install.code, install.stderr).toBe(0);
    bin = path.join(prefix, 'bin', 'staticmcp');
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
        // The pinned registry and server-card schemas discovery files are validated against, with their sources.
        !/^schemas\/(README\.md|[a-z0-9.-]+\.schema\.json)$/.test(file) &&
        !(/^dist\/.+\.js$/.test(file) && !/^dist\/edge\/(?!_worker\.js$)/.test(file)),
    );
    expect(packedFiles).toContain('schemas/registry-server.2025-12-11.schema.json');
    expect(unexpected, 'only the compiled CLI, the worker bundle, the schemas and the templates ship').toEqual([]);
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

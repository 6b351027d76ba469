// staticmcp as npm users get it: `npm pack` of the package (its package.json `files`, with the
// dist/ this test run compiled), installed globally into a temporary prefix by the README's line
// `npm install -g ./<tarball>`, must run on its own, with no dependency installed beside it:
// --version, help, a usage error, init, a build of the starter it makes, check, index, merge, and
// serve answering initialize over stdio and the tree over HTTP. Also: the tarball holds only what
// runs, the README's install line names the tarball npm pack really writes, and nothing installed
// has an install script, so refusing them (`--ignore-scripts`, npm 11's default) changes nothing.
//
// The pack and the install are the run's one shared install (test/helpers/shared-install.ts),
// which the README walkthrough runs as its first step too.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { COMMAND_BUNDLE_PATHS, COMMAND_LINE_BUNDLE_PATH } from '../../scripts/bundle-cli.mjs';
import { HttpServe, rawRequest } from '../helpers/http-serve.js';
import { initializeOverStdio, PACKAGE_JSON, runCommand } from '../helpers/npm-package.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { installPackedOnce } from '../helpers/shared-install.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

function run(command: string, args: readonly string[], cwd: string) {
  return runCommand(command, args, { cwd });
}

/** Every package folder under `root`'s node_modules (nested ones too): name → folder. */
async function listInstalledPackages(root: string): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  const visit = async (folder: string): Promise<void> => {
    const modules = path.join(folder, 'node_modules');
    for (const entry of await fs.readdir(modules).catch(() => [] as string[])) {
      if (entry.startsWith('.')) continue;
      const packages = entry.startsWith('@')
        ? (await fs.readdir(path.join(modules, entry))).map((name) => `${entry}/${name}`)
        : [entry];
      for (const name of packages) {
        names.set(name, path.join(modules, name));
        await visit(path.join(modules, name));
      }
    }
  };
  await visit(root);
  return names;
}

describe('the packed package, installed globally', () => {
  const packageJson = PACKAGE_JSON;
  let tarball = '';
  let packedFiles: string[] = [];
  let bin = '';
  let prefix = '';
  let work = '';
  let installCommand = '';
  let installOutput = '';
  let starter: Promise<string> | undefined;
  let builtStarter: Promise<string> | undefined;

  /** `init` of the starter project by the installed bin, once for the tests that read what it wrote. */
  function initStarter(): Promise<string> {
    starter ??= (async () => {
      const project = path.join(work, 'starter');
      const init = await run(bin, ['init', project], work);
      expect(init.code, init.stderr).toBe(0);
      return project;
    })();
    return starter;
  }

  /** The starter built by the installed bin, once for the tests that read or serve its tree. */
  function buildStarter(): Promise<string> {
    builtStarter ??= (async () => {
      const project = await initStarter();
      const build = await run(bin, ['build', project], work);
      expect(build.code, build.stderr).toBe(0);
      return project;
    })();
    return builtStarter;
  }

  beforeAll(async () => {
    work = await temporaryFolder('staticmcp-packed-');
    ({
      tarball,
      files: packedFiles,
      prefix,
      bin,
      command: installCommand,
      output: installOutput,
    } = await installPackedOnce());
  }, 240_000);

  it('is named as the README says to install it, and holds only what runs', async () => {
    expect(path.basename(tarball)).toBe(`${packageJson.name}-${packageJson.version}.tgz`);
    const readme = await fs.readFile(path.join(REPO_ROOT, 'README.md'), 'utf8');
    expect(readme).toContain(`npm install -g ./${path.basename(tarball)}`);
    expect(installCommand).toBe(`npm install -g ./${path.basename(tarball)}`);

    expect(packedFiles).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json']));
    expect(packedFiles).toContain('dist/edge/_worker.js');
    expect(packedFiles).toContain('templates/index.html');
    expect(packedFiles).toContain('templates/project/tools/hello');
    // The schema init's staticmcp.json names, and the validator compiled from it.
    expect(packedFiles).toContain('staticmcp.schema.json');
    expect(packedFiles).toContain('dist/project/config-validator.cjs');
    // The --help document schemas, compiled ahead of time (ajv standalone code, CommonJS).
    expect(packedFiles).toContain('dist/script/help-validators.cjs');
    // The project's metadata-file schemas, compiled the same way.
    expect(packedFiles).toContain('dist/project/sidecar-validators.cjs');
    expect(packedFiles).toContain('dist/cli/staticmcp-serve.cjs');
    expect(packedFiles).toContain('dist/cli/staticmcp.cjs');
    for (const bundle of Object.values(COMMAND_BUNDLE_PATHS)) expect(packedFiles).toContain(`dist/${bundle}`);
    expect(packedFiles).toContain(`dist/${COMMAND_LINE_BUNDLE_PATH}`);
    // The npm packages the bundles load on demand, one file each (scripts/bundle-vendored.mjs).
    expect(packedFiles).toEqual(expect.arrayContaining(['dist/vendor/ajv.cjs', 'dist/vendor/serve-handler.cjs']));
    const unexpected = packedFiles.filter(
      (file) =>
        !['LICENSE', 'README.md', 'package.json', 'staticmcp.schema.json'].includes(file) &&
        !/^templates\//.test(file) &&
        // The pinned registry and server-card schemas discovery files are validated against, with their sources.
        !/^schemas\/(README\.md|[a-z0-9.-]+\.schema\.json)$/.test(file) &&
        file !== 'dist/script/help-validators.cjs' &&
        file !== 'dist/project/config-validator.cjs' &&
        file !== 'dist/project/sidecar-validators.cjs' &&
        // The serve bundle the bin runs for an ordinary serve line (scripts/bundle-cli.mjs).
        file !== 'dist/cli/staticmcp-serve.cjs' &&
        // A bundle per other command for its ordinary line (build, check, merge, …).
        !Object.values(COMMAND_BUNDLE_PATHS).some((bundle) => file === `dist/${bundle}`) &&
        // Help and usage errors: the whole command line, yargs and every command, in one bundle.
        file !== `dist/${COMMAND_LINE_BUNDLE_PATH}` &&
        file !== 'dist/vendor/ajv.cjs' &&
        file !== 'dist/vendor/serve-handler.cjs' &&
        // The bin: the command's start, bundled as CommonJS (scripts/bundle-cli.mjs).
        file !== 'dist/cli/staticmcp.cjs' &&
        // The worker ships as its bundle, and the landing page's scripts as theirs: never the
        // modules the bundles were made from, which nothing installed runs.
        file !== 'dist/edge/_worker.js' &&
        !/^dist\/page\/[a-z-]+\.js$/.test(file),
    );
    expect(packedFiles).toContain('schemas/registry-server.2025-12-11.schema.json');
    expect(unexpected, 'only the compiled CLI, the worker bundle, the schemas and the templates ship').toEqual([]);
  });

  it('needs no install script: npm runs none for its users and asks them to allow none', async () => {
    const root = path.join(prefix, 'lib', 'node_modules', 'staticmcp');
    /** The scripts npm runs when it installs the package in `folder` (`prepare` too for the one installed by path). */
    const readInstallScripts = async (folder: string, names: readonly string[]): Promise<string[]> => {
      const manifest = JSON.parse(await fs.readFile(path.join(folder, 'package.json'), 'utf8')) as {
        scripts?: Record<string, string>;
        gypfile?: boolean;
      };
      // npm runs `node-gyp rebuild` for a package with a binding.gyp and no install script of its own.
      const gyp = manifest.gypfile === true || (await fs.stat(path.join(folder, 'binding.gyp')).catch(() => undefined));
      return [
        ...Object.keys(manifest.scripts ?? {}).filter((name) => names.includes(name)),
        ...(gyp ? ['binding.gyp'] : []),
      ];
    };
    const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall'];
    expect(await readInstallScripts(root, [...INSTALL_SCRIPTS, 'prepare'])).toEqual([]);
    // Nor any dependency (npm never runs a registry package's `prepare`): the install ran as the
    // README writes it, and one refusing scripts (--ignore-scripts, npm's prompt) gets the same files.
    const withScripts: string[] = [];
    for (const [name, folder] of await listInstalledPackages(root)) {
      const scripts = await readInstallScripts(folder, INSTALL_SCRIPTS);
      if (scripts.length > 0) withScripts.push(`${name}: ${scripts.join(', ')}`);
    }
    expect(withScripts).toEqual([]);
  });

  it('installs nothing besides itself, quietly: no warning on the oldest Node engines allows', async () => {
    // Every npm package it runs is bundled into dist/ (scripts/bundle-cli.mjs, bundle-vendored.mjs):
    // an install is the one tarball, with no dependency to resolve, download or unpack.
    expect(packageJson.dependencies ?? {}).toEqual({});
    expect([...(await listInstalledPackages(path.join(prefix, 'lib', 'node_modules', 'staticmcp'))).keys()]).toEqual(
      [],
    );
    // This suite runs on the oldest Node `engines` allows: any npm warning would reach every user too.
    expect(installOutput).not.toMatch(/EBADENGINE|npm warn/i);
  });

  it('prints help for the command and for each of its commands', async () => {
    const help = await run(bin, ['--help'], work);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toContain('staticmcp <command> [options]');
    for (const name of ['build', 'merge', 'index', 'serve', 'dev', 'check', 'init']) {
      const commandHelp = await run(bin, [name, '--help'], work);
      expect(commandHelp.code, `${name} --help: ${commandHelp.stderr}`).toBe(0);
      expect(commandHelp.stdout, name).toMatch(new RegExp(`^staticmcp ${name} `));
    }
  });

  it('refuses a usage error with what to do, exit 2', async () => {
    const refused = await run(bin, ['serve', '--bogus'], work);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('staticmcp: Unknown argument: bogus');
    expect(refused.stderr).toContain('what to do: run staticmcp serve --help for its options');
  });

  it('prints its version', async () => {
    const version = await run(bin, ['--version'], work);
    expect(version.code, version.stderr).toBe(0);
    expect(version.stdout.trim()).toBe(packageJson.version);
  });

  it('creates a starter project with init (its tool executable), builds it, checks the tree and serves it over stdio', async () => {
    // The starter, not fixtures/example: the installed package is what is tested, and the
    // starter's one tool runs a handful of scripts where the example's run over a hundred.
    const project = await initStarter();
    expect((await fs.stat(path.join(project, 'tools', 'hello'))).mode & 0o111).not.toBe(0);
    await expect(fs.access(path.join(project, '.gitignore'))).resolves.toBeUndefined();
    await buildStarter();
    const tree = path.join(project, 'dist');
    const manifest = JSON.parse(await fs.readFile(path.join(tree, 'mcp.json'), 'utf8')) as {
      staticmcp: { generator: string };
    };
    expect(manifest.staticmcp.generator).toBe(`staticmcp ${packageJson.version}`);
    // The tree carries the worker bundle and the landing page, both read from the installed package.
    expect(await fs.readFile(path.join(tree, '_worker.js'), 'utf8')).toMatch(/^\/\/ _worker\.js: the MCP endpoint/);
    expect(await fs.readFile(path.join(tree, 'index.html'), 'utf8')).toContain('<h2 id="tools-title">Tools (1)</h2>');

    const check = await run(bin, ['check', tree], work);
    expect(check.code, check.stderr).toBe(0);

    const { answer, stderr } = await initializeOverStdio(bin, ['serve', project]);
    expect(answer, stderr).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      // init keeps the starter's own name (templates/project/staticmcp.json), whatever the folder.
      result: { protocolVersion: '2025-06-18', serverInfo: { name: 'my-server' } },
    });
  });

  it('indexes a built tree, and merges the part a one-shard build writes', async () => {
    const project = await buildStarter();
    const index = await run(bin, ['index', path.join(project, 'dist')], work);
    expect(index.code, index.stderr).toBe(0);
    const part = path.join(work, 'part-1');
    const shard = await run(bin, ['build', project, '--shard', '1/1', '--out', part], work);
    expect(shard.code, shard.stderr).toBe(0);
    const merged = path.join(work, 'merged');
    const merge = await run(bin, ['merge', part, '--out', merged], work);
    expect(merge.code, merge.stderr).toBe(0);
    await expect(fs.access(path.join(merged, 'mcp.json'))).resolves.toBeUndefined();
  });

  it('serves a built tree over HTTP, its landing page and a 404 for a missing file', async () => {
    const project = await buildStarter();
    const serve = await HttpServe.start([path.join(project, 'dist')], 45_000, {}, bin);
    try {
      const page = await rawRequest(serve.port, { path: '/' });
      expect(page.status).toBe(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect((await rawRequest(serve.port, { path: '/no-such-file' })).status).toBe(404);
    } finally {
      await serve.stop();
    }
  });

  it("packs itself for a project's deploy files exactly as npm pack packs it", async () => {
    // The tarball the starter's init packed (the test above builds in that project: deploy/ is init's alone).
    const starter = await initStarter();
    const copy = path.join(starter, 'deploy', path.basename(tarball));
    const listing = await run('tar', ['-tzvf', copy], work);
    expect(listing.code, listing.stderr).toBe(0);
    const entries = listing.stdout
      .trim()
      .split('\n')
      .map((line) => {
        const [mode, , , , , name] = line.split(/\s+/);
        return { mode, name: String(name).replace(/^package\//, '') };
      });
    expect(entries.map((entry) => entry.name).sort()).toEqual(packedFiles);
    // The starter tool keeps its executable bit, as init copies it from the unpacked package.
    expect(entries.find((entry) => entry.name === 'templates/project/tools/hello')?.mode).toBe('-rwxr-xr-x');
    // Bytes that depend only on the installation: init again, same tarball, nothing new to commit.
    const again = path.join(work, 'packed-again');
    expect((await run(bin, ['init', again], work)).code).toBe(0);
    expect(
      (await fs.readFile(path.join(again, 'deploy', path.basename(tarball)))).equals(await fs.readFile(copy)),
    ).toBe(true);
  });
});

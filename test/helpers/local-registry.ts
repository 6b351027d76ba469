// A private npm registry for one test file: verdaccio (a devDependency; 6.8.0, the last that runs
// on Node 20, with node-fetch overridden to 2.7.0 in package.json) on 127.0.0.1 with its config,
// storage and users in a temporary folder. `staticmcp` is served only from what a test publishes
// there (never proxied, so a package of that name elsewhere can never stand in); every other
// package is proxied from the registry npm uses here, as a host's build image would fetch it.
//
// Commands run against it with `env()`: the registry, a user config holding the publish token, and
// a cache of the test's own. That cache keeps npx's installs (`_npx/`) private, because npx reuses
// an install of `staticmcp@<version>` it finds there, which would be another run's package; its
// `_cacache/` content store is the machine's npm cache, so dependency tarballs are not downloaded again.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { NPM_ENV } from './npm-package.js';

const STARTUP_TIMEOUT_MS = 60_000;

function verdaccioBin(): string {
  try {
    return path.join(
      path.dirname(createRequire(import.meta.url).resolve('verdaccio/package.json')),
      'bin',
      'verdaccio',
    );
  } catch {
    throw new Error(
      'verdaccio, the devDependency these tests publish to, is not installed: run npm ci in the repository',
    );
  }
}

/** A port nothing listens on right now (the OS picks it). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export class LocalRegistry {
  private output = '';

  private constructor(
    private readonly child: ChildProcess,
    /** `http://127.0.0.1:<port>/` */
    readonly url: string,
    private readonly folder: string,
  ) {
    child.stdout?.on('data', (chunk: Buffer) => {
      this.output += chunk.toString('utf8');
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      this.output += chunk.toString('utf8');
    });
  }

  /** Starts verdaccio with its files in `folder` and a user allowed to publish. */
  static async start(folder: string): Promise<LocalRegistry> {
    const uplink = process.env.npm_config_registry ?? 'https://registry.npmjs.org/';
    const config = path.join(folder, 'config.yaml');
    await fs.writeFile(
      config,
      [
        `storage: ${JSON.stringify(path.join(folder, 'storage'))}`,
        `auth: { htpasswd: { file: ${JSON.stringify(path.join(folder, 'htpasswd'))} } }`,
        // A package's metadata is fetched from upstream once per test file, not every 2 minutes.
        `uplinks: { upstream: { url: ${JSON.stringify(uplink)}, maxage: 30m } }`,
        'packages:',
        "  'staticmcp': { access: $all, publish: $authenticated }",
        "  '**': { access: $all, publish: $authenticated, proxy: upstream }",
        'web: { enable: false }',
        'log: { type: stdout, format: pretty, level: error }',
        '',
      ].join('\n'),
    );
    const port = await freePort();
    const child = spawn(process.execPath, [verdaccioBin(), '--config', config, '--listen', `127.0.0.1:${port}`], {
      cwd: folder,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const registry = new LocalRegistry(child, `http://127.0.0.1:${port}/`, folder);
    const deadline = Date.now() + STARTUP_TIMEOUT_MS;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`verdaccio exited at start: ${registry.output}`);
      const ping = await fetch(`${registry.url}-/ping`).catch(() => undefined);
      if (ping?.ok) break;
      if (Date.now() > deadline) {
        await registry.stop();
        throw new Error(
          `verdaccio did not answer on ${registry.url} within ${STARTUP_TIMEOUT_MS} ms: ${registry.output}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await registry.addPublisher();
    return registry;
  }

  /** Registers a user (verdaccio's htpasswd plugin lets anyone sign up) and writes its token where npm reads it. */
  private async addPublisher(): Promise<void> {
    const response = await fetch(`${this.url}-/user/org.couchdb.user:publisher`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'publisher', password: 'a-test-password' }),
    });
    const { token } = (await response.json()) as { token?: string };
    if (!token) throw new Error(`verdaccio refused to add a user (${response.status}): ${this.output}`);
    const hostPath = this.url.replace(/^http:/, '');
    await fs.writeFile(path.join(this.folder, 'npmrc'), `registry=${this.url}\n${hostPath}:_authToken=${token}\n`);
    // The machine's content store, shared; npx's installs, private (see the header).
    const shared = execFileSync('npm', ['config', 'get', 'cache'], { env: NPM_ENV, encoding: 'utf8' }).trim();
    await fs.mkdir(path.join(shared, '_cacache'), { recursive: true });
    await fs.mkdir(path.join(this.folder, 'npm-cache'));
    await fs.symlink(path.join(shared, '_cacache'), path.join(this.folder, 'npm-cache', '_cacache'), 'dir');
  }

  /** The environment for an npm, npx or build command against this registry. */
  env(): Record<string, string> {
    return {
      ...NPM_ENV,
      npm_config_registry: this.url,
      npm_config_userconfig: path.join(this.folder, 'npmrc'),
      npm_config_cache: path.join(this.folder, 'npm-cache'),
      // A host's build starts with an empty cache and fetches each package's metadata once, as the
      // first install here does; later commands use what it fetched seconds ago instead of asking
      // again (each question costs verdaccio a parse of the whole document: 10 s an install).
      npm_config_prefer_offline: 'true',
      // Neither is part of a build; both would ask the registry (and verdaccio its upstream).
      npm_config_update_notifier: 'false',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
    };
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.on('exit', resolve));
    this.child.kill('SIGTERM');
    await exited;
  }
}

// A private npm registry for one test file, served from the test's own process on 127.0.0.1:
// `staticmcp` is answered only from what a test publishes there with `npm publish` (never from
// upstream, so a package of that name elsewhere can never stand in); a request for any other
// package is redirected to the registry npm uses here, so npm fetches it from there as a host's
// build image would. A redirect, not a proxy: a proxy parses every package document an install
// asks for (about 115 of them), which cost more CPU than the installs themselves.
//
// Commands run against it with `env()`: the registry, a user config holding the publish token, and
// a cache of the test's own. That cache keeps npx's installs (`_npx/`) private, because npx reuses
// an install of `staticmcp@<version>` it finds there, which would be another run's package; its
// `_cacache/` content store is the machine's npm cache, so dependency tarballs are not downloaded again.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { NPM_ENV } from './npm-package.js';

/** The one package this registry holds itself. */
const OWN_PACKAGE = 'staticmcp';
/** A publish carries the tarball as base64 in its JSON body; staticmcp's is well under this. */
const MAX_PUBLISH_BYTES = 64 * 1024 * 1024;

interface VersionManifest {
  version: string;
  dist: { tarball: string; [key: string]: unknown };
  [key: string]: unknown;
}

/** What `npm publish` PUTs: the package document with the tarball attached. */
interface PublishBody {
  name?: string;
  versions?: Record<string, VersionManifest>;
  'dist-tags'?: Record<string, string>;
  _attachments?: Record<string, { data: string }>;
}

function answerJson(response: http.ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

function readBody(request: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    request.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > MAX_PUBLISH_BYTES) request.destroy(new Error(`a publish over ${MAX_PUBLISH_BYTES} bytes`));
      else chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

export class LocalRegistry {
  /** Published versions of staticmcp, and their tarballs by file name. */
  private readonly versions = new Map<string, VersionManifest>();
  private readonly tarballs = new Map<string, Buffer>();
  private readonly distTags: Record<string, string> = {};
  private readonly token = randomBytes(16).toString('hex');

  private constructor(
    private readonly server: http.Server,
    /** Where requests for every other package go. */
    private readonly upstream: string,
    private readonly folder: string,
    /** `http://127.0.0.1:<port>/` */
    readonly url = '',
  ) {}

  /** Starts the registry, with its npm user config and cache in `folder`. */
  static async start(folder: string): Promise<LocalRegistry> {
    const upstream = process.env.npm_config_registry ?? 'https://registry.npmjs.org/';
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const registry = new LocalRegistry(
      server,
      upstream.endsWith('/') ? upstream : `${upstream}/`,
      folder,
      `http://127.0.0.1:${port}/`,
    );
    server.on('request', (request, response) => {
      registry.answer(request, response).catch((error: unknown) => {
        if (!response.headersSent) answerJson(response, 500, { error: String(error) });
        else response.destroy();
      });
    });
    await registry.writeUserConfig();
    return registry;
  }

  private async answer(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const url = request.url ?? '/';
    const [name = '', rest] = decodeURIComponent(url.slice(1).split('?')[0] ?? '').split('/-/');
    if (name !== OWN_PACKAGE) {
      // The upstream registry answers, asked by npm itself (the path keeps its escaping).
      response.writeHead(302, { location: new URL(url.slice(1), this.upstream).href });
      response.end();
      return;
    }
    if (request.method === 'PUT' && rest === undefined) return this.publish(request, response);
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return answerJson(response, 405, { error: 'method not allowed' });
    if (rest !== undefined) {
      const tarball = this.tarballs.get(rest);
      if (!tarball) return answerJson(response, 404, { error: 'not found' });
      response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': tarball.length });
      response.end(tarball);
      return;
    }
    if (this.versions.size === 0) return answerJson(response, 404, { error: 'not found' });
    answerJson(response, 200, {
      _id: OWN_PACKAGE,
      name: OWN_PACKAGE,
      'dist-tags': this.distTags,
      versions: Object.fromEntries(this.versions),
    });
  }

  /** Takes what `npm publish` sends: one new version, its tarball attached, from the user `env()` names. */
  private async publish(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    if (request.headers.authorization !== `Bearer ${this.token}`)
      return answerJson(response, 401, { error: 'publishing needs the token of this registry’s user config' });
    const body = JSON.parse(await readBody(request)) as PublishBody;
    const [version, manifest] = Object.entries(body.versions ?? {})[0] ?? [];
    const [file, attachment] = Object.entries(body._attachments ?? {})[0] ?? [];
    if (body.name !== OWN_PACKAGE || !version || !manifest || !file || !attachment)
      return answerJson(response, 400, { error: `a publish of ${OWN_PACKAGE} with one version and its tarball` });
    if (this.versions.has(version))
      return answerJson(response, 409, { error: `${OWN_PACKAGE}@${version} is published` });
    this.tarballs.set(file, Buffer.from(attachment.data, 'base64'));
    this.versions.set(version, {
      ...manifest,
      dist: { ...manifest.dist, tarball: `${this.url}${OWN_PACKAGE}/-/${file}` },
    });
    Object.assign(this.distTags, body['dist-tags'] ?? { latest: version });
    answerJson(response, 201, { ok: true });
  }

  /** Writes the user config npm reads the registry and the publish token from, and the cache folder. */
  private async writeUserConfig(): Promise<void> {
    const hostPath = this.url.replace(/^http:/, '');
    await fs.writeFile(path.join(this.folder, 'npmrc'), `registry=${this.url}\n${hostPath}:_authToken=${this.token}\n`);
    // The machine's content store, shared; npx's installs, private (see the header).
    // Under `npm test` npm names it in the environment; asking npm would start one more npm.
    const shared =
      NPM_ENV.npm_config_cache ??
      execFileSync('npm', ['config', 'get', 'cache'], { env: NPM_ENV, encoding: 'utf8' }).trim();
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
      // first install here does; later commands use what it fetched seconds ago instead of asking again.
      npm_config_prefer_offline: 'true',
      // Neither is part of a build; both would ask the registry.
      npm_config_update_notifier: 'false',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
    };
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

// The host runtimes of the runtimes tier, started at most once per `vitest run` and shared by the
// test files that only read the built fixtures/example or fixtures/conformance
// (test/helpers/shared-hosts.ts asks for them). test/global-setup.ts runs a loopback server in
// vitest's own process: `GET /<host>` starts that host the first time any file asks, and answers
// its address to every file after; the run's end stops them all. Nothing starts when no file asks,
// so running one unrelated file costs nothing. `workerd` serves a copy of the built example,
// `conformance-workerd` fixtures/conformance, built. The hosts' own runtimes (`pages-dev`,
// `wrangler-dev`, `netlify-deno`) serve one tree that carries what the tests of the plain example
// and those of packs and skills need, so each starts once a run: a copy of the example with
// test/fixtures/skills-project's skills added and a public URL set, built packed
// (`--max-call-files 1`: capital, greet and math_multiply go into packs, word-count and the
// all-defaults greet stay call files), with the deploy files `init` writes. Their answer also names
// the project folder, for the files that read the tree beside the host. Files that need a runtime
// with settings of their own (secrets, their own project) still start their own.
// Each `GET /<host>` holds the host for the asking test file until that file's `DELETE /<host>`
// (test/helpers/shared-hosts.ts sends it after the file's own afterAll hooks, or sooner, when the
// file is done with it). Deno, in a process group of its own, is paused while no file holds it and
// goes on when one asks: most of the run it would otherwise idle. Of wrangler only its esbuild is
// paused: a resumed wrangler can end itself (test/hosts/host-processes.ts, startWrangler). A host
// that was paused is handed out only once it answers a request again (on a connection of its own): its timers that came due while it was
// stopped (idle connections to close) have run by then, not while the asking file's first request
// is on its way. A host that ended by itself (its last output is printed then), or whose port
// refuses connections while its process lives on (wrangler whose workerd is gone), is ended and
// started again for the next file that asks, which is told which files used it last.
import { execFile } from 'node:child_process';
import { cpSync, promises as fs, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  addInitDeployFiles,
  type MakeFolder,
  type RunningHost,
  startNetlifyUnderDeno,
  startPagesDev,
  startWranglerDev,
} from './hosts/host-processes.js';

/**
 * The hosts started on demand: over the example, workerd (miniflare); over the packed example with
 * skills, wrangler pages dev, wrangler dev and Netlify under Deno; over fixtures/conformance,
 * workerd.
 */
export const SHARED_HOSTS = ['workerd', 'pages-dev', 'wrangler-dev', 'netlify-deno', 'conformance-workerd'] as const;
export type SharedHostName = (typeof SHARED_HOSTS)[number];

/** How long a resumed host may take to answer again; past it, it is handed out anyway, and the test says what fails. */
const RESUME_DEADLINE_MS = 30_000;
/** One probe of a resumed host; a probe unanswered this long is sent again on a new connection. */
const PROBE_TIMEOUT_MS = 2_000;

/** Resolves once the http(s) host at `url` answers a request (any status) on a new connection, or after the deadline. */
async function waitUntilAnswering(url: URL): Promise<void> {
  if (url.protocol !== 'http:') return;
  const deadline = Date.now() + RESUME_DEADLINE_MS;
  while (Date.now() < deadline) {
    const answered = await new Promise<boolean>((resolve) => {
      const request = http.get(url, { agent: false, timeout: PROBE_TIMEOUT_MS }, (response) => {
        response.resume();
        response.on('end', () => resolve(true));
        response.on('error', () => resolve(true));
      });
      request.on('timeout', () => request.destroy());
      request.on('error', () => resolve(false));
    });
    if (answered) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Whether nothing listens on the port of `url` any more (a connection is refused); a slow accept is not. */
function refusesConnections(url: URL): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: url.hostname, port: Number(url.port) });
    const settle = (refused: boolean): void => {
      socket.destroy();
      resolve(refused);
    };
    socket.setTimeout(PROBE_TIMEOUT_MS, () => settle(false));
    socket.on('connect', () => settle(false));
    socket.on('error', (error: NodeJS.ErrnoException) => settle(error.code === 'ECONNREFUSED'));
  });
}

/** The public URL of the packed example (its server card and AI Catalog name it). */
const PACKED_PUBLIC_URL = 'https://example.staticmcp.test/';

export interface SharedHostsServer {
  /** `http://127.0.0.1:<port>/`: ask `<url><host>` for a host's address. */
  url: string;
  close(): Promise<void>;
}

/**
 * Serves the shared hosts of the example built at `builtExample`, and of the fixtures in `repoRoot`,
 * by the compiled CLI `cli`; a host starts only once `ready` (that compile and build) resolved.
 */
export async function startSharedHostsServer(
  cli: string,
  builtExample: string,
  repoRoot: string,
  ready: Promise<unknown>,
): Promise<SharedHostsServer> {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'staticmcp-shared-hosts-')));
  const makeFolder: MakeFolder = (prefix) => fs.mkdtemp(path.join(root, prefix));
  let project: Promise<string> | undefined;
  // Only workerd serves it, from dist/: it needs no deploy files.
  const prepareProject = (): Promise<string> => {
    project ??= (async () => {
      const copy = path.join(root, 'example');
      cpSync(builtExample, copy, { recursive: true });
      return copy;
    })();
    return project;
  };
  let conformance: Promise<string> | undefined;
  const prepareConformance = (): Promise<string> => {
    conformance ??= (async () => {
      const copy = path.join(root, 'conformance');
      cpSync(path.join(repoRoot, 'fixtures', 'conformance'), copy, { recursive: true });
      await promisify(execFile)(process.execPath, [cli, 'build', copy]);
      return copy;
    })();
    return conformance;
  };
  let packed: Promise<string> | undefined;
  const preparePacked = (): Promise<string> => {
    packed ??= (async () => {
      const copy = path.join(root, 'packed');
      cpSync(builtExample, copy, { recursive: true });
      cpSync(path.join(repoRoot, 'test/fixtures/skills-project/skills'), path.join(copy, 'skills'), {
        recursive: true,
      });
      const configFile = path.join(copy, 'staticmcp.json');
      const config = JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, unknown>;
      writeFileSync(configFile, JSON.stringify({ ...config, publicUrl: PACKED_PUBLIC_URL }, null, 2));
      await promisify(execFile)(process.execPath, [cli, 'build', copy, '--max-call-files', '1']);
      await addInitDeployFiles(cli, copy, makeFolder);
      return copy;
    })();
    return packed;
  };
  // miniflare loads when a host first needs it, not with this module: the global setup imports it
  // in vitest's process before the first test file starts.
  const startWorkerdSite = async (dir: string): Promise<RunningHost> =>
    (await import('./edge/workerd-site.js')).startWorkerdSite(dir);
  const starters: Record<SharedHostName, (project: string) => Promise<RunningHost>> = {
    workerd: (dir) => startWorkerdSite(path.join(dir, 'dist')),
    'pages-dev': (dir) => startPagesDev(path.join(dir, 'dist'), undefined, makeFolder),
    'wrangler-dev': (dir) => startWranglerDev(dir, makeFolder),
    'netlify-deno': (dir) => startNetlifyUnderDeno(dir, makeFolder),
    'conformance-workerd': (dir) => startWorkerdSite(path.join(dir, 'dist')),
  };
  // A failed start stays failed for the run: every file that asks gets its error, none waits again.
  const prepare = (name: SharedHostName): Promise<string> => {
    if (name === 'conformance-workerd') return prepareConformance();
    return name === 'workerd' ? prepareProject() : preparePacked();
  };
  const hosts = new Map<SharedHostName, Promise<RunningHost & { project: string }>>();
  const startHost = (name: SharedHostName): Promise<RunningHost & { project: string }> => {
    let host = hosts.get(name);
    if (!host) {
      host = ready
        .then(() => prepare(name))
        .then(async (project) => {
          const started = await starters[name](project);
          return {
            url: started.url,
            close: () => started.close(),
            pause: started.pause,
            resume: started.resume,
            endedBy: started.endedBy,
            lastOutput: started.lastOutput,
            project,
          };
        });
      hosts.set(name, host);
    }
    return host;
  };

  /** The test files that asked for each host, latest last (a few: to name them when it is found ended). */
  const askedBy = new Map<SharedHostName, string[]>();
  const noteAsker = (name: SharedHostName, file: string): void => {
    const files = (askedBy.get(name) ?? []).filter((known) => known !== file);
    askedBy.set(name, [...files, file].slice(-3));
  };

  /**
   * The started `name` host, started again if it ended by itself since (its output was printed
   * then) or its port refuses connections though its process lives on (its output is printed here).
   */
  const startLiveHost = async (name: SharedHostName, file: string): Promise<RunningHost & { project: string }> => {
    const starting = startHost(name);
    const host = await starting;
    if (!host.endedBy?.() && !(await refusesConnections(host.url))) return host;
    // The first file to find it ended starts the next one; the others get that one.
    if (hosts.get(name) === starting) {
      hosts.delete(name);
      paused.delete(name);
      const how = host.endedBy?.()
        ? 'ended by itself (its output is above)'
        : `refuses connections on ${host.url.host}; it printed last:\n${host.lastOutput?.() ?? ''}\n`;
      const users = askedBy.get(name)?.join(', ') ?? 'no file';
      process.stderr.write(
        `test/shared-hosts.ts: the shared ${name} ${how}; last asked for by ${users}; starting it again for ${file}\n`,
      );
      // What is left of it (wrangler whose workerd is gone) goes, and its port with it.
      await host.close().catch(() => undefined);
    }
    return startHost(name);
  };

  /** How many test files hold each host now. */
  const holders = new Map<SharedHostName, number>();
  /** The hosts paused now. */
  const paused = new Set<SharedHostName>();
  /** A resumed host's wait until it answers again (waitUntilAnswering), shared by the files asking meanwhile. */
  const resuming = new Map<SharedHostName, Promise<void>>();
  const resumeHost = (name: SharedHostName, host: RunningHost): Promise<void> => {
    if (paused.delete(name)) {
      host.resume?.();
      const answering = waitUntilAnswering(host.url).finally(() => resuming.delete(name));
      resuming.set(name, answering);
    }
    return resuming.get(name) ?? Promise.resolve();
  };
  const release = (name: SharedHostName): void => {
    const held = Math.max(0, (holders.get(name) ?? 0) - 1);
    holders.set(name, held);
    // A host that failed to start has nothing to pause.
    if (held === 0)
      hosts.get(name)?.then(
        (host) => {
          if (holders.get(name) !== 0 || !host.pause) return;
          host.pause();
          paused.add(name);
        },
        () => {},
      );
  };

  const server = http.createServer((request, response) => {
    // Each answer closes its connection: a test worker's fetch keeps an idle connection for its
    // next file's ask, and one this server closes after its idle timeout, while that ask is on its
    // way, fails the ask ("other side closed") on a loaded machine.
    response.setHeader('connection', 'close');
    const asked = new URL(request.url ?? '/', 'http://shared-hosts');
    const name = asked.pathname.slice(1) as SharedHostName;
    const file = asked.searchParams.get('file') ?? 'a test file';
    if (!SHARED_HOSTS.includes(name)) {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: `no shared host "${name}": ask for one of ${SHARED_HOSTS.join(', ')}` }));
      return;
    }
    if (request.method === 'DELETE') {
      release(name);
      response.writeHead(204).end();
      return;
    }
    holders.set(name, (holders.get(name) ?? 0) + 1);
    startLiveHost(name, file).then(
      async (host) => {
        noteAsker(name, file);
        await resumeHost(name, host);
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ url: host.url.href, project: host.project }));
      },
      (error: unknown) => {
        response.writeHead(500, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: `starting the shared ${name} failed: ${(error as Error).message}` }));
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      const started = await Promise.allSettled(hosts.values());
      await Promise.allSettled(
        started.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value.close() : undefined)),
      );
      rmSync(root, { recursive: true, force: true });
    },
  };
}

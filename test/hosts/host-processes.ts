// The hosts' local runtimes as processes: `wrangler pages dev`, `wrangler dev` and Netlify's edge
// function under Deno, each on loopback with telemetry off and a throwaway HOME, ended with its
// whole process group. Nothing here imports vitest, so the runtimes tier's global setup
// (test/shared-hosts.ts) starts them as test files do (test/hosts/host-runtimes.ts); the caller
// says where throwaway folders go (`makeFolder`) and which compiled CLI writes init's deploy files.
// A watchdog (group-watchdog.mjs) ends the groups still running if this process dies without
// ending them (vitest killed or interrupted), so no runtime outlives the run.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, promises as fs, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/** Makes a fresh temporary folder whose name starts with `prefix` and returns its real path. */
export type MakeFolder = (prefix: string) => Promise<string>;

export interface RunningHost {
  /** The site's root, ending in `/`; MCP at `mcp` where the host runs the worker. */
  url: URL;
  close(): Promise<void>;
  /**
   * Runtimes in a process group of their own: stops the whole group (SIGSTOP) while no test uses
   * it, and lets it go on (SIGCONT); the run's shared hosts idle for most of it
   * (test/shared-hosts.ts). wrangler: only its esbuild (startWrangler says why).
   */
  pause?(): void;
  resume?(): void;
  /** Set once the runtime ended by itself: how it ended and the last of what it printed. */
  endedBy?(): string | undefined;
  /** The last of what the runtime printed (OUTPUT_TAIL_CHARS), to tell why it stopped answering. */
  lastOutput?(): string;
}

/** How much of a runtime's output is kept to tell why it ended. */
const OUTPUT_TAIL_CHARS = 8_000;

/** The compatibility date the tree's worker is written for, which the pinned workerd supports. */
export const COMPATIBILITY_DATE = '2025-09-01';

const STARTUP_TIMEOUT_MS = 60_000;

let watchdog: ChildProcess | undefined;

/** Tells this process's watchdog that group `pgid` started (`+`) or was ended (`-`); starts the watchdog first. */
function tellWatchdog(change: '+' | '-', pgid: number): void {
  if (!watchdog) {
    watchdog = spawn(process.execPath, [fileURLToPath(new URL('group-watchdog.mjs', import.meta.url))], {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    // Neither the watchdog nor its pipe keeps this process alive; the pipe closes when it ends.
    watchdog.unref();
    (watchdog.stdin as unknown as { unref(): void }).unref();
    watchdog.stdin!.on('error', () => {});
  }
  watchdog.stdin!.write(`${change}${pgid}\n`);
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Attempts at starting a runtime whose port another process took between freePort and its bind. */
const PORT_ATTEMPTS = 3;

/**
 * Starts a runtime on free ports, again on new ones when the runtime says its port is taken: a
 * port is free only until freePort closes it, and on a busy machine another process (or another
 * file's runtime) can bind it before the runtime does.
 */
async function startOnFreePorts(
  start: (port: number, inspectorPort: number) => Promise<RunningHost>,
): Promise<RunningHost> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(await freePort(), await freePort());
    } catch (error) {
      const taken = /EADDRINUSE|address already in use/i.test(String((error as Error).message));
      if (!taken || attempt === PORT_ATTEMPTS) throw error;
    }
  }
}

const require = createRequire(import.meta.url);

function wranglerBin(): string {
  return path.join(path.dirname(require.resolve('wrangler/package.json')), 'bin', 'wrangler.js');
}

/**
 * The Deno binary of the npm package `deno`: its install script links it into the package, and
 * where install scripts did not run, its platform package still holds it.
 */
function findDeno(): string {
  const linked = path.join(path.dirname(require.resolve('deno/package.json')), 'deno');
  if (existsSync(linked)) return linked;
  const platform = `@deno/${process.platform}-${process.arch}${process.platform === 'linux' ? '-glibc' : ''}`;
  return path.join(path.dirname(require.resolve(`${platform}/package.json`)), 'deno');
}
const DENO = findDeno();

/** Copies the deploy files `staticmcp init` writes (deploy/, netlify.toml) into a built project, as init renders them. */
export async function addInitDeployFiles(cli: string, projectDir: string, makeFolder: MakeFolder): Promise<void> {
  const scaffold = path.join(await makeFolder('staticmcp-init-'), 'project');
  // Not spawnSync: test/shared-hosts.ts calls this in vitest's own process, whose event loop
  // answers every test worker; blocked for init's run (it packs the package), they all wait.
  await promisify(execFile)(process.execPath, [cli, 'init', scaffold], { encoding: 'utf8' }).catch(
    (error: { stderr?: string; message?: string }) => {
      throw new Error(`staticmcp init failed: ${error.stderr || error.message}`);
    },
  );
  await fs.cp(path.join(scaffold, 'deploy'), path.join(projectDir, 'deploy'), { recursive: true });
  await fs.copyFile(path.join(scaffold, 'netlify.toml'), path.join(projectDir, 'netlify.toml'));
}

/**
 * Runs wrangler with `args` and resolves once it says it is ready. Only its esbuild is paused,
 * never the group: after a SIGSTOP longer than the keep-alive timeouts inside it (workerd to
 * workerd, workerd to its Node loopback server), the first requests after SIGCONT race the timers
 * that came due, and when its proxy worker's request to the user worker loses that race, wrangler
 * exits 1 with an empty "✘ [ERROR]" (cloudflare/workers-sdk#15317, #15451): a shared host dying
 * mid-run. esbuild holds no connection, and its watch mode's polling is most of what an idle
 * wrangler costs.
 */
async function startWrangler(args: string[], cwd: string, makeFolder: MakeFolder): Promise<RunningHost> {
  return startOnFreePorts((port, inspectorPort) =>
    startRuntime(
      `wrangler ${args[0]}`,
      [wranglerBin(), ...args, '--ip', '127.0.0.1', '--port', String(port), '--inspector-port', String(inspectorPort)],
      cwd,
      port,
      makeFolder,
      'esbuild',
    ),
  );
}

/** Runs `node <args>` in its own process group, resolving once it prints that it is ready on `port`. */
export async function startRuntime(
  name: string,
  args: string[],
  cwd: string,
  port: number,
  makeFolder: MakeFolder,
  /** Pause only the processes of the group with this name (`comm`), not the whole group. */
  pauseOnly?: string,
): Promise<RunningHost> {
  const home = await makeFolder('staticmcp-host-home-');
  const child = spawn(args[0] === DENO ? DENO : process.execPath, args[0] === DENO ? args.slice(1) : args, {
    cwd,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, '.config'),
      DENO_DIR: path.join(home, 'deno'),
      DENO_NO_UPDATE_CHECK: '1',
      WRANGLER_SEND_METRICS: 'false',
      CI: 'true',
      NO_COLOR: '1',
    },
  });
  tellWatchdog('+', child.pid!);
  let output = '';
  let started = false;
  let closing = false;
  let ended: string | undefined;
  child.on('exit', (code, signal) => {
    if (!closing && started) {
      ended = `${name} ended by itself (${signal ?? `exit code ${code}`}); it printed last:\n${output}`;
      process.stderr.write(`${ended}\n`);
    }
    // Just reaped: what is left of its group goes with it, and the watchdog forgets the group's
    // number, which the system may give to an unrelated group from now on.
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {}
    tellWatchdog('-', child.pid!);
  });
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start:\n${output}`)), STARTUP_TIMEOUT_MS);
    const read = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      if (started) output = output.slice(-OUTPUT_TAIL_CHARS);
      else if (output.includes(`Ready on http://127.0.0.1:${port}`)) {
        started = true;
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code}:\n${output}`));
    });
  });
  try {
    await ready;
  } catch (error) {
    await endGroup(child);
    throw error;
  }
  return {
    url: new URL(`http://127.0.0.1:${port}/`),
    close: () => {
      closing = true;
      return endGroup(child);
    },
    pause: () => signalGroup(child, 'SIGSTOP', pauseOnly),
    resume: () => signalGroup(child, 'SIGCONT', pauseOnly),
    endedBy: () => ended,
    lastOutput: () => output,
  };
}

/**
 * Sends `signal` to the group of `child`, or to its processes named `only`, unless `child` has
 * ended (its group's number is then no longer ours).
 */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals, only?: string): void {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    if (only === undefined) process.kill(-child.pid!, signal);
    else for (const pid of findGroupMembers(child.pid!, only)) process.kill(pid, signal);
  } catch {}
}

/** The processes of group `pgid` whose name is `comm`, from /proc (none where there is no /proc). */
function findGroupMembers(pgid: number, comm: string): number[] {
  const found: number[] = [];
  let entries: string[] = [];
  try {
    entries = readdirSync('/proc');
  } catch {}
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses, so split at the last ")".
      const close = stat.lastIndexOf(')');
      const [, , pgrp] = stat.slice(close + 2).split(' ');
      if (Number(pgrp) === pgid && stat.slice(stat.indexOf('(') + 1, close) === comm) found.push(Number(entry));
    } catch {}
  }
  return found;
}

/** Ends the group of `child` (SIGTERM, then SIGKILL after 5 s); its exit handler tells the watchdog. */
async function endGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    process.kill(-child.pid!, 'SIGTERM');
    // A paused group handles SIGTERM only once it runs again.
    process.kill(-child.pid!, 'SIGCONT');
  } catch {
    return;
  }
  const killLater = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {}
  }, 5_000);
  await exited;
  clearTimeout(killLater);
}

/**
 * Cloudflare Pages: `wrangler pages dev <tree>`, which runs the tree's `_worker.js` in advanced mode,
 * from `cwd` (where wrangler reads a `.dev.vars` file of local secrets), else an empty folder.
 */
export async function startPagesDev(
  treeDir: string,
  cwd: string | undefined,
  makeFolder: MakeFolder,
): Promise<RunningHost> {
  return startWrangler(
    ['pages', 'dev', treeDir, '--compatibility-date', COMPATIBILITY_DATE],
    cwd ?? (await makeFolder('staticmcp-pages-dev-')),
    makeFolder,
  );
}

/** Cloudflare Workers static assets: `wrangler dev` with the `deploy/wrangler.jsonc` that init wrote in `projectDir`. */
export async function startWranglerDev(projectDir: string, makeFolder: MakeFolder): Promise<RunningHost> {
  const state = await makeFolder('staticmcp-wrangler-state-');
  return startWrangler(['dev', '-c', 'deploy/wrangler.jsonc', '--persist-to', state], projectDir, makeFolder);
}

/**
 * Netlify: the netlify.toml and deploy/netlify/ that init wrote in `projectDir`, the edge function
 * run by Deno (Netlify's edge runtime) behind a static server that routes as netlify.toml says.
 */
export async function startNetlifyUnderDeno(projectDir: string, makeFolder: MakeFolder): Promise<RunningHost> {
  const harness = fileURLToPath(new URL('netlify-under-deno.mjs', import.meta.url));
  const project = path.resolve(projectDir);
  return startOnFreePorts((port) =>
    startRuntime(
      'deno (netlify edge function)',
      [DENO, 'run', '--quiet', '--allow-net=127.0.0.1', `--allow-read=${project}`, harness, project, String(port)],
      project,
      port,
      makeFolder,
    ),
  );
}

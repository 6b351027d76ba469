// `staticmcp serve [project|tree|URL] [--live PROJECT] [--http …]`: works out where the tree and
// the live project are, then runs the bridge on stdio, or with --http as a Streamable HTTP server
// that also serves the tree's files. Loaded without yargs (see main.ts), so the bridge starts about
// as fast as Node itself; stdout belongs to the protocol, messages go to stderr (in HTTP mode too).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

const USAGE =
  'usage: staticmcp serve [project|tree|URL] [--live PROJECT] [--fetch-deadline-ms N] [--live-concurrency N] [--http [--port N] [--host H] [--allowed-host H]… [--allow-remote-live]]';
const DEFAULT_PORT = 8080;
const DEFAULT_HOST = '127.0.0.1';

function fail(message: string, hint: string, code: number): number {
  process.stderr.write(`staticmcp serve: ${message}\n  what to do: ${hint}\n`);
  return code;
}

async function isFile(file: string): Promise<boolean> {
  try {
    return (await fs.stat(file)).isFile();
  } catch {
    return false;
  }
}

/** The output folder a project's staticmcp.json names (`out`), or `dist`. */
export async function outputFolderOf(projectRoot: string): Promise<string> {
  try {
    const config = JSON.parse(await fs.readFile(path.join(projectRoot, 'staticmcp.json'), 'utf8')) as { out?: unknown };
    if (typeof config.out === 'string' && config.out.length > 0) return path.resolve(projectRoot, config.out);
  } catch {
    // No config, or one the build will complain about: the default applies.
  }
  return path.join(projectRoot, 'dist');
}

export async function runServeCommand(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        live: { type: 'string' },
        'fetch-deadline-ms': { type: 'string' },
        'live-concurrency': { type: 'string' },
        http: { type: 'boolean' },
        port: { type: 'string' },
        host: { type: 'string' },
        'allowed-host': { type: 'string', multiple: true },
        'allow-remote-live': { type: 'boolean' },
      },
    });
  } catch (error) {
    return fail((error as Error).message, USAGE, 2);
  }
  const http = parsed.values.http === true;
  const httpOnly = ['port', 'host', 'allowed-host', 'allow-remote-live'] as const;
  const stray = httpOnly.find((name) => parsed.values[name] !== undefined);
  if (!http && stray)
    return fail(`--${stray} only applies with --http`, `add --http to serve MCP over HTTP, or drop --${stray}`, 2);
  const portText = parsed.values.port ?? String(DEFAULT_PORT);
  const port = /^\d{1,5}$/.test(portText) ? Number(portText) : NaN;
  if (!(port >= 0 && port <= 65535))
    return fail(`--port ${portText} is not a port number`, 'pass a number from 0 to 65535 (0 picks a free port)', 2);
  const host = parsed.values.host ?? DEFAULT_HOST;
  if (host === '' || /[\s/]/.test(host))
    return fail(
      `--host ${JSON.stringify(host)} is not an address`,
      'pass an address to listen on, such as 127.0.0.1 or ::1',
      2,
    );
  const badAllowed = (parsed.values['allowed-host'] ?? []).find(
    (name) => !/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?$/i.test(name),
  );
  if (badAllowed !== undefined)
    return fail(
      `--allowed-host ${JSON.stringify(badAllowed)} is not a host name`,
      'pass a name as clients write it in the Host header: example.lan or example.lan:8080',
      2,
    );
  if (parsed.positionals.length > 1) return fail(`one source at most, got ${parsed.positionals.length}`, USAGE, 2);
  const liveArgument = parsed.values.live;
  const deadlineArgument = parsed.values['fetch-deadline-ms'];
  const deadlineMs = deadlineArgument === undefined ? undefined : Number(deadlineArgument);
  if (deadlineMs !== undefined && !(Number.isSafeInteger(deadlineMs) && deadlineMs > 0)) {
    return fail(`--fetch-deadline-ms ${deadlineArgument} is not a whole number of milliseconds above 0`, USAGE, 2);
  }
  const concurrencyArgument = parsed.values['live-concurrency'];
  const liveConcurrency = concurrencyArgument === undefined ? undefined : Number(concurrencyArgument);
  if (liveConcurrency !== undefined && !(Number.isSafeInteger(liveConcurrency) && liveConcurrency > 0)) {
    return fail(`--live-concurrency ${concurrencyArgument} is not a whole number above 0`, USAGE, 2);
  }
  // `serve --live my-server` alone serves that project's own tree: the project is both.
  const sourceArgument = parsed.positionals[0] ?? liveArgument ?? '.';
  const isUrl = /^https?:\/\//i.test(sourceArgument);

  let projectRoot = liveArgument !== undefined ? path.resolve(liveArgument) : undefined;
  if (projectRoot !== undefined) {
    const stat = await fs.stat(projectRoot).catch(() => undefined);
    if (!stat?.isDirectory())
      return fail(
        `--live ${liveArgument} is not a folder`,
        'pass the project folder whose tools/ answer live calls',
        2,
      );
  }

  let source;
  /** The tree's folder (HTTP mode serves its files); undefined for a URL source. */
  let treeRoot: string | undefined;
  if (isUrl) {
    const { UrlSource } = await import('../serve/url-source.js');
    try {
      source = new UrlSource(sourceArgument, { deadlineMs });
    } catch {
      return fail(`${sourceArgument} is not a valid URL`, USAGE, 2);
    }
  } else {
    const given = path.resolve(sourceArgument);
    if (await isFile(path.join(given, 'mcp.json'))) {
      treeRoot = given;
    } else {
      const output = await outputFolderOf(given);
      if (!(await isFile(path.join(output, 'mcp.json')))) {
        return fail(
          `${sourceArgument} is neither a tree (no mcp.json) nor a built project (no ${path.relative(given, output) || '.'}/mcp.json)`,
          `run staticmcp build ${sourceArgument} first, or point serve at a tree folder or URL`,
          2,
        );
      }
      treeRoot = output;
      // `serve my-server`: the project that built the tree answers its misses.
      projectRoot ??= given;
    }
    const { FolderSource } = await import('../serve/folder-source.js');
    source = new FolderSource(treeRoot, path.relative(process.cwd(), treeRoot) || '.');
  }

  if (http) {
    const { isLoopbackHost } = await import('../serve/http/host-rules.js');
    if (projectRoot !== undefined && !isLoopbackHost(host) && parsed.values['allow-remote-live'] !== true) {
      source.close();
      return fail(
        `live scripts over ${host}, which is not a loopback address, would let anyone who can reach it run them`,
        'add --allow-remote-live if that is what you want, or serve on 127.0.0.1 (the default), or serve the tree without --live',
        2,
      );
    }
    const { startHttpServer } = await import('../serve/http/start-http-server.js');
    try {
      return await startHttpServer({
        source,
        projectRoot,
        liveConcurrency,
        host,
        port,
        allowedHosts: parsed.values['allowed-host'] ?? [],
        treeRoot,
      });
    } catch (error) {
      source.close();
      return fail(
        (error as Error).message,
        'pick another --port (0 picks a free one), or check the tree and try again',
        1,
      );
    }
  }

  const { startBridge } = await import('../serve/start-bridge.js');
  try {
    return await startBridge({ source, projectRoot, liveConcurrency });
  } catch (error) {
    source.close();
    return fail((error as Error).message, 'check the tree (staticmcp build writes one) and try again', 1);
  }
}

// `staticmcp serve [project|tree|URL] [--live PROJECT] [--http …]`: its options, and the handler
// that works out where the tree and the live project are, then runs the bridge on stdio, or with
// --http as a Streamable HTTP server that also serves the tree's files. Read without yargs (see
// run-command-line.ts), so the bridge never waits for it (bench/bridge-startup.mjs); stdout belongs
// to the protocol, messages go to stderr (in HTTP mode too).
import { fstatSync, statSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_HOST, DEFAULT_PORT, PORT_OPTION } from '../http-listen-options.js';
import { type CommandArguments, defineCommand, type OptionSpec } from '../command-spec.js';
import { exitCodeOf, UsageError } from '../exit-codes.js';
import type { TreeSource } from '../../core/tree/tree-source.js';
import type { PackFileSource } from '../../core/packs/pack-reader.js';
import { enableNodeCompileCache } from '../../shared/node-compile-cache.js';
import { writeHumanLines } from '../../shared/terminal-text.js';
import { planSoonerTierUp } from '../tier-up-sooner.js';

const HTTP_ONLY = ['port', 'host', 'allowed-host', 'allow-remote-live', 'client-sessions', 'client-live-runs'] as const;
const USAGE_HINT = 'run staticmcp serve --help for its options';

function isWholeAbove0(value: number): boolean {
  return Number.isSafeInteger(value) && value > 0;
}

const options = {
  live: { type: 'string', describe: 'project whose scripts answer calls the tree does not hold' },
  'live-concurrency': {
    type: 'number',
    describe: 'live runs at once (default: limits.liveConcurrency in staticmcp.json, else 4 per core, at least 8)',
    check: (value: number, text: string) =>
      isWholeAbove0(value) ? undefined : `--live-concurrency ${text} is not a whole number above 0`,
  },
  'fetch-deadline-ms': {
    type: 'number',
    describe: 'for a URL source: milliseconds one file may take to download (default: 30000)',
    check: (value: number, text: string) =>
      isWholeAbove0(value) ? undefined : `--fetch-deadline-ms ${text} is not a whole number of milliseconds above 0`,
  },
  origin: {
    type: 'boolean',
    describe:
      "be the live origin an edge worker forwards to: runs the project's scripts for requests signed with STATICMCP_ORIGIN_KEY (or _FILE), nothing static; listens on 0.0.0.0 and $PORT (default 8080) unless --host/--port say otherwise",
  },
  http: { type: 'boolean', describe: 'serve MCP over Streamable HTTP at /mcp (and the tree at /) instead of stdio' },
  port: PORT_OPTION,
  host: {
    type: 'string',
    describe: `with --http: the address to listen on (default: ${DEFAULT_HOST})`,
    check: (value: string) =>
      value === '' || /[\s/]/.test(value) ? `--host ${JSON.stringify(value)} is not an address` : undefined,
    hint: 'pass an address to listen on, such as 127.0.0.1 or ::1',
  },
  'allowed-host': {
    type: 'string',
    repeatable: true,
    describe: 'with --http: another Host header to answer to, NAME[:PORT] (repeatable)',
    check: (values: string[]) => {
      const bad = values.find((name) => !/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?$/i.test(name));
      return bad === undefined ? undefined : `--allowed-host ${JSON.stringify(bad)} is not a host name`;
    },
    hint: 'pass a name as clients write it in the Host header: example.lan or example.lan:8080',
  },
  'allow-remote-live': {
    type: 'boolean',
    describe: 'with --http on an address that is not loopback: let anyone who can reach it run live scripts',
  },
  'client-sessions': {
    type: 'number',
    describe:
      'with --http: sessions one client (its address, plus the Origin of a web page) may hold; at it, its own oldest ends (default: 32)',
    check: (value: number, text: string) =>
      isWholeAbove0(value) ? undefined : `--client-sessions ${text} is not a whole number above 0`,
  },
  'client-live-runs': {
    type: 'number',
    describe: 'with --http: live runs one client may have at once, in every protocol version; more wait (default: 4)',
    check: (value: number, text: string) =>
      isWholeAbove0(value) ? undefined : `--client-live-runs ${text} is not a whole number above 0`,
  },
} as const satisfies Record<string, OptionSpec>;

type ServeOptions = CommandArguments<typeof options>['options'];

export const command = defineCommand({
  name: 'serve',
  describe: 'serve a tree (folder or URL) as an MCP server over stdio, running scripts live on a miss',
  positional: {
    name: 'source',
    describe: 'project folder, tree folder, or http(s) URL of a deployed tree (default: --live, else .)',
  },
  options,
  run: ({ positional, options }) => runServeCommand(positional, options),
});

function fail(message: string, hint: string, code: number): number {
  writeHumanLines(process.stderr, [`staticmcp serve: ${message}`, `  what to do: ${hint}`]);
  return code;
}

/**
 * What is at `entry`, following links: a serve argument is a tree, a project, or a mistake.
 * Synchronous, as every file read before the first answer (FolderSource's too): an asynchronous
 * stat goes through libuv's thread pool, which it would start, and each round trip is a wait for the
 * CPU on a busy machine, before a client's initialize can be answered.
 */
function kindOf(entry: string): 'file' | 'folder' | 'other' | 'missing' {
  try {
    const stats = statSync(entry);
    return stats.isFile() ? 'file' : stats.isDirectory() ? 'folder' : 'other';
  } catch {
    return 'missing';
  }
}

function isCharacterDevice(descriptor: number): boolean {
  try {
    return fstatSync(descriptor).isCharacterDevice();
  } catch {
    return false;
  }
}

async function runServeCommand(sourceGiven: string | undefined, options: ServeOptions): Promise<number> {
  if (options.origin) return runOriginMode(sourceGiven, options);
  const http = options.http;
  const stray = HTTP_ONLY.find((name) =>
    name === 'allowed-host' ? options[name].length > 0 : options[name] !== undefined && options[name] !== false,
  );
  if (!http && stray)
    throw new UsageError(
      `--${stray} only applies with --http`,
      `add --http to serve MCP over HTTP, or drop --${stray}`,
    );
  const port = options.port ?? DEFAULT_PORT;
  const host = options.host ?? DEFAULT_HOST;
  const liveArgument = options.live;
  const deadlineMs = options['fetch-deadline-ms'];
  const liveConcurrency = options['live-concurrency'];
  // `serve --live my-server` alone serves that project's own tree: the project is both.
  const sourceArgument = sourceGiven ?? liveArgument ?? '.';
  const isUrl = /^https?:\/\//i.test(sourceArgument);
  // The bridge's modules load while the source is checked below, not after (a faster first answer).
  const bridgeLoading = http ? undefined : import('../../hosts/node/start-bridge.js');
  // A usage error below leaves it unawaited; its own failure, if any, surfaces at the await.
  bridgeLoading?.catch(() => undefined);

  let projectRoot = liveArgument !== undefined ? path.resolve(liveArgument) : undefined;
  if (projectRoot !== undefined) {
    if (kindOf(projectRoot) !== 'folder')
      throw new UsageError(
        `--live ${liveArgument} is not a folder`,
        'pass the project folder whose tools/ answer live calls',
      );
  }

  let source: TreeSource;
  /** Binary reads of the same tree: packs and the search index. */
  let packFiles: PackFileSource;
  /** The tree's folder (HTTP mode serves its files); undefined for a URL source. */
  let treeRoot: string | undefined;
  if (isUrl) {
    const [{ UrlSource }, { ManifestPackedSource }] = await Promise.all([
      import('../../hosts/node/url-source.js'),
      import('../../core/packs/manifest-packed-source.js'),
    ]);
    let urlSource: InstanceType<typeof UrlSource>;
    try {
      urlSource = new UrlSource(sourceArgument, { deadlineMs });
    } catch {
      throw new UsageError(`${sourceArgument} is not a valid URL`, USAGE_HINT);
    }
    // A packed tree's packs are read by byte range where the host serves ranges, else whole.
    packFiles = urlSource;
    source = new ManifestPackedSource(urlSource, packFiles, { onProblem: reportPackProblem });
  } else {
    const given = path.resolve(sourceArgument);
    if (kindOf(path.join(given, 'mcp.json')) === 'file') {
      treeRoot = given;
    } else {
      const { readConfigOrDefaults, resolveOutputFolder } = await import('../../project/config.js');
      const { config, problem } = await readConfigOrDefaults(given);
      if (problem)
        writeHumanLines(process.stderr, [`staticmcp serve: ${problem}; looking for the tree in the default folder`]);
      const output = resolveOutputFolder(given, config);
      if (kindOf(path.join(output, 'mcp.json')) !== 'file') {
        const { commandLine } = await import('../invocation.js');
        // A mistyped folder is not a project to build: advising a build of it sent users in circles.
        if (kindOf(given) !== 'folder') {
          throw new UsageError(
            `${sourceArgument} does not exist (or is not a folder)`,
            'check the path: give serve a tree folder (holding mcp.json), a project folder, or a URL',
          );
        }
        throw new UsageError(
          `${sourceArgument} is neither a tree (no mcp.json) nor a built project (no ${path.relative(given, output) || '.'}/mcp.json)`,
          `run ${commandLine(['build', sourceArgument])} first, or point serve at a tree folder or URL`,
        );
      }
      treeRoot = output;
      // `serve my-server`: the project that built the tree answers its misses.
      projectRoot ??= given;
    }
    const [{ FolderSource }, { FolderPackFiles }, { ManifestPackedSource }] = await Promise.all([
      import('../../hosts/node/folder-source.js'),
      import('../../hosts/node/folder-pack-files.js'),
      import('../../core/packs/manifest-packed-source.js'),
    ]);
    // A packed tree (mcp.json names packs) answers its packed tools' calls from the packs.
    packFiles = new FolderPackFiles(treeRoot);
    source = new ManifestPackedSource(
      new FolderSource(treeRoot, path.relative(process.cwd(), treeRoot) || '.'),
      packFiles,
      { onProblem: reportPackProblem },
    );
  }
  // A server answers many requests: its hot path is optimized sooner.
  planSoonerTierUp();

  if (http) {
    const { isLoopbackHost } = await import('../../hosts/node/http/host-rules.js');
    if (projectRoot !== undefined && !isLoopbackHost(host) && !options['allow-remote-live']) {
      source.close();
      throw new UsageError(
        `live scripts over ${host}, which is not a loopback address, would let anyone who can reach it run them`,
        'add --allow-remote-live if that is what you want, or serve on 127.0.0.1 (the default), or serve the tree without --live',
      );
    }
    // serve-handler, and what the HTTP server loads after it, through Node's loader.
    enableNodeCompileCache();
    const { startHttpServer } = await import('../../hosts/node/http/start-http-server.js');
    try {
      return await startHttpServer({
        source,
        packFiles,
        projectRoot,
        liveConcurrency,
        host,
        port,
        allowedHosts: options['allowed-host'],
        treeRoot,
        maxSessionsPerClient: options['client-sessions'],
        maxLiveRunsPerClient: options['client-live-runs'],
      });
    } catch (error) {
      source.close();
      return fail(
        (error as Error).message,
        /already in use/.test((error as Error).message)
          ? 'pick another --port (0 picks a free one), or stop the program that holds it'
          : 'check --host and --port, then try again',
        exitCodeOf(error),
      );
    }
  }

  // Started by hand on a terminal, a stdio server would sit silent and look hung. Only a character
  // device can be a terminal: on a client's pipe, process.stdin is not made before the first answer.
  if (isCharacterDevice(0) && process.stdin.isTTY)
    process.stderr.write(`${await describeWaiting(sourceArgument, isUrl, liveArgument)}\n`);
  const { startBridge } = await (bridgeLoading ?? import('../../hosts/node/start-bridge.js'));
  try {
    return await startBridge({ source, packFiles, projectRoot, liveConcurrency, treeRoot, answerWaitingFirst: true });
  } catch (error) {
    source.close();
    return fail(
      (error as Error).message,
      'check the tree (staticmcp build writes one) and try again',
      exitCodeOf(error),
    );
  }
}

/**
 * `serve <project> --origin` (`--http` and `--live` are implied and may be given): the project's
 * scripts for a signed edge, on every address by default, since a container platform routes to it
 * and the signature, not the address, keeps strangers out.
 */
async function runOriginMode(sourceGiven: string | undefined, options: ServeOptions): Promise<number> {
  const folder = options.live ?? sourceGiven ?? '.';
  if (
    options.live !== undefined &&
    sourceGiven !== undefined &&
    path.resolve(options.live) !== path.resolve(sourceGiven)
  )
    throw new UsageError(
      `--origin runs one project, but both ${sourceGiven} and --live ${options.live} were given`,
      'give the project folder once: staticmcp serve <project> --origin',
    );
  if (kindOf(folder) !== 'folder')
    throw new UsageError(`${folder} is not a folder`, 'give the project folder whose tools/ answer live calls');
  const portText = process.env.PORT;
  const envPort = portText !== undefined && /^\d{1,5}$/.test(portText) ? Number(portText) : undefined;
  enableNodeCompileCache();
  const [{ startOriginServer }, { StaticMcpError }] = await Promise.all([
    import('../../hosts/node/origin/start-origin-server.js'),
    import('../../core/staticmcp-error.js'),
  ]);
  try {
    return await startOriginServer({
      projectRoot: path.resolve(folder),
      host: options.host ?? '0.0.0.0',
      port: options.port ?? envPort ?? DEFAULT_PORT,
      liveConcurrency: options['live-concurrency'],
      maxLiveRunsPerClient: options['client-live-runs'],
    });
  } catch (error) {
    if (error instanceof StaticMcpError) return fail(error.message, error.hint, 2);
    return fail(
      (error as Error).message,
      'pick another --port (0 picks a free one), or stop the program that holds it',
      1,
    );
  }
}

/** Why a packed call read as not precomputed (a damaged or absent pack): for the operator, on stderr. */
function reportPackProblem(reason: string): void {
  writeHumanLines(process.stderr, [`staticmcp serve: ${reason}`]);
}

/**
 * The one line `serve` prints on a terminal: what it is waiting for, and a command line that
 * starts this same server, for a client's configuration (absolute paths, so it works from anywhere).
 */
async function describeWaiting(source: string, isUrl: boolean, live: string | undefined): Promise<string> {
  // Loaded here and for the one usage error that needs it: a client starting serve never waits for it.
  const { commandLine } = await import('../invocation.js');
  const words = ['serve', isUrl ? source : path.resolve(source)];
  if (live !== undefined) words.push('--live', path.resolve(live));
  const line = commandLine(words, { absolute: true });
  const name = (isUrl ? 'staticmcp' : path.basename(path.resolve(source))).replace(/[^\w-]/g, '-') || 'staticmcp';
  return `staticmcp serve: an MCP server is waiting for a client on stdin (typing here does nothing; Ctrl-C ends it). Let a client start it with: ${line} (Claude Code: claude mcp add ${name} -- ${line}; try it: npx @modelcontextprotocol/inspector ${line}), or add --http to serve it at http://${DEFAULT_HOST}:${DEFAULT_PORT}/mcp`;
}

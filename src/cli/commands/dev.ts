// `staticmcp dev [project] [--http [--port N] [--host H]]`: its options, and the handler that builds the project, serves the tree over stdio (or Streamable HTTP with the tree's site), and on every change
// to the project rebuilds (incrementally: the build cache makes unchanged calls free) and reloads
// the tree in the bridge, which tells the client what changed. stdout carries protocol frames
// only; build logs go to stderr. A failed rebuild is reported (stderr, and the client as a
// warning) and the previous tree keeps being served. Read without yargs, like serve.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { BuildReport } from '../../builder/build-report.js';
import type { RunningBridge } from '../../hosts/node/start-bridge.js';
import { StaticMcpError } from '../../core/staticmcp-error.js';
import { DEFAULT_HOST, DEFAULT_PORT, PORT_OPTION } from '../http-listen-options.js';
import { type CommandArguments, defineCommand, type OptionSpec } from '../command-spec.js';
import { exitCodeOf, exitCodeOfSignal, type StopSignal, UsageError } from '../exit-codes.js';
import { BUILD_OPTIONS } from '../build-options.js';
import { isNoise, watchProject } from '../watch-project.js';
import { SWAP_FOLDER_MARK } from '../../tree-writer/swap-folders.js';
import { writeHumanLines } from '../../shared/terminal-text.js';

/** Quiet time after the last change before a rebuild starts: editors write a file in several steps. */
const DEFAULT_DEBOUNCE_MS = 50;
/** `serve --http`'s defaults. */

function log(text: string): void {
  writeHumanLines(process.stderr, [`staticmcp dev: ${text}`]);
}

function fail(message: string, hint: string, code: number): number {
  writeHumanLines(process.stderr, [`staticmcp dev: ${message}`, `  what to do: ${hint}`]);
  return code;
}

function describeError(error: unknown): string {
  if (error instanceof StaticMcpError) return `${error.message} (${error.hint})`;
  return error instanceof Error ? error.message : String(error);
}

/** The build's failures as short lines (empty when it went well). */
function failureLines(report: BuildReport): string[] {
  const lines = report.failures.map((failure) => `${failure.path}: ${failure.message}`);
  for (const tool of report.tools) {
    for (const failure of tool.failures.slice(0, 3))
      lines.push(`${tool.script} ${JSON.stringify(failure.arguments)}: ${failure.message}`);
  }
  return lines;
}

function summarize(report: BuildReport): string {
  const precomputed = report.tools.reduce((sum, tool) => sum + tool.precomputed, 0);
  const cached = report.tools.reduce((sum, tool) => sum + tool.cached, 0);
  return `${report.unchanged ? 'tree unchanged' : `wrote ${report.files} files`} (${report.tools.length} tool(s), ${precomputed} precomputed call(s), ${cached} from cache, ${report.resources} resource(s)) in ${Math.round(report.durationMs)} ms`;
}

/**
 * Whether a project-relative path belongs to the output tree, or to the folders the tree writer
 * keeps beside it while it writes and swaps (swap-folders.ts).
 */
function outputMatcher(projectRoot: string, outDir: string): (relativePath: string) => boolean {
  const relativeOut = path.relative(projectRoot, outDir).split(path.sep).join('/');
  if (relativeOut === '' || relativeOut.startsWith('..') || path.isAbsolute(relativeOut)) return () => false;
  return (relativePath) =>
    relativePath === relativeOut ||
    relativePath.startsWith(`${relativeOut}/`) ||
    relativePath.startsWith(`${relativeOut}${SWAP_FOLDER_MARK}`);
}

const options = {
  ...BUILD_OPTIONS,
  'debounce-ms': {
    type: 'number',
    describe: `quiet time after a change before rebuilding (default: ${DEFAULT_DEBOUNCE_MS})`,
    check: (value: number) =>
      Number.isFinite(value) && value >= 0 ? undefined : '--debounce-ms must be a number of milliseconds',
  },
  http: {
    type: 'boolean',
    describe: 'serve over Streamable HTTP at /mcp (and the tree, with its playground, at /) instead of stdio',
  },
  port: PORT_OPTION,
  host: {
    type: 'string',
    describe: `with --http: the loopback address to listen on (default: ${DEFAULT_HOST}; dev runs scripts live)`,
    check: (value: string) =>
      value === '' || /[\s/]/.test(value) ? `--host ${JSON.stringify(value)} is not an address` : undefined,
    hint: 'pass an address to listen on, such as 127.0.0.1 or ::1',
  },
} as const satisfies Record<string, OptionSpec>;

type DevOptions = CommandArguments<typeof options>['options'];

export const command = defineCommand({
  name: 'dev',
  describe:
    'build the project, serve it over stdio (or --http), and rebuild and reload it on every change (clients are notified)',
  positional: { name: 'project', describe: 'project folder (holds tools/, resources/, prompts/)', default: '.' },
  options,
  run: ({ positional, options }) => runDevCommand(positional ?? '.', options),
});

async function runDevCommand(projectGiven: string, options: DevOptions): Promise<number> {
  const projectRoot = path.resolve(projectGiven);
  const stat = await fs.stat(projectRoot).catch(() => undefined);
  if (!stat?.isDirectory())
    throw new UsageError(
      `${projectGiven} is not a folder`,
      'pass the project folder (the one that holds tools/, resources/, prompts/)',
    );
  if (!options.http && (options.port !== undefined || options.host !== undefined))
    throw new UsageError(
      `--${options.port !== undefined ? 'port' : 'host'} only applies with --http`,
      'add --http to serve the edit loop over HTTP, or drop it',
    );
  const host = options.host ?? DEFAULT_HOST;
  if (options.http && !(await import('../../hosts/node/http/host-rules.js')).isLoopbackHost(host))
    throw new UsageError(
      `dev runs the project's scripts live, and ${host} is not a loopback address: anyone who can reach it could run them`,
      'serve dev on 127.0.0.1 (the default) or ::1; to publish, build and use staticmcp serve',
    );
  const { concurrency } = options;
  const maxCallFiles = options['max-call-files'];
  const debounceMs = options['debounce-ms'] ?? DEFAULT_DEBOUNCE_MS;
  // Fixed for the session: a changed "out" in staticmcp.json takes effect on the next `staticmcp dev`.
  // A broken staticmcp.json fails the first build with the reason; the defaults stand in until then.
  const { readConfigOrDefaults, resolveOutputFolder } = await import('../../project/config.js');
  const outDir =
    options.out !== undefined
      ? path.resolve(options.out)
      : resolveOutputFolder(projectRoot, (await readConfigOrDefaults(projectRoot)).config);
  const toolsDir = options.tools !== undefined ? path.resolve(options.tools) : undefined;
  const siteDir = options.site !== undefined ? path.resolve(options.site) : undefined;

  const { buildProject } = await import('../../builder/build-project.js');
  // Rebuilds hard-link the files an edit did not change instead of rewriting the whole tree.
  const fileReuse = new (await import('../../tree-writer/file-reuse.js')).TreeFileReuse();
  const stopping = new AbortController();
  const build = (): Promise<BuildReport> =>
    buildProject({
      projectRoot,
      outDir,
      toolsDir,
      concurrency,
      maxCallFiles,
      signal: stopping.signal,
      fileReuse,
      ...(siteDir !== undefined ? { siteDir } : {}),
    });

  log(`building ${projectGiven}`);
  // Scripts run in their own process groups: a Ctrl-C during the first build must end them here.
  let interruptedBy: StopSignal | undefined;
  const onSignal = (signal: StopSignal): void => {
    interruptedBy = signal;
    stopping.abort();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const report = await build();
    log(summarize(report));
    for (const line of failureLines(report)) log(`  ✗ ${line}`);
  } catch (error) {
    if (interruptedBy)
      return fail(
        `${interruptedBy} received during the first build; its scripts were ended`,
        'run staticmcp dev again when ready',
        exitCodeOfSignal(interruptedBy),
      );
    const hasTree = await fs.stat(path.join(outDir, 'mcp.json')).then(
      (file) => file.isFile(),
      () => false,
    );
    if (!hasTree)
      return fail(
        `the first build failed: ${describeError(error)}`,
        'fix the project and run staticmcp dev again',
        exitCodeOf(error),
      );
    log(`the first build failed, serving the previous tree until a change builds: ${describeError(error)}`);
  }
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  if (interruptedBy) return exitCodeOfSignal(interruptedBy);

  const [{ FolderSource }, { FolderPackFiles }, { ManifestPackedSource }] = await Promise.all([
    import('../../hosts/node/folder-source.js'),
    import('../../hosts/node/folder-pack-files.js'),
    import('../../core/packs/manifest-packed-source.js'),
  ]);
  // As `serve <folder>` reads it: a build past the call-file budget writes a packed tree, and its
  // packed calls answer from the packs. Each reload reads the rebuilt mcp.json first, whose pack
  // table (new pack and index names) replaces the old one along with its index cache.
  const packFiles = new FolderPackFiles(outDir);
  const source = new ManifestPackedSource(
    new FolderSource(outDir, path.relative(process.cwd(), outDir) || '.'),
    packFiles,
    { onProblem: (reason) => log(reason) },
  );
  let bridge: RunningBridge;
  try {
    // packFiles: the search and fetch tools of a project with search on answer from the rebuilt index.
    const served = { source, packFiles, projectRoot, treeRoot: outDir, dev: true, logPrefix: 'staticmcp dev' };
    bridge = options.http
      ? await (await import('../../hosts/node/http/start-http-server.js')).openHttpServer({
          ...served,
          host,
          port: options.port ?? DEFAULT_PORT,
          allowedHosts: [],
        })
      : await (await import('../../hosts/node/start-bridge.js')).openBridge(served);
  } catch (error) {
    source.close();
    return fail(
      (error as Error).message,
      /already in use/.test((error as Error).message)
        ? 'pick another --port (0 picks a free one), or stop the program that holds it'
        : 'check the tree (staticmcp build writes one) and try again',
      exitCodeOf(error),
    );
  }

  const isOutput = outputMatcher(projectRoot, outDir);
  const toolsRoot = toolsDir ?? path.join(projectRoot, 'tools');
  /** Warns and answers true when the tools folder is gone while the client still knows tools. */
  const warnIfToolsFolderGone = async (): Promise<boolean> => {
    if ((await isFolder(toolsRoot)) || bridge.toolCount() === 0) return false;
    // Named inside the project: the warning also reaches the client, which has no business with our paths.
    const inProject = path.relative(projectRoot, toolsRoot);
    const shown = inProject.startsWith('..') || path.isAbsolute(inProject) ? 'the --tools folder' : `${inProject}/`;
    bridge.warn(
      `${shown} is gone, so a rebuild would serve no tools; still serving the previous tree (${bridge.toolCount()} tools). Restore the folder, or keep an empty one to really remove every tool`,
    );
    return true;
  };
  const rebuilds = createRebuildLoop(async (changed) => {
    log(`${changed.length === 1 ? changed[0] : `${changed.length} files`} changed; rebuilding`);
    // A tools folder that vanished (deleted, renamed, a branch switch half done) would build an
    // empty server; keep serving the tools the client knows and say why.
    if (await warnIfToolsFolderGone()) return;
    let report: BuildReport;
    try {
      report = await build();
    } catch (error) {
      if (stopping.signal.aborted) return;
      bridge.warn(`rebuild failed; still serving the previous tree: ${describeError(error)}`);
      return;
    }
    log(`rebuilt: ${summarize(report)}`);
    const failures = failureLines(report);
    if (failures.length > 0) bridge.warn(`rebuilt with ${failures.length} failure(s): ${failures.join('; ')}`);
    if (report.unchanged) return;
    // A folder deleted while the build read it (`rm -r` removes the files before the folder) looked
    // present above but empty to the build: checked again before the client sees the result.
    if (await warnIfToolsFolderGone()) return;
    try {
      const reload = await bridge.reloadTree();
      const lists = (['tools', 'resources', 'prompts'] as const).filter((kind) => reload[kind]);
      log(
        `reloaded the tree${lists.length > 0 ? `; ${lists.join(', ')} list(s) changed` : ''}${reload.updated.length > 0 ? `; updated ${reload.updated.join(', ')}` : ''}`,
      );
    } catch (error) {
      bridge.warn(`the rebuilt tree cannot be loaded; still serving the previous one: ${describeError(error)}`);
    }
  });
  const watcher = await watchProject(projectRoot, {
    ignore: (relativePath) => isNoise(relativePath) || isOutput(relativePath),
    onChange: (paths) => rebuilds.request(paths),
    debounceMs,
  });
  log('watching for changes');

  const code = await bridge.finished;
  watcher.close();
  stopping.abort();
  await rebuilds.idle();
  return code;
}

async function isFolder(folder: string): Promise<boolean> {
  return fs.stat(folder).then(
    (stat) => stat.isDirectory(),
    () => false,
  );
}

/**
 * Runs `rebuild` for change batches one at a time: changes that arrive while a rebuild runs are
 * collected and cause exactly one more rebuild after it.
 */
function createRebuildLoop(rebuild: (changed: string[]) => Promise<void>): {
  request(paths: string[]): void;
  idle(): Promise<void>;
} {
  const pending = new Set<string>();
  let running: Promise<void> | undefined;
  const loop = async (): Promise<void> => {
    while (pending.size > 0) {
      const batch = [...pending].sort();
      pending.clear();
      await rebuild(batch);
    }
  };
  return {
    request(paths) {
      for (const changed of paths) pending.add(changed);
      running ??= loop().finally(() => {
        running = undefined;
      });
    },
    idle: () => running ?? Promise.resolve(),
  };
}

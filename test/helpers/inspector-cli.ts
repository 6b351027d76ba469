// The official MCP Inspector's CLI (@modelcontextprotocol/inspector, pinned in tools/runtimes), run
// as a user runs it: `inspector --cli <target…> --format json <options>`, with Node 20 like a
// user's npx, bounded in time and output. It keeps a catalog and client settings under
// ~/.mcp-inspector: each run gets this module's own home, so a test run neither reads nor writes
// the user's. A file with many runs batches them: `runInspectorBatch` runs them in one Inspector
// process each batch (test/helpers/inspector-batch.mjs), through the same CLI entry the launcher calls.
import { execFile } from 'node:child_process';
import { promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { requireTool } from './runtime-tools.js';
import { temporaryFolderSync } from './temp-folders.js';

const INSPECTOR_PACKAGE = path.dirname(requireTool.resolve('@modelcontextprotocol/inspector/package.json'));
/** The `inspector` bin, the launcher `npx @modelcontextprotocol/inspector` starts. */
const INSPECTOR = path.join(
  INSPECTOR_PACKAGE,
  (JSON.parse(readFileSync(path.join(INSPECTOR_PACKAGE, 'package.json'), 'utf8')) as { bin: { inspector: string } }).bin
    .inspector,
);
/** The CLI module the launcher imports for `--cli` (its `runCli` and `handleError`). */
const INSPECTOR_CLI_MODULE = path.join(INSPECTOR_PACKAGE, 'clients', 'cli', 'build', 'index.js');
const BATCH_DRIVER = fileURLToPath(new URL('./inspector-batch.mjs', import.meta.url));
/** A batch's bound: the Inspector's start, then each run's own bound (runInspector's). */
const BATCH_START_TIMEOUT_MS = 30_000;
const RUN_TIMEOUT_MS = 45_000;
const inspectorHome = temporaryFolderSync('staticmcp-inspector-home-');

export interface InspectorRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `inspector --cli <target…> --format json <options>` to its end; the target comes first, as options such as --tool-arg take every word after them. */
export function runInspector(target: string[], options: string[]): Promise<InspectorRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [INSPECTOR, '--cli', ...cliArgs({ target, options })],
      {
        cwd: temporaryFolderSync('staticmcp-inspector-cwd-'),
        env: { ...process.env, HOME: inspectorHome, NO_COLOR: '1' },
        timeout: RUN_TIMEOUT_MS,
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
    );
  });
}

/** One Inspector CLI invocation: `inspector --cli <target…> --format json <options>`. */
export interface InspectorInvocation {
  target: string[];
  options: string[];
}

function cliArgs({ target, options }: InspectorInvocation): string[] {
  return [...target, '--format', 'json', '--connect-timeout', '15000', ...options];
}

/**
 * Runs `invocations` in one Inspector process, each as `inspector --cli` would run it, `lanes` of
 * them at a time (one after the other by default): its output and exit code, in order. A batch that
 * fails as a whole (the process died or ran out of time) rejects with what it printed.
 */
export async function runInspectorBatch(
  invocations: readonly InspectorInvocation[],
  lanes = 1,
): Promise<InspectorRun[]> {
  const folder = temporaryFolderSync('staticmcp-inspector-batch-');
  const runsFile = path.join(folder, 'runs.json');
  const resultsFile = path.join(folder, 'results.json');
  await fs.writeFile(runsFile, JSON.stringify(invocations.map(cliArgs)));
  await new Promise<void>((resolve, reject) => {
    execFile(
      process.execPath,
      [BATCH_DRIVER, INSPECTOR_CLI_MODULE, runsFile, resultsFile, String(lanes)],
      {
        cwd: folder,
        env: { ...process.env, HOME: inspectorHome, NO_COLOR: '1' },
        timeout: BATCH_START_TIMEOUT_MS + RUN_TIMEOUT_MS * Math.ceil(invocations.length / lanes),
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) =>
        error ? reject(new Error(`the Inspector batch failed (${error.message}):\n${stdout}${stderr}`)) : resolve(),
    );
  });
  return JSON.parse(await fs.readFile(resultsFile, 'utf8')) as InspectorRun[];
}

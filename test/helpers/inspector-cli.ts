// The official MCP Inspector's CLI (@modelcontextprotocol/inspector, pinned in tools/runtimes), run
// as a user runs it: `inspector --cli <target…> --format json <options>`, with Node 20 like a
// user's npx, bounded in time and output. It keeps a catalog and client settings under
// ~/.mcp-inspector: each run gets this module's own home, so a test run neither reads nor writes
// the user's.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { requireTool } from './runtime-tools.js';
import { temporaryFolderSync } from './temp-folders.js';

const INSPECTOR_PACKAGE = path.dirname(requireTool.resolve('@modelcontextprotocol/inspector/package.json'));
/** The `inspector` bin, the launcher `npx @modelcontextprotocol/inspector` starts. */
const INSPECTOR = path.join(
  INSPECTOR_PACKAGE,
  (JSON.parse(readFileSync(path.join(INSPECTOR_PACKAGE, 'package.json'), 'utf8')) as { bin: { inspector: string } }).bin
    .inspector,
);
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
      [INSPECTOR, '--cli', ...target, '--format', 'json', '--connect-timeout', '15000', ...options],
      {
        cwd: temporaryFolderSync('staticmcp-inspector-cwd-'),
        env: { ...process.env, HOME: inspectorHome, NO_COLOR: '1' },
        timeout: 45_000,
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
    );
  });
}

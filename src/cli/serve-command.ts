// `staticmcp serve [project|tree|URL] [--live PROJECT] [--http [PORT]]`: works out where the tree
// and the live project are, then runs the bridge on stdio. Loaded without yargs (see main.ts), so
// the bridge starts about as fast as Node itself; stdout belongs to the protocol, messages go to stderr.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

const USAGE = 'usage: staticmcp serve [project|tree|URL] [--live PROJECT] [--fetch-deadline-ms N]';

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
  if (argv.some((argument) => argument === '--http' || argument.startsWith('--http='))) {
    return fail('--http (Streamable HTTP) is not available yet', 'serve over stdio (the default) for now', 2);
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { live: { type: 'string' }, http: { type: 'string' }, 'fetch-deadline-ms': { type: 'string' } },
    });
  } catch (error) {
    return fail((error as Error).message, USAGE, 2);
  }
  if (parsed.positionals.length > 1) return fail(`one source at most, got ${parsed.positionals.length}`, USAGE, 2);
  const sourceArgument = parsed.positionals[0] ?? '.';
  const liveArgument = parsed.values.live;
  const deadlineArgument = parsed.values['fetch-deadline-ms'];
  const deadlineMs = deadlineArgument === undefined ? undefined : Number(deadlineArgument);
  if (deadlineMs !== undefined && !(Number.isSafeInteger(deadlineMs) && deadlineMs > 0)) {
    return fail(`--fetch-deadline-ms ${deadlineArgument} is not a whole number of milliseconds above 0`, USAGE, 2);
  }
  const isUrl = /^https?:\/\//i.test(sourceArgument);

  let projectRoot = liveArgument !== undefined ? path.resolve(liveArgument) : undefined;
  if (projectRoot !== undefined) {
    const stat = await fs.stat(projectRoot).catch(() => undefined);
    if (!stat?.isDirectory()) return fail(`--live ${liveArgument} is not a folder`, 'pass the project folder whose tools/ answer live calls', 2);
  }

  let source;
  if (isUrl) {
    const { UrlSource } = await import('../serve/url-source.js');
    try {
      source = new UrlSource(sourceArgument, { deadlineMs });
    } catch {
      return fail(`${sourceArgument} is not a valid URL`, USAGE, 2);
    }
  } else {
    const given = path.resolve(sourceArgument);
    let treeRoot: string;
    if (await isFile(path.join(given, 'mcp.json'))) {
      treeRoot = given;
    } else {
      const output = await outputFolderOf(given);
      if (!(await isFile(path.join(output, 'mcp.json')))) {
        return fail(`${sourceArgument} is neither a tree (no mcp.json) nor a built project (no ${path.relative(given, output) || '.'}/mcp.json)`,
          `run staticmcp build ${sourceArgument} first, or point serve at a tree folder or URL`, 2);
      }
      treeRoot = output;
      // `serve my-server`: the project that built the tree answers its misses.
      projectRoot ??= given;
    }
    const { FolderSource } = await import('../serve/folder-source.js');
    source = new FolderSource(treeRoot, path.relative(process.cwd(), treeRoot) || '.');
  }

  const { startBridge } = await import('../serve/start-bridge.js');
  try {
    return await startBridge({ source, projectRoot });
  } catch (error) {
    source.close();
    return fail((error as Error).message, 'check the tree (staticmcp build writes one) and try again', 1);
  }
}

// The command line for humans (the one module that imports yargs): argv → options → command,
// exit codes 0 (ok), 1 (something failed), 2 (bad usage).
import yargs from 'yargs';
import { packageInfo } from '../version.js';
import { StaticMcpError } from '../staticmcp-error.js';
import { printError } from './print-error.js';

const EXIT_FAILED = 1;
const EXIT_USAGE = 2;

export async function runCli(argv: string[]): Promise<void> {
  const parser = yargs(argv)
    .scriptName('staticmcp')
    .usage('$0 <command> [options]\n\nBuild a folder of scripts into a StaticMCP tree, and serve it over MCP.')
    .command(
      'build [project]',
      "run the project's scripts and write the StaticMCP tree",
      (command) =>
        command
          .positional('project', {
            type: 'string',
            default: '.',
            describe: 'project folder (holds tools/, resources/, staticmcp.json)',
          })
          .option('out', { type: 'string', describe: 'output folder (default: <project>/dist)' })
          .option('tools', { type: 'string', describe: 'a bare folder of scripts to use instead of <project>/tools' })
          .option('concurrency', { type: 'number', describe: 'scripts run at once (default: number of cores)' })
          .option('force', {
            type: 'boolean',
            default: false,
            describe: 'ignore the build cache and run every script again',
          })
          .option('json', { type: 'boolean', default: false, describe: 'print a machine-readable report on stdout' })
          .check((args) => {
            if (args.concurrency !== undefined && (!Number.isInteger(args.concurrency) || args.concurrency < 1)) {
              return '--concurrency must be a whole number of at least 1';
            }
            return true;
          }),
      async (args) => {
        const { runBuildCommand } = await import('./build-command.js');
        process.exitCode = await runBuildCommand({
          project: args.project!,
          out: args.out,
          tools: args.tools,
          concurrency: args.concurrency,
          force: args.force,
          json: args.json,
        });
      },
    )
    .command(
      'serve [source]',
      'serve a tree (folder or URL) as an MCP server over stdio, running scripts live on a miss',
      (command) =>
        command
          .positional('source', {
            type: 'string',
            default: '.',
            describe: 'project folder, tree folder, or http(s) URL of a deployed tree',
          })
          .option('live', { type: 'string', describe: 'project whose scripts answer calls the tree does not hold' })
          .option('http', { type: 'string', describe: 'serve Streamable HTTP on this port instead of stdio' }),
      async () => {
        const { runServeCommand } = await import('./serve-command.js');
        process.exitCode = await runServeCommand(argv.slice(1));
      },
    )
    .command(
      'dev [project]',
      'build the project, serve it over stdio, and rebuild and reload it on every change (clients are notified)',
      (command) =>
        command
          .positional('project', {
            type: 'string',
            default: '.',
            describe: 'project folder (holds tools/, resources/, prompts/)',
          })
          .option('out', { type: 'string', describe: 'output folder (default: <project>/dist)' })
          .option('tools', { type: 'string', describe: 'a bare folder of scripts to use instead of <project>/tools' })
          .option('concurrency', {
            type: 'number',
            describe: 'scripts run at once while building (default: number of cores)',
          })
          .option('debounce-ms', {
            type: 'number',
            describe: 'quiet time after a change before rebuilding (default: 50)',
          }),
      async () => {
        const { runDevCommand } = await import('./dev-command.js');
        process.exitCode = await runDevCommand(argv.slice(1));
      },
    )
    .command(
      'check [source]',
      "validate a tree (ours or another generator's, a folder or a URL) and report what is wrong",
      (command) =>
        command
          .positional('source', {
            type: 'string',
            default: '.',
            describe: 'tree folder, built project folder, or http(s) URL of a deployed tree',
          })
          .option('json', {
            type: 'boolean',
            default: false,
            describe: 'print {ok, problems, checked} as JSON on stdout',
          }),
      async (args) => {
        const { runCheckCommand } = await import('./check-command.js');
        process.exitCode = await runCheckCommand({ source: args.source!, json: args.json });
      },
    )
    .command(
      'init [folder]',
      'create a starter project (a tool, a resource, a prompt, staticmcp.json) in a new folder',
      (command) => command.positional('folder', { type: 'string', default: '.', describe: 'a new or empty folder' }),
      async (args) => {
        const { runInitCommand } = await import('./init-command.js');
        process.exitCode = await runInitCommand(args.folder!);
      },
    )
    .demandCommand(1, 'Give a command: build, serve, dev, check or init (see --help).')
    .strict()
    .version(packageInfo().version)
    .help()
    .fail((message, error) => {
      if (error instanceof StaticMcpError) {
        printError(error);
        process.exit(EXIT_FAILED);
      }
      // A check() that returns a message hands it over as a string: that is bad usage, not a crash.
      if (error instanceof Error) {
        process.stderr.write(`staticmcp: unexpected error: ${error.stack ?? error.message}\n`);
        process.exit(EXIT_FAILED);
      }
      process.stderr.write(
        `staticmcp: ${message}\n  what to do: run staticmcp --help for the commands and their options\n`,
      );
      process.exit(EXIT_USAGE);
    })
    .wrap(Math.min(100, process.stderr.columns ?? 100));
  await parser.parseAsync();
}

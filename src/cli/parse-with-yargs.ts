// The command line for humans (the one module that imports yargs): help texts, --version, and
// every usage error, from the commands' own declarations (command-spec.ts). Ordinary command lines
// never come here (parse-fast.ts reads them without loading yargs); both hand the handler the
// same arguments through runCommand. Exit codes: exit-codes.ts.
import yargs from 'yargs';
import { packageInfo } from '../shared/version.js';
import { loadAllCommands } from './command-list.js';
import { type CommandSpec, helpHint, printUsageError, runCommand } from './command-spec.js';
import { EXIT_USAGE, UsageError } from './exit-codes.js';

/** Help is printed for this many columns at most (and exactly this many off a terminal, so it is stable). */
const HELP_COLUMNS = 100;

/** Parses and runs a command line; `commands` defaults to every command (tests pass their own). */
export async function parseWithYargs(argv: string[], commands?: readonly CommandSpec[]): Promise<number> {
  const specs = commands ?? (await loadAllCommands());
  const names = specs.map((spec) => spec.name);
  const commandName = names.includes(argv[0] ?? '') ? argv[0] : undefined;
  let exitCode = 0;
  const parser = yargs(argv)
    .scriptName('staticmcp')
    .usage('$0 <command> [options]\n\nBuild a folder of scripts into a StaticMCP tree, and serve it over MCP.')
    .strict()
    .exitProcess(false)
    .demandCommand(1, `Give a command: ${names.join(', ')} (see --help).`)
    .version(packageInfo().version)
    .help()
    .alias('h', 'help')
    // A refused command line (yargs' own YError included) becomes a UsageError; an error thrown
    // by a handler goes on as it is.
    .fail((message, error) => {
      if (error && error.name !== 'YError') throw error;
      throw new UsageError(
        message ?? error?.message,
        commandName ? helpHint(commandName) : 'run staticmcp --help for the commands and their options',
      );
    })
    .wrap(Math.min(HELP_COLUMNS, process.stdout.columns ?? HELP_COLUMNS));
  for (const spec of specs) {
    const { positional } = spec;
    parser.command(
      `${spec.name} [${positional.name}${positional.variadic ? '..' : ''}]`,
      spec.describe,
      (command) => {
        command.positional(positional.name, {
          type: 'string',
          describe: positional.describe,
          default: positional.default,
        });
        for (const [name, option] of Object.entries(spec.options)) {
          // requiresArg: `--out` with nothing after it is an error, never an empty folder name.
          // A number is taken as its text (readArguments converts it), so a refusal can quote it
          // as typed (`--port 0x10`, never 16): declared a string AND a number, yargs' parser keeps
          // the text (a string flag is never coerced) while help labels it [number] (the number
          // label is written after the string one). test/cli/command-line.test.ts holds both.
          command.option(name, {
            ...(option.type === 'boolean' ? { type: 'boolean' } : { string: true, number: option.type === 'number' }),
            describe: option.describe,
            requiresArg: option.type !== 'boolean',
          });
        }
        return command;
      },
      async (args) => {
        // A variadic positional given nothing arrives as [] or [undefined].
        const given: unknown[] = [args[positional.name]].flat();
        const positionals = given.filter((value) => value !== undefined).map(String);
        exitCode = await runCommand(spec, positionals, args);
      },
    );
  }
  try {
    await parser.parseAsync();
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    printUsageError(undefined, error);
    return EXIT_USAGE;
  }
  return exitCode;
}

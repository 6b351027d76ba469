// What a command is: its options declared once, as data, and its handler. Both parsers (the fast
// one in parse-fast.ts and yargs in parse-with-yargs.ts) read these declarations and hand the
// handler the same values through readArguments, so they cannot disagree about an option.
import { EXIT_USAGE, UsageError } from './exit-codes.js';
import { writeHumanLines } from '../shared/terminal-text.js';

/** What a handler gets for an option: the option's own type, a list for a repeatable one. */
type OptionValue = string | number | boolean | string[];

export interface OptionSpec {
  type: 'string' | 'number' | 'boolean';
  describe: string;
  /** May be given several times (string options only); the handler gets every value, in order. */
  repeatable?: boolean;
  /**
   * What is wrong with a given value (the whole message, quoting `text`, the value as typed), or
   * undefined when it is fine. A number option's value is NaN when its text is not a plain number.
   * A method, so a declaration may take just its own type's value (`(value: number) => …`).
   */
  check?(value: OptionValue, text: string): string | undefined;
  /** What to do when `check` refuses a value (default: see the command's --help). */
  hint?: string;
}

export interface PositionalSpec {
  name: string;
  describe: string;
  /** The value when none is given (shown in --help). */
  default?: string;
  /** Takes any number of values (`merge PART…`), handed over in order as `positionals`. */
  variadic?: boolean;
}

type ValueOf<Option extends OptionSpec> = Option['type'] extends 'boolean'
  ? boolean
  : Option['type'] extends 'number'
    ? number | undefined
    : Option['repeatable'] extends true
      ? string[]
      : string | undefined;

export interface CommandArguments<Options extends Record<string, OptionSpec>> {
  /** The first of `positionals`. */
  positional: string | undefined;
  /** Every positional given (more than one only for a variadic positional), else the default alone. */
  positionals: string[];
  options: { [Name in keyof Options]: ValueOf<Options[Name]> };
}

export interface CommandSpec<Options extends Record<string, OptionSpec> = Record<string, OptionSpec>> {
  name: string;
  describe: string;
  positional: PositionalSpec;
  options: Options;
  /** Runs the command; resolves to the exit code (exit-codes.ts: 0 ok, 1 failed, 2 bad usage) or throws a UsageError. */
  run(args: CommandArguments<Options>): Promise<number>;
}

/** Declares a command, keeping its option types for its handler. */
export function defineCommand<const Options extends Record<string, OptionSpec>>(
  spec: CommandSpec<Options>,
): CommandSpec<Options> {
  return spec;
}

export function helpHint(command: string): string {
  return `run staticmcp ${command} --help for its options`;
}

/** A plain decimal number (`8080`, `-1`, `0.5`); anything else (`0x10`, `1e3`, `soon`, empty) is NaN. */
function toNumber(text: string): number {
  return /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
}

/**
 * The handler's arguments from what a parser found (`found` may hold more keys than the command
 * declares, as yargs' camel-case copies): declared options only, booleans false when absent,
 * repeatable options as lists, a value given twice for a single option the last one, every
 * `check` applied. Throws a UsageError for a refused value.
 */
export function readArguments<Options extends Record<string, OptionSpec>>(
  spec: CommandSpec<Options>,
  positionals: readonly string[],
  found: Record<string, unknown>,
): CommandArguments<Options> {
  const options: Record<string, unknown> = {};
  for (const [name, option] of Object.entries(spec.options)) {
    const given = found[name];
    const values: unknown[] = given === undefined ? [] : Array.isArray(given) ? given : [given];
    const last = values.at(-1);
    // Both parsers hand over a number option as its text: converted here, once, for both.
    const value: OptionValue | undefined = option.repeatable
      ? values.map(String)
      : option.type === 'boolean'
        ? last === true
        : last === undefined
          ? undefined
          : option.type === 'number'
            ? toNumber(String(last))
            : String(last);
    const problem = value === undefined ? undefined : option.check?.(value, String(last));
    if (problem !== undefined) throw new UsageError(problem, option.hint ?? helpHint(spec.name));
    options[name] = value;
  }
  const fallback = spec.positional.default;
  const given = positionals.length === 0 && fallback !== undefined ? [fallback] : [...positionals];
  return {
    positional: given[0],
    positionals: given,
    options: options as CommandArguments<Options>['options'],
  };
}

/** Runs a command with parsed arguments: its exit code, or 2 with the reason for bad usage. */
export async function runCommand(
  spec: CommandSpec,
  positionals: readonly string[],
  found: Record<string, unknown>,
): Promise<number> {
  try {
    return await spec.run(readArguments(spec, positionals, found));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    printUsageError(spec.name, error);
    return EXIT_USAGE;
  }
}

export function printUsageError(command: string | undefined, error: UsageError): void {
  writeHumanLines(process.stderr, [
    `staticmcp${command ? ` ${command}` : ''}: ${error.message}`,
    `  what to do: ${error.hint}`,
  ]);
}

// Reads and validates a script's `--help` (script convention): stdout is the metadata JSON, stderr
// the options JSON. Returns a value, never throws: a bad script becomes a reason to skip it.
import { createRequire } from 'node:module';
import { compileValidator, type Validator, validatorOf } from '../shared/ajv-validator.js';
import { HELP_METADATA_SCHEMA, HELP_OPTIONS_SCHEMA } from './help-schemas.js';
import type { ScriptRun } from './run/script-run.js';
import { parseLogLine } from '../core/results/log-lines.js';

export type ValueType = 'string' | 'integer' | 'float' | 'boolean' | 'any' | { enum: string[] };

export interface ScriptOption {
  name: string;
  description?: string;
  required: boolean;
  valueType: ValueType;
  defaultValue?: unknown;
  size?: { min?: number; max?: number };
}

export interface HelpInfo {
  /** The stdout JSON as given (extra keys such as title, annotations, values kept). */
  metadata: Record<string, unknown>;
  options: ScriptOption[];
  /** stdout and stderr exactly as printed, for the build cache. */
  stdout: string;
  stderr: string;
  warnings: string[];
}

export type HelpResult = { ok: true; help: HelpInfo } | { ok: false; reason: string };

let helpValidators: { metadata: Validator; options: Validator } | undefined;

/**
 * The validators of the two documents, compiled ahead of time by `npm run build`
 * (scripts/compile-validators.mjs) beside this module in dist/: loading ajv and compiling them cost
 * a cold build ~130 ms before its first script ran. From src/ (unit tests) they are compiled here,
 * with the same options and the same messages.
 */
function loadHelpValidators(): { metadata: Validator; options: Validator } {
  if (helpValidators) return helpValidators;
  try {
    const compiled = createRequire(import.meta.url)('./help-validators.cjs') as Record<
      'validateMetadata' | 'validateOptions',
      Parameters<typeof validatorOf>[0]
    >;
    helpValidators = {
      metadata: validatorOf(compiled.validateMetadata, 'metadata'),
      options: validatorOf(compiled.validateOptions, 'options'),
    };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error;
    helpValidators = {
      metadata: compileValidator(HELP_METADATA_SCHEMA, 'metadata', { trusted: true }),
      options: compileValidator(HELP_OPTIONS_SCHEMA, 'options', { trusted: true }),
    };
  }
  return helpValidators;
}

/** Strips what costs nothing to tolerate (BOM, CRLF); says so in `warnings`. */
function cleanJsonText(text: string, what: string, warnings: string[]): string {
  let cleaned = text;
  if (cleaned.startsWith('\uFEFF')) {
    cleaned = cleaned.slice(1);
    warnings.push(`${what} starts with a byte-order mark; ignored`);
  }
  if (cleaned.includes('\r\n')) {
    cleaned = cleaned.replace(/\r\n/g, '\n');
    warnings.push(`${what} uses CRLF line endings; accepted`);
  }
  return cleaned.trim();
}

function parseJsonObject(text: string, what: string): { value?: Record<string, unknown>; error?: string } {
  try {
    const value: unknown = JSON.parse(text);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      return {
        error: `${what} must be a JSON object, got ${Array.isArray(value) ? 'an array' : JSON.stringify(value)?.slice(0, 40)}`,
      };
    }
    return { value: value as Record<string, unknown> };
  } catch (error) {
    const preview = text.length > 60 ? `${text.slice(0, 60)}…` : text;
    return { error: `${what} is not JSON (${(error as Error).message}); it starts with ${JSON.stringify(preview)}` };
  }
}

function typeMatches(valueType: ValueType, value: unknown): boolean {
  if (typeof valueType === 'object') return typeof value === 'string' && valueType.enum.includes(value);
  switch (valueType) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'float':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'any':
      return true;
  }
}

function describeType(valueType: ValueType): string {
  if (typeof valueType === 'object') return `one of ${JSON.stringify(valueType.enum)}`;
  return `${/^[aeiou]/.test(valueType) ? 'an' : 'a'} ${valueType}`;
}

/** Checks the rules the schema cannot say: defaults, sizes, enums. Returns problems found. */
function checkOption(option: ScriptOption, warnings: string[]): string[] {
  const problems: string[] = [];
  const { name, size } = option;
  if (size) {
    if (size.min !== undefined && size.max !== undefined && size.min > size.max) {
      problems.push(`option "${name}": size.min (${size.min}) is greater than size.max (${size.max})`);
    }
    if (
      option.valueType === 'string' &&
      [size.min, size.max].some((bound) => bound !== undefined && (!Number.isInteger(bound) || bound < 0))
    ) {
      problems.push(`option "${name}": a string size must be whole non-negative numbers`);
    }
    if (option.valueType === 'boolean' || option.valueType === 'any' || typeof option.valueType === 'object') {
      warnings.push(`option "${name}": size has no meaning for ${describeType(option.valueType)}; ignored`);
      delete option.size;
    }
  }
  if (option.required) {
    if (option.defaultValue !== undefined) delete option.defaultValue;
    return problems;
  }
  if (option.defaultValue === undefined) {
    problems.push(`option "${name}" is optional but has no default_value; add one, or set "required": true`);
    return problems;
  }
  if (!typeMatches(option.valueType, option.defaultValue)) {
    problems.push(
      `option "${name}": default_value ${JSON.stringify(option.defaultValue)} is not ${describeType(option.valueType)}`,
    );
    return problems;
  }
  if (option.size && typeof option.defaultValue === 'number') {
    const { min, max } = option.size;
    if ((min !== undefined && option.defaultValue < min) || (max !== undefined && option.defaultValue > max)) {
      problems.push(
        `option "${name}": default_value ${option.defaultValue} is outside size ${JSON.stringify(option.size)}`,
      );
    }
  }
  if (option.size && typeof option.defaultValue === 'string') {
    const length = [...option.defaultValue].length;
    const { min, max } = option.size;
    if ((min !== undefined && length < min) || (max !== undefined && length > max)) {
      problems.push(
        `option "${name}": default_value is ${length} characters, outside size ${JSON.stringify(option.size)}`,
      );
    }
  }
  return problems;
}

/** Validates the two `--help` documents; pure, so it can be tested without a script. */
/**
 * `alreadyValidated`: the text passed these checks before (the build cache keeps only help that
 * did), so the schema pass, and loading ajv for it, can be skipped.
 */
export function parseHelpOutput(stdoutText: string, stderrText: string, alreadyValidated = false): HelpResult {
  const warnings: string[] = [];
  const metadataText = cleanJsonText(stdoutText, '--help stdout', warnings);
  const parsedMetadata = parseJsonObject(metadataText, '--help stdout (the metadata)');
  if (!parsedMetadata.value) return { ok: false, reason: parsedMetadata.error! };
  const metadataProblems = alreadyValidated ? [] : loadHelpValidators().metadata(parsedMetadata.value);
  if (metadataProblems.length > 0) return { ok: false, reason: `--help metadata: ${metadataProblems.join('; ')}` };

  let optionsText = cleanJsonText(stderrText, '--help stderr', warnings);
  const logLines = optionsText.split('\n').filter((line) => parseLogLine(line) !== null);
  if (logLines.length > 0) {
    optionsText = optionsText
      .split('\n')
      .filter((line) => parseLogLine(line) === null)
      .join('\n')
      .trim();
    warnings.push(`--help stderr mixes ${logLines.length} log line(s) with the options JSON; they were ignored`);
  }
  let rawOptions: Record<string, unknown> = {};
  if (optionsText !== '') {
    const parsedOptions = parseJsonObject(optionsText, '--help stderr (the options)');
    if (!parsedOptions.value) return { ok: false, reason: parsedOptions.error! };
    rawOptions = parsedOptions.value;
  }
  const optionProblems = alreadyValidated ? [] : loadHelpValidators().options(rawOptions);
  if (optionProblems.length > 0) {
    return { ok: false, reason: `--help options: ${explainOptionProblems(rawOptions, optionProblems).join('; ')}` };
  }

  const options: ScriptOption[] = [];
  const problems: string[] = [];
  for (const [name, raw] of Object.entries(rawOptions as Record<string, Record<string, unknown>>)) {
    const option: ScriptOption = {
      name,
      description: raw.description as string | undefined,
      required: raw.required === true,
      valueType: raw.value_type as ValueType,
      defaultValue: raw.default_value,
      size: raw.size as ScriptOption['size'],
    };
    problems.push(...checkOption(option, warnings));
    options.push(option);
  }
  if (problems.length > 0) return { ok: false, reason: `--help options: ${problems.join('; ')}` };
  return {
    ok: true,
    help: { metadata: parsedMetadata.value, options, stdout: stdoutText, stderr: stderrText, warnings },
  };
}

/** Turns ajv's oneOf noise about value_type into the one sentence a script author needs. */
function explainOptionProblems(rawOptions: Record<string, unknown>, problems: string[]): string[] {
  const explained: string[] = [];
  for (const [name, raw] of Object.entries(rawOptions)) {
    const valueType = (raw as Record<string, unknown> | null)?.value_type;
    if (valueType === undefined || raw === null || typeof raw !== 'object') continue;
    const isKnown = ['string', 'integer', 'float', 'boolean', 'any'].includes(valueType as string);
    const enumValues = (valueType as { enum?: unknown })?.enum;
    if (!isKnown && !(valueType !== null && typeof valueType === 'object')) {
      explained.push(
        `option "${name}": unknown value_type ${JSON.stringify(valueType)} (use string, integer, float, boolean, any or {"enum": [...]})`,
      );
    } else if (
      typeof valueType === 'object' &&
      valueType !== null &&
      Array.isArray(enumValues) &&
      enumValues.length === 0
    ) {
      explained.push(`option "${name}": the enum is empty; list at least one value`);
    }
  }
  const rest = problems.filter((problem) => !/value_type/.test(problem));
  return [...explained, ...rest, ...(explained.length === 0 && rest.length === 0 ? problems : [])];
}

export interface ReadHelpOptions {
  file: string;
  displayName: string;
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal;
}

export async function readHelp(options: ReadHelpOptions): Promise<HelpResult> {
  // Only a cache miss reads --help, so the spawning module loads only then.
  const { runScript } = await import('./run-script.js');
  const run: ScriptRun = await runScript({
    file: options.file,
    args: ['--help'],
    cwd: options.cwd,
    env: options.env,
    timeoutMs: options.timeoutMs,
    maxOutputBytes: 1024 * 1024,
    displayName: `${options.displayName} --help`,
    killGraceMs: 200,
    signal: options.signal,
  });
  if (run.failed || run.exitCode !== 0) {
    const stderrPreview = run.stderr.toString('utf8').trim().split('\n').slice(0, 3).join(' | ');
    return {
      ok: false,
      reason: `${run.message}${stderrPreview && !run.failed ? ` (stderr: ${stderrPreview.slice(0, 200)})` : ''}`,
    };
  }
  return parseHelpOutput(run.stdout.toString('utf8'), run.stderr.toString('utf8'));
}

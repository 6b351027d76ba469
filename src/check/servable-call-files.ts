// For trees of other generators: can `staticmcp serve` ever answer a call from this file? The
// file's path is read back into the argument sets it could stand for (its segments grouped into
// values, nested values included, assigned to the tool's parameters in the orders the bridge
// tries, typed by the schema; or the base64 key of three or more arguments), and each set is
// looked up exactly as the bridge does: checked against the tool's inputSchema, then the first
// listed file among the bridge's candidate paths. A file no set leads to is never served.
import { applyDefaults } from '../core/tree/call-key.js';
import { compileValidator } from '../shared/ajv-validator.js';
import { lenientCallFilePaths } from '../core/tree/lenient-call-keys.js';
import type { Validator } from '../validators/validator.js';
import { isObject, type JsonObject } from '../core/tree/json-object.js';

export interface CheckedToolSchema {
  name: string;
  inputSchema: JsonObject;
}

/** Argument sets tried per file: beyond this the answer is "unknown", never a false report. */
const MAX_ARGUMENT_SETS = 4_000;
/** `_` of a base64 key may stand for `/` or `+`: tried both ways for at most this many. */
const MAX_AMBIGUOUS_BASE64 = 10;

/** A segment read back as its parameter's value (undefined when the type cannot hold it). */
function typedValues(text: string, schema: unknown): unknown[] {
  const type = isObject(schema) ? schema.type : undefined;
  if (type === 'string') return [text];
  if (type === 'integer' || type === 'number')
    return text.trim() !== '' && !Number.isNaN(Number(text)) ? [Number(text)] : [];
  if (type === 'boolean') return text === 'true' ? [true] : text === 'false' ? [false] : [];
  const values: unknown[] = [text];
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== text) values.push(parsed);
  } catch {
    // Not JSON: the text is the only reading.
  }
  return values;
}

/** Every way to cut `segments` into `count` consecutive groups, each joined with `/`. */
function* groupings(segments: readonly string[], count: number): Generator<string[]> {
  if (count === 1) {
    yield [segments.join('/')];
    return;
  }
  for (let cut = 1; cut <= segments.length - count + 1; cut += 1) {
    for (const rest of groupings(segments.slice(cut), count - 1)) yield [segments.slice(0, cut).join('/'), ...rest];
  }
}

function* permutations<T>(items: readonly T[]): Generator<T[]> {
  if (items.length <= 1) {
    yield [...items];
    return;
  }
  for (const [index, item] of items.entries()) {
    for (const rest of permutations([...items.slice(0, index), ...items.slice(index + 1)])) yield [item, ...rest];
  }
}

function* subsets<T>(items: readonly T[], size: number, start = 0): Generator<T[]> {
  if (size === 0) {
    yield [];
    return;
  }
  for (let index = start; index <= items.length - size; index += 1) {
    for (const rest of subsets(items, size - 1, index + 1)) yield [items[index] as T, ...rest];
  }
}

/** The arguments of every typed reading of `values` assigned to `names`, in order. */
function* typedAssignments(
  names: readonly string[],
  values: readonly string[],
  properties: JsonObject,
): Generator<JsonObject> {
  const options = names.map((name, index) => typedValues(values[index] as string, properties[name]));
  function* walk(index: number, args: JsonObject): Generator<JsonObject> {
    if (index === names.length) {
      yield { ...args };
      return;
    }
    for (const value of options[index] ?? []) {
      args[names[index] as string] = value;
      yield* walk(index + 1, args);
    }
    delete args[names[index] as string];
  }
  yield* walk(0, {});
}

/** The arguments a base64 key (sse_bridge, three or more arguments) stands for. */
function* base64Readings(segment: string, names: readonly string[], properties: JsonObject): Generator<JsonObject> {
  const body = segment.replace(/_+$/, '');
  const padding = '='.repeat(segment.length - body.length);
  const ambiguous = [...body].flatMap((character, index) => (character === '_' ? [index] : []));
  if (ambiguous.length > MAX_AMBIGUOUS_BASE64) return;
  for (let mask = 0; mask < 1 << ambiguous.length; mask += 1) {
    const characters = [...body];
    ambiguous.forEach((position, bit) => {
      characters[position] = mask & (1 << bit) ? '+' : '/';
    });
    const text = Buffer.from(characters.join('') + padding, 'base64').toString('utf8');
    const pairs = text.split('&').map((pair) => pair.split('='));
    if (pairs.length < 3 || pairs.some((pair) => pair.length !== 2 || !names.includes(pair[0] as string))) continue;
    yield* typedAssignments(
      pairs.map((pair) => pair[0] as string),
      pairs.map((pair) => pair[1] as string),
      properties,
    );
  }
}

/** Every argument set the file's path could stand for, most likely first. */
function* readingsOf(
  segments: readonly string[],
  names: readonly string[],
  properties: JsonObject,
): Generator<JsonObject> {
  if (segments.length === 0) {
    yield {};
    return;
  }
  for (let count = Math.min(segments.length, names.length); count >= 1; count -= 1) {
    for (const values of groupings(segments, count)) {
      for (const chosen of subsets(names, count)) {
        const orders = count <= 4 ? permutations(chosen) : [chosen, [...chosen].sort()];
        for (const order of orders) yield* typedAssignments(order, values, properties);
      }
    }
  }
  if (segments.length === 1 && names.length >= 3) yield* base64Readings(segments[0] as string, names, properties);
}

/**
 * Why the bridge would never answer from `filePath` (a `tools/<name>…` file of `tool`), or
 * undefined when some argument set leads it there (or too many sets to tell). `listed`: every file
 * of the tree, since the bridge serves the first candidate that exists.
 */
export function whyNeverServed(
  filePath: string,
  tool: CheckedToolSchema,
  listed: ReadonlySet<string>,
): string | undefined {
  const prefix = `tools/${tool.name}`;
  const segments = filePath === `${prefix}.json` ? [] : filePath.slice(prefix.length + 1, -'.json'.length).split('/');
  const properties = isObject(tool.inputSchema.properties) ? tool.inputSchema.properties : {};
  const names = Object.keys(properties);
  let validate: Validator | undefined;
  try {
    validate = compileValidator(tool.inputSchema, 'arguments');
  } catch {
    // The bridge does not validate against a schema it cannot compile either.
  }
  let tried = 0;
  let firstRefusal: string | undefined;
  for (const args of readingsOf(segments, names, properties)) {
    tried += 1;
    if (tried > MAX_ARGUMENT_SETS) return undefined;
    const problems = validate ? validate(args) : [];
    if (problems.length > 0) {
      firstRefusal ??= `${JSON.stringify(args)} is refused by its inputSchema (${problems.join('; ')})`;
      continue;
    }
    const withDefaults = applyDefaults(tool.inputSchema, args);
    const declared =
      names.length === 0
        ? withDefaults
        : Object.fromEntries(Object.entries(withDefaults).filter(([name]) => names.includes(name)));
    const first = lenientCallFilePaths(tool.name, names, [args, declared]).find((candidate) => listed.has(candidate));
    if (first === filePath) return undefined;
    firstRefusal ??= `${JSON.stringify(args)} is answered from ${first ?? 'no file'} instead`;
  }
  if (segments.length > 0 && names.length === 0)
    return `tool ${tool.name} takes no arguments, so only ${prefix}.json is ever read`;
  if (tried === 0)
    return `no arguments of tool ${tool.name} lead to this path (${segments.length} segments, ${names.length} parameters)`;
  return `no call of tool ${tool.name} is answered from it: ${firstRefusal}`;
}

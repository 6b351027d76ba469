// Keys of precomputed calls: which file inside a tree answers `tools/call` for given arguments.
// The build writes at these paths and the bridge looks them up with the same functions.
import { canonicalJson, sameJson } from './canonical-json.js';
import { encodeKeySegment } from './encode-filename.js';

/** Renders one argument value as the text that gets encoded into a key segment. */
export function renderArgumentValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isInteger(value)) return String(value);
  return canonicalJson(value);
}

/**
 * The tree-relative path (with `/` separators) of the file answering `toolName` with these
 * arguments, one segment per parameter in `parameterOrder` (defaults already applied).
 * A parameter missing from the arguments is rendered as JSON `null`.
 */
export function callFilePath(
  toolName: string,
  parameterOrder: readonly string[],
  args: Record<string, unknown>,
): string {
  if (parameterOrder.length === 0) return `tools/${toolName}.json`;
  // Built as one string: every call asks for its path, and arrays joined were its garbage.
  let path = `tools/${toolName}`;
  for (const name of parameterOrder) path += `/${encodeKeySegment(renderArgumentValue(args[name] ?? null))}`;
  return `${path}.json`;
}

/** Applies `default` values from an inputSchema's properties to a copy of the arguments. */
export function applyDefaults(
  inputSchema: { properties?: Record<string, { default?: unknown }> } | undefined,
  args: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const withDefaults: Record<string, unknown> = { ...(args ?? {}) };
  for (const [name, property] of Object.entries(inputSchema?.properties ?? {})) {
    if (withDefaults[name] === undefined && property && typeof property === 'object' && 'default' in property) {
      withDefaults[name] = property.default;
    }
  }
  return withDefaults;
}

/**
 * The keys other StaticMCP bridges compute for this call when the client leaves out optional
 * arguments that hold their default (they key on the arguments as sent: `greet {}` →
 * `tools/greet.json`): one per non-empty subset of those parameters left out (`every`), or only
 * the one with all of them left out. Never the full key itself. Keys are in declaration order.
 */
export function omittedDefaultCallFilePaths(
  toolName: string,
  parameterOrder: readonly string[],
  inputSchema: { properties?: Record<string, unknown>; required?: readonly string[] } | undefined,
  args: Record<string, unknown>,
  every: boolean,
): string[] {
  const required = new Set(inputSchema?.required ?? []);
  const defaulted = parameterOrder.filter((name) => {
    const property = inputSchema?.properties?.[name] as { default?: unknown } | undefined;
    return (
      !required.has(name) &&
      property !== undefined &&
      'default' in property &&
      args[name] !== undefined &&
      sameJson(args[name], property.default)
    );
  });
  if (defaulted.length === 0) return [];
  const subsets: string[][] = [];
  if (every) {
    for (let mask = 1; mask < 1 << defaulted.length; mask++)
      subsets.push(defaulted.filter((_name, index) => (mask & (1 << index)) !== 0));
  } else subsets.push(defaulted);
  const paths = subsets.map((left) => {
    const kept = parameterOrder.filter((name) => !left.includes(name));
    return callFilePath(toolName, kept, args);
  });
  return [...new Set(paths)];
}

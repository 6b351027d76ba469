// Canonical JSON text: object keys sorted, no whitespace. Used wherever bytes must not depend on
// insertion order: key segments for non-scalar values, content hashes, cache keys.

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    const text = JSON.stringify(value);
    return text === undefined ? 'null' : text;
  }
  if (Array.isArray(value)) {
    return `[${value.map((item) => canonicalJson(item)).join(',')}]`;
  }
  const entries = Object.keys(value as Record<string, unknown>)
    .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
  return `{${entries.join(',')}}`;
}

/** How every JSON file of a tree is written: two-space indent and a final newline. */
export function treeJsonFile(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** True when two JSON values are the same data (key order ignored). */
export function sameJson(left: unknown, right: unknown): boolean {
  return canonicalJson(left) === canonicalJson(right);
}

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

/**
 * sameJson(value, expected) without writing out more of `value` than `expected` has: a 4 MB
 * argument compared with a short default costs nothing (issue 21, item 5). `expected` is small
 * (a schema's default), so canonicalJson of it is cheap; `value` is cut short by its size.
 */
export function isSameJsonAs(value: unknown, expected: unknown): boolean {
  if (typeof value === 'string' || typeof expected === 'string') return value === expected;
  const expectedText = canonicalJson(expected);
  if (value !== null && typeof value === 'object' && !fitsInCharacters(value, expectedText.length)) return false;
  return canonicalJson(value) === expectedText;
}

/**
 * False as soon as `value`'s canonical JSON surely exceeds `maxCharacters`: a lower bound that
 * counts each string's length + 2 quotes, each array's brackets and commas, each object's braces,
 * each other scalar one character (undefined nothing, it may be left out); no recursion.
 */
function fitsInCharacters(value: object, maxCharacters: number): boolean {
  let budget = maxCharacters;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === 'string') budget -= item.length + 2;
    else if (Array.isArray(item)) {
      budget -= 1 + Math.max(1, item.length);
      if (budget < 0) return false;
      for (const child of item) pending.push(child);
    } else if (item !== null && typeof item === 'object') {
      budget -= 2;
      if (budget < 0) return false;
      for (const child of Object.values(item)) pending.push(child);
    } else if (item !== undefined) budget -= 1;
    if (budget < 0) return false;
  }
  return true;
}

/** True when two JSON values are the same data (key order ignored). */
export function sameJson(left: unknown, right: unknown): boolean {
  return compareJson(left, right) ?? canonicalJson(left) === canonicalJson(right);
}

/**
 * canonicalJson(left) === canonicalJson(right), told without writing either out (a call's
 * arguments are compared with its file's at every new call), for plain JSON data: strings,
 * booleans, finite numbers, null, arrays and objects of them. Undefined where a value is anything
 * else (undefined, NaN, a function: written as null), which sameJson then compares as text.
 */
function compareJson(left: unknown, right: unknown): boolean | undefined {
  if (left === right) return true;
  if (!isPlainJson(left) || !isPlainJson(right)) return undefined;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  if (Array.isArray(left) || Array.isArray(right)) {
    if (!Array.isArray(left) || !Array.isArray(right) || left.length !== right.length) return false;
    for (let index = 0; index < left.length; index += 1) {
      const same = compareJson(left[index], right[index]);
      if (same !== true) return same;
    }
    return true;
  }
  const leftObject = left as Record<string, unknown>;
  const rightObject = right as Record<string, unknown>;
  let count = 0;
  for (const key in leftObject) {
    if (!Object.hasOwn(leftObject, key) || leftObject[key] === undefined) continue;
    count += 1;
    if (!Object.hasOwn(rightObject, key)) return false;
    const same = compareJson(leftObject[key], rightObject[key]);
    if (same !== true) return same;
  }
  for (const key in rightObject) if (Object.hasOwn(rightObject, key) && rightObject[key] !== undefined) count -= 1;
  return count === 0;
}

function isPlainJson(value: unknown): boolean {
  const type = typeof value;
  return type === 'string' || type === 'boolean' || type === 'object' || (type === 'number' && Number.isFinite(value));
}

// The resource list in parts (issue #39): `mcp.json` keeps the first resources inline (what other
// StaticMCP bridges read), and our extension's `resourceList` names part files holding the rest,
// `lists/resources/<sha16>.json` each `{"resources": [...]}`, in list order. Part names are content
// hashes, so a deployed part never changes under a cursor of an older build. Parsed from untrusted
// JSON: a part that is not a plain tree path below lists/resources/ ending in `.json`, or counts
// that do not add up, refuse the whole table (the inline list still serves). Portable.
import { isObject, type JsonObject } from './json-object.js';
import { EXTENSION_KEY } from './manifest.js';
import { findTreePathProblem, showTreePath } from './tree-path.js';

/** Where the part files live in a tree. */
export const RESOURCE_LIST_FOLDER = 'lists/resources/';
/** `limits.resourcesInManifest`' default: entries of the list kept inline in mcp.json. */
export const DEFAULT_RESOURCES_IN_MANIFEST = 100;
/** `limits.resourcesPerListPart`' default: entries per part file (~500 bytes each: ~1 MB a part). */
export const DEFAULT_RESOURCES_PER_LIST_PART = 2000;
/** The largest part a reader takes whole (a part saying more is refused unread where sizes are known). */
export const MAX_LIST_PART_ENTRIES = 100_000;

export interface ResourceListPart {
  /** Tree path of the part file. */
  path: string;
  /** How many entries it holds. */
  count: number;
}

/** Our extension's `resourceList`: the whole list's size, and its parts after the inline entries. */
export interface ResourceListParts {
  total: number;
  parts: ResourceListPart[];
}

/** Parses the extension's `resourceList`; undefined when absent, `problem` when unusable. */
export function parseResourceList(
  value: unknown,
  inlineCount: number,
): ResourceListParts | { problem: string } | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value) || !Array.isArray(value.parts) || typeof value.total !== 'number')
    return { problem: 'resourceList is not {total, parts: [...]}' };
  const parts: ResourceListPart[] = [];
  let counted = inlineCount;
  for (const raw of value.parts as unknown[]) {
    const { path, count } = (isObject(raw) ? raw : {}) as Record<string, unknown>;
    const pathProblem =
      findTreePathProblem(path) ??
      (!(path as string).startsWith(RESOURCE_LIST_FOLDER) || !(path as string).endsWith('.json')
        ? `it is not a .json file below ${RESOURCE_LIST_FOLDER}`
        : undefined);
    if (pathProblem !== undefined)
      return { problem: `resourceList names the part ${showTreePath(path)} (${pathProblem})` };
    if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 1 || count > MAX_LIST_PART_ENTRIES)
      return { problem: `resourceList part ${path as string} has no count from 1 to ${MAX_LIST_PART_ENTRIES}` };
    parts.push({ path: path as string, count });
    counted += count;
  }
  if (counted !== value.total)
    return { problem: `resourceList says ${String(value.total)} resources but its parts and mcp.json hold ${counted}` };
  return { total: counted, parts };
}

/** The entries of a part file's parsed JSON, or what is wrong with it. */
export function entriesOfPart(value: unknown, part: ResourceListPart): JsonObject[] | { problem: string } {
  if (!isObject(value) || !Array.isArray(value.resources))
    return { problem: `${part.path} is not a resource list part ({"resources": [...]})` };
  if (value.resources.length !== part.count)
    return { problem: `${part.path} holds ${value.resources.length} resources, mcp.json says ${part.count}` };
  return value.resources.filter(isObject);
}

/** The list cut into the inline entries and the parts' entries (the build). */
export function splitResourceList<T>(
  list: readonly T[],
  inlineCount = DEFAULT_RESOURCES_IN_MANIFEST,
  perPart = DEFAULT_RESOURCES_PER_LIST_PART,
): { inline: T[]; parts: T[][] } {
  if (list.length <= inlineCount) return { inline: [...list], parts: [] };
  const parts: T[][] = [];
  for (let start = inlineCount; start < list.length; start += perPart) parts.push(list.slice(start, start + perPart));
  return { inline: list.slice(0, inlineCount), parts };
}

/**
 * Every resource entry of a manifest: the inline list, then each part read through `readPart`
 * (parsed JSON, undefined when the tree lacks it). A missing or broken part is told to `onProblem`
 * and skipped; the rest is listed. Foreign trees (no `resourceList`) give their inline list.
 */
export async function* allResourceEntries(
  manifest: JsonObject,
  readPart: (treePath: string) => Promise<unknown>,
  onProblem: (treePath: string, reason: string) => void = () => {},
): AsyncGenerator<JsonObject> {
  for await (const entries of resourceEntryLists(manifest, readPart, onProblem)) yield* entries;
}

/**
 * allResourceEntries a list at a time (the inline list, then a part's): a caller that goes
 * through every entry awaits once a part, not once an entry (each level of async generator an
 * entry passes through is promises made and settled for it).
 */
export async function* resourceEntryLists(
  manifest: JsonObject,
  readPart: (treePath: string) => Promise<unknown>,
  onProblem: (treePath: string, reason: string) => void = () => {},
): AsyncGenerator<readonly JsonObject[]> {
  const capabilities = isObject(manifest.capabilities) ? manifest.capabilities : {};
  const inline = Array.isArray(capabilities.resources) ? capabilities.resources.filter(isObject) : [];
  yield inline;
  const extension = isObject(manifest[EXTENSION_KEY]) ? manifest[EXTENSION_KEY] : undefined;
  const parsed = parseResourceList(extension?.resourceList, inline.length);
  if (parsed === undefined) return;
  if ('problem' in parsed) {
    onProblem('mcp.json', parsed.problem);
    return;
  }
  for (const part of parsed.parts) {
    let value: unknown;
    try {
      value = await readPart(part.path);
    } catch (error) {
      onProblem(part.path, `cannot be read (${error instanceof Error ? error.message : String(error)})`);
      continue;
    }
    if (value === undefined) {
      onProblem(part.path, 'is missing: the resources it lists are left out');
      continue;
    }
    const entries = entriesOfPart(value, part);
    if ('problem' in entries) onProblem(part.path, entries.problem);
    else yield entries;
  }
}

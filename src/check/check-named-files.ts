// `staticmcp check`, the files the manifest names: resources, prompts and our extension's files.
import { resourceFilePaths } from '../core/tree/resource-key.js';
import {
  DEFAULT_CACHE_TTL_SECONDS,
  EXTENSION_KEY,
  MAX_CACHE_TTL_SECONDS,
  promptFilePath,
} from '../core/tree/manifest.js';
import type { CachedTreeReader } from '../core/tree-reading/cached-tree-reader.js';
import { isObject, type JsonObject } from '../core/tree/json-object.js';
import type { CheckedTool, ListedResource } from './check-manifest.js';
import { entriesOfPart, parseResourceList } from '../core/tree/resource-list.js';
import { at, listOf, listPath, REBUILD, type Report } from './tree-problem.js';

/**
 * Checks every listed resource, inline and in the list parts, and its file; returns how many are
 * listed, handing each well-formed entry to `onListed` (the MCP Apps check needs the whole list).
 */
export async function checkResources(
  manifest: JsonObject,
  extension: JsonObject | undefined,
  reader: CachedTreeReader,
  report: Report,
  onListed: (listed: ListedResource) => void = () => {},
): Promise<number> {
  const stateResources = extension && isObject(extension.stateResources) ? extension.stateResources : {};
  const seen = new Set<string>();
  const base = listPath(manifest, 'resources');
  const list = listOf(manifest, 'resources');
  const checkEntry = async (raw: unknown, where: (...parts: (string | number)[]) => string): Promise<void> => {
    if (!isObject(raw)) {
      report(where(), 'is not an object', 'describe each resource as {uri, name, description, mimeType}');
      return;
    }
    const uri = raw.uri;
    if (typeof raw.name !== 'string')
      report(where('name'), 'is missing or not a string', 'give the resource a human-readable name');
    if (typeof uri !== 'string' || uri === '') {
      report(where('uri'), 'is missing or not a non-empty string', 'give the resource its URI (e.g. "docs://guide")');
      return;
    }
    if (seen.has(uri)) {
      report(where('uri'), `${uri} is listed twice`, 'list each resource once');
      return;
    }
    seen.add(uri);
    onListed({ entry: raw, where });
    // State resources are read live by running their script; they have no file by design.
    if (typeof stateResources[uri] === 'string') return;
    await checkResourceFile(uri, extension !== undefined, reader, report);
  };
  for (const [index, raw] of list.entries()) await checkEntry(raw, (...parts) => at(...base, index, ...parts));
  // The rest of the list, in the part files our extension names (core/tree/resource-list.ts).
  const parsed = extension ? parseResourceList(extension.resourceList, list.length) : undefined;
  if (parsed === undefined) return list.length;
  if ('problem' in parsed) {
    report(at(EXTENSION_KEY, 'resourceList'), parsed.problem, REBUILD);
    return list.length;
  }
  let count = list.length;
  for (const part of parsed.parts) {
    const file = await reader.readJson(part.path);
    const entries = file.kind === 'ok' ? entriesOfPart(file.value, part) : undefined;
    if (entries === undefined || 'problem' in entries) {
      report(
        part.path,
        entries?.problem ??
          (file.kind === 'broken' ? file.reason : 'is missing: the resources it lists cannot be listed'),
        REBUILD,
      );
      continue;
    }
    for (const [index, raw] of entries.entries())
      await checkEntry(raw, (...parts) => `${part.path}#/resources/${[index, ...parts].join('/')}`);
    count += entries.length;
  }
  return count;
}

export async function checkResourceFile(
  uri: string,
  ours: boolean,
  reader: CachedTreeReader,
  report: Report,
): Promise<void> {
  const candidates = resourceFilePaths(uri, ours);
  for (const candidate of candidates) {
    const file = await reader.readJson(candidate);
    if (file.kind === 'missing') continue;
    if (file.kind === 'broken') {
      report(
        candidate,
        `resource ${uri}: ${file.reason}`,
        `write it as JSON {"uri", "mimeType", "text"}, or ${REBUILD}`,
      );
      return;
    }
    const value = file.value;
    const written =
      isObject(value) && Array.isArray(value.contents)
        ? value.contents.filter(isObject)
        : isObject(value)
          ? [value]
          : [];
    for (const item of written) {
      if (typeof item.uri === 'string' && item.uri !== uri) {
        report(
          candidate,
          `says it holds ${item.uri}, but mcp.json lists it for ${uri}`,
          `make the two URIs agree, or ${REBUILD}`,
        );
        return;
      }
    }
    // Our profile writes one shape; anything else in our tree means the file was not written by us.
    if (ours && !(isObject(value) && (typeof value.text === 'string' || typeof value.blob === 'string'))) {
      report(
        candidate,
        `resource ${uri} is not in the {uri, mimeType, text|blob} shape this tree's generator writes`,
        REBUILD,
      );
    }
    return;
  }
  // The last candidate is the encoded path, where our profile writes the file.
  const expected = candidates.at(-1);
  if (expected !== undefined)
    report(
      expected,
      `is missing: resource ${uri} has no file, so resources/read fails`,
      `${REBUILD}, or remove the resource from mcp.json`,
    );
}

export async function checkPrompts(
  manifest: JsonObject,
  ours: boolean,
  reader: CachedTreeReader,
  report: Report,
): Promise<number> {
  const base = listPath(manifest, 'prompts');
  const list = listOf(manifest, 'prompts');
  for (const [index, raw] of list.entries()) {
    if (!isObject(raw) || typeof raw.name !== 'string') {
      report(at(...base, index, 'name'), 'is missing or not a string', 'give the prompt a name');
      continue;
    }
    // Prompt files are our extension; other generators keep prompts however they like.
    if (!ours) continue;
    const filePath = promptFilePath(raw.name);
    const file = await reader.readJson(filePath);
    if (file.kind !== 'ok') {
      report(
        filePath,
        file.kind === 'missing' ? `is missing: prompt ${raw.name} cannot be rendered` : file.reason,
        `${REBUILD}, or remove the prompt from mcp.json`,
      );
    }
  }
  return list.length;
}

export async function checkExtensionFiles(
  extension: JsonObject,
  tools: CheckedTool[],
  reader: CachedTreeReader,
  report: Report,
): Promise<void> {
  const toolExtensions = isObject(extension.tools) ? extension.tools : undefined;
  if (!toolExtensions) {
    report(at(EXTENSION_KEY, 'tools'), 'is missing or not an object', REBUILD);
  } else {
    const names = new Set(tools.map((tool) => tool.name));
    for (const tool of tools) {
      const entry = toolExtensions[tool.name];
      if (
        !isObject(entry) ||
        !Array.isArray(entry.parameterOrder) ||
        !entry.parameterOrder.every((name) => typeof name === 'string')
      ) {
        report(
          at(EXTENSION_KEY, 'tools', tool.name),
          'is missing, or has no parameterOrder (an array of names)',
          REBUILD,
        );
        continue;
      }
      tool.parameterOrder = entry.parameterOrder as string[];
    }
    for (const name of Object.keys(toolExtensions)) {
      if (!names.has(name))
        report(at(EXTENSION_KEY, 'tools', name), `describes a tool that capabilities.tools does not list`, REBUILD);
    }
  }
  if (typeof extension.contentHash !== 'string')
    report(at(EXTENSION_KEY, 'contentHash'), 'is missing or not a string', REBUILD);
  // The owner's TTL (2026-07-28 ttlMs, _headers max-age): a bad value would be ignored by every
  // bridge and the default used instead, which is not what the owner asked for.
  if (extension.cache !== undefined) {
    const ttl = isObject(extension.cache) ? extension.cache.ttlSeconds : undefined;
    if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 0 || ttl > MAX_CACHE_TTL_SECONDS) {
      report(
        at(EXTENSION_KEY, 'cache', 'ttlSeconds'),
        `must be a whole number of seconds from 0 to ${MAX_CACHE_TTL_SECONDS} (bridges use ${DEFAULT_CACHE_TTL_SECONDS} instead)`,
        REBUILD,
      );
    }
  }
  if (typeof extension.completions === 'string') {
    const file = await reader.readJson(extension.completions);
    if (file.kind !== 'ok')
      report(
        extension.completions,
        file.kind === 'missing' ? 'is missing: completions cannot be answered' : file.reason,
        REBUILD,
      );
  }
}

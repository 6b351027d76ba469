// `staticmcp check`, the manifest itself: its header, the tool definitions, the resource templates,
// and the links of MCP Apps (a tool's `_meta.ui.resourceUri` must name a `ui://` page the tree lists).
import { TOOL_NAME, TOOL_NAME_IN_WORDS } from '../core/tree/name-rules.js';
import { isObject, type JsonObject } from '../core/tree/json-object.js';
import { APP_MIME_TYPE, APP_URI_SCHEME, FLAT_RESOURCE_URI_KEY } from '../core/tree/mcp-apps.js';
import { at, listOf, listPath, type Report } from './tree-problem.js';

export function checkHeader(manifest: JsonObject, report: Report): void {
  if (typeof manifest.protocolVersion !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(manifest.protocolVersion)) {
    report(
      at('protocolVersion'),
      manifest.protocolVersion === undefined
        ? 'is missing'
        : `is ${JSON.stringify(manifest.protocolVersion)}, not a YYYY-MM-DD date`,
      'set it to the MCP protocol version the tree follows, e.g. "2025-11-25"',
    );
  }
  if (!isObject(manifest.serverInfo)) {
    report(at('serverInfo'), 'is missing or not an object', 'add "serverInfo": {"name": …, "version": …}');
  } else {
    for (const key of ['name', 'version']) {
      const value = manifest.serverInfo[key];
      if (typeof value !== 'string' || value === '')
        report(at('serverInfo', key), 'is missing or not a non-empty string', `give the server a ${key} (a string)`);
    }
  }
  if (!isObject(manifest.capabilities)) {
    report(at('capabilities'), 'is missing or not an object', 'add "capabilities": {"tools": […], "resources": […]}');
    return;
  }
  for (const key of ['tools', 'resources']) {
    if (Array.isArray(manifest.capabilities[key])) continue;
    const topLevel = Array.isArray(manifest[key]);
    report(
      at('capabilities', key),
      topLevel
        ? `is missing; the list is at the top level ("${key}"), which staticmcp serve tolerates but the standard does not`
        : 'is missing or not an array',
      `move the list to capabilities.${key} (an empty array when there are none)`,
    );
  }
  for (const key of ['resourceTemplates', 'prompts']) {
    const value = manifest.capabilities[key];
    if (value !== undefined && !Array.isArray(value))
      report(at('capabilities', key), 'is not an array', 'make it an array, or leave it out');
  }
}

/** The lists the bridge would read (capabilities.<key>, or the top level, as loaded-tree.ts does). */
export interface CheckedTool {
  name: string;
  /** Parameters in the order of key segments: our extension's, else the inputSchema's. */
  parameterOrder: string[];
  inputSchema: JsonObject;
}

export function checkTools(manifest: JsonObject, report: Report): CheckedTool[] {
  const tools: CheckedTool[] = [];
  const seen = new Set<string>();
  const base = listPath(manifest, 'tools');
  listOf(manifest, 'tools').forEach((raw, index) => {
    if (!isObject(raw)) {
      report(at(...base, index), 'is not an object', 'describe each tool as {name, description, inputSchema}');
      return;
    }
    const name = raw.name;
    if (typeof name !== 'string') {
      report(at(...base, index, 'name'), 'is missing or not a string', 'give the tool a name');
      return;
    }
    if (!TOOL_NAME.test(name)) {
      report(
        at(...base, index, 'name'),
        `tool name ${JSON.stringify(name)} does not match ${TOOL_NAME.source}, and MCP clients reject the whole server over one such name`,
        `rename the tool using only ${TOOL_NAME_IN_WORDS}; for a staticmcp project, rename the script or set "name" in its .meta.json`,
      );
    }
    if (seen.has(name)) {
      report(
        at(...base, index, 'name'),
        `tool name ${JSON.stringify(name)} is listed twice`,
        'give every tool its own name',
      );
      return;
    }
    seen.add(name);
    const schema = raw.inputSchema;
    if (!isObject(schema) || schema.type !== 'object') {
      report(
        at(...base, index, 'inputSchema'),
        isObject(schema) ? `has type ${JSON.stringify(schema.type)}, not "object"` : 'is missing or not an object',
        'give the tool an inputSchema {"type": "object", "properties": {…}} (MCP requires an object schema)',
      );
    }
    const properties = isObject(schema) && isObject(schema.properties) ? Object.keys(schema.properties) : [];
    tools.push({ name, parameterOrder: properties, inputSchema: isObject(schema) ? schema : { type: 'object' } });
  });
  return tools;
}

export function checkTemplates(manifest: JsonObject, report: Report): number {
  const base = listPath(manifest, 'resourceTemplates');
  const list = listOf(manifest, 'resourceTemplates');
  list.forEach((raw, index) => {
    if (!isObject(raw) || typeof raw.uriTemplate !== 'string' || typeof raw.name !== 'string') {
      report(
        at(...base, index),
        'needs a uriTemplate and a name (strings)',
        'describe each template as {uriTemplate, name, description?, mimeType?}',
      );
    }
  });
  return list.length;
}

/** A resource entry as listed (inline or in a list part), with where a problem with it is reported. */
export interface ListedResource {
  entry: JsonObject;
  where: (...parts: (string | number)[]) => string;
}

/**
 * MCP Apps: each tool's UI is a listed `ui://` resource, and each `ui://` resource has the
 * extension's MIME type. `resources` is the whole list, its parts included (checkResources).
 */
export function checkAppLinks(manifest: JsonObject, resources: readonly ListedResource[], report: Report): void {
  const listed = new Set(resources.map(({ entry }) => entry.uri));
  for (const { entry, where } of resources) {
    if (typeof entry.uri !== 'string' || !entry.uri.startsWith(APP_URI_SCHEME)) continue;
    if (entry.mimeType !== APP_MIME_TYPE)
      report(
        where('mimeType'),
        `the ${APP_URI_SCHEME} resource ${JSON.stringify(entry.uri)} has mimeType ${JSON.stringify(entry.mimeType)}, and MCP Apps hosts render only ${APP_MIME_TYPE}`,
        `give it mimeType ${APP_MIME_TYPE} (staticmcp build does, for tools/<tool>/ui/ and ui/<name>/ pages)`,
      );
  }
  const toolsPath = listPath(manifest, 'tools');
  listOf(manifest, 'tools').forEach((raw, index) => {
    if (!isObject(raw) || !isObject(raw._meta)) return;
    const nested = isObject(raw._meta.ui) ? raw._meta.ui.resourceUri : undefined;
    const flat = raw._meta[FLAT_RESOURCE_URI_KEY];
    for (const [uri, where] of [
      [nested, ['_meta', 'ui', 'resourceUri']],
      [flat, ['_meta', FLAT_RESOURCE_URI_KEY]],
    ] as const) {
      if (uri === undefined) continue;
      if (typeof uri !== 'string' || !uri.startsWith(APP_URI_SCHEME) || !listed.has(uri))
        report(
          at(...toolsPath, index, ...where),
          `names the UI ${JSON.stringify(typeof uri === 'string' ? uri.slice(0, 200) : uri)}, which is not a ${APP_URI_SCHEME} resource of this tree: hosts that render apps find no page`,
          'list the page among the resources (staticmcp build does for tools/<tool>/ui/index.html and ui/<name>/index.html), or remove the link',
        );
    }
  });
}

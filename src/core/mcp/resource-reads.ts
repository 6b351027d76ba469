// `resources/list`, `resources/templates/list` and `resources/read`: a resource is found by the
// exact URI string the manifest lists; its file is read leniently; state resources run the
// script with `--state`; an unlisted URI may be an instance of a template (template-reads.ts).
import { resourceFilePath, resourceFilePaths } from '../tree/resource-key.js';
import { DEFAULT_TOOLS_FOLDER } from '../tree/manifest.js';
import { readResourceFile } from '../tree/lenient-files.js';
import { INTERNAL_ERROR, INVALID_PARAMS, RESOURCE_NOT_FOUND, RpcError } from './json-rpc.js';
import { listHandler } from './pagination.js';
import { answerableLists } from './answerable-lists.js';
import { shapeResource, shapeTemplate } from './protocol-versions.js';
import { readTemplateInstance } from './template-reads.js';
import type { ServerContext, RequestContext } from './server-context.js';
import { readLive } from './live-read.js';
import { listResourcesInParts } from './resource-list-pages.js';
import { isObject, type JsonObject } from '../tree/json-object.js';
import { documentUrlBase, resolveResourcePage } from '../search/document-url.js';

const listInlineResources = listHandler(
  'resources',
  'resources',
  async (server) => (await answerableLists(server)).resources,
  // A resource's page (its `_meta` "staticmcp/url") is stored relative to the tree: made absolute here.
  (resource, version, server) =>
    shapeResource(
      resolveResourcePage(resource.definition, documentUrlBase(server.tree.extension?.publicUrl, server.requestOrigin)),
      version,
    ),
);

/** `resources/list`: pages of the inline list, or of the list's parts when the tree has them. */
export function listResources(
  server: ServerContext,
  params: Record<string, unknown> | undefined,
  request: RequestContext,
): Promise<Record<string, unknown>> {
  const parts = server.tree.resourceList;
  return parts ? listResourcesInParts(server, parts, params, request) : listInlineResources(server, params, request);
}

export const listResourceTemplates = listHandler(
  'resourceTemplates',
  'templates',
  (server) => server.tree.templates,
  shapeTemplate,
);

/** The state script of a `mcpd://<script>/state` URI, relative to the project root. */
function stateScriptPath(server: ServerContext, scriptInToolsFolder: string): string {
  for (const extension of Object.values(server.tree.extension?.tools ?? {})) {
    if (extension.script === scriptInToolsFolder || extension.script.endsWith(`/${scriptInToolsFolder}`))
      return extension.script;
  }
  const toolsFolder = server.tree.extension?.toolsFolder ?? DEFAULT_TOOLS_FOLDER;
  return toolsFolder ? `${toolsFolder}/${scriptInToolsFolder}` : scriptInToolsFolder;
}

async function readState(
  server: ServerContext,
  uri: string,
  script: string,
  mimeType: string | undefined,
  request: RequestContext,
): Promise<JsonObject> {
  if (!server.live) {
    throw new RpcError(INTERNAL_ERROR, `${uri} is read live from the project; ${server.liveHint}`);
  }
  const scriptPath = stateScriptPath(server, script);
  const text = await readLive(
    server.live,
    request,
    uri,
    { scriptPath, phase: 'state', toolsFolder: server.tree.extension?.toolsFolder },
    `its state script (${scriptPath} --state)`,
  );
  return { contents: [{ uri, mimeType: mimeType ?? 'application/json', text }] };
}

export async function readResource(
  server: ServerContext,
  params: JsonObject | undefined,
  request: RequestContext,
): Promise<JsonObject> {
  const uri = params?.uri;
  if (typeof uri !== 'string') throw new RpcError(INVALID_PARAMS, 'resources/read needs params.uri (a string)');
  const definition = server.tree.resourcesByUri.get(uri)?.definition;
  const mimeType = typeof definition?.mimeType === 'string' ? definition.mimeType : undefined;
  const stateScript = server.tree.extension?.stateResources?.[uri];
  if (typeof stateScript === 'string') return readState(server, uri, stateScript, mimeType, request);
  if (!definition && server.tree.resourceList !== undefined) {
    // Listed in a part, not inline: its file is the one its URI names, and says which URI it holds.
    const listed = await readListedInPart(server, uri, request);
    if (listed) return listed;
  }
  if (!definition) {
    const instance = await readTemplateInstance(server, uri, request);
    if (instance) return instance;
    throw new RpcError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, { uri });
  }
  let broken: string | undefined;
  for (const candidate of resourceFilePaths(uri, server.tree.extension !== undefined)) {
    // Refused unread when its size would pass what the answer may still take.
    const file = await server.reader.readJson(candidate, request.answerRoom, `the resource ${uri}`);
    if (file.kind === 'ok') return { contents: readResourceFile(file.value, uri, mimeType) };
    if (file.kind === 'broken') broken ??= file.reason;
  }
  if (broken) {
    server.logProblem(`resources/read ${uri}: ${broken}`);
    throw new RpcError(INTERNAL_ERROR, `${uri} is listed but its file cannot be read (${broken})`);
  }
  throw new RpcError(
    RESOURCE_NOT_FOUND,
    `Resource not found: ${uri} is listed in mcp.json but the tree has no file for it`,
    { uri },
  );
}

/**
 * A resource of a tree whose list is in parts, by its file alone (mcp.json does not hold its
 * entry): answered only when the file records this very URI, so a URI that merely encodes to
 * another resource's file name is not found. Undefined when there is no such file.
 */
async function readListedInPart(
  server: ServerContext,
  uri: string,
  request: RequestContext,
): Promise<JsonObject | undefined> {
  const candidate = resourceFilePath(uri);
  const file = await server.reader.readJson(candidate, request.answerRoom, `the resource ${uri}`);
  if (file.kind === 'broken') {
    server.logProblem(`resources/read ${uri}: ${file.reason}`);
    throw new RpcError(INTERNAL_ERROR, `${uri} has a file in the tree but it cannot be read (${file.reason})`);
  }
  if (file.kind !== 'ok' || !isObject(file.value) || file.value.uri !== uri) return undefined;
  return { contents: readResourceFile(file.value, uri, undefined) };
}

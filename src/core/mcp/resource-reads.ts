// `resources/list`, `resources/templates/list` and `resources/read`: a resource is found by the
// exact URI string the manifest lists; its file is read leniently; state resources run the
// script with `--state`; an unlisted URI may be an instance of a template (template-reads.ts).
import { resourceFilePaths } from '../tree/resource-key.js';
import { DEFAULT_TOOLS_FOLDER } from '../tree/manifest.js';
import { readResourceFile } from '../tree/lenient-files.js';
import { INTERNAL_ERROR, INVALID_PARAMS, RESOURCE_NOT_FOUND, RpcError } from './json-rpc.js';
import { listHandler } from './pagination.js';
import { answerableLists } from './answerable-lists.js';
import { shapeResource, shapeTemplate } from './protocol-versions.js';
import { readTemplateInstance } from './template-reads.js';
import type { ServerContext, RequestContext } from './server-context.js';
import { readLive } from './live-read.js';
import type { JsonObject } from '../tree/json-object.js';
import { documentUrlBase, resolveResourcePage } from '../search/document-url.js';

export const listResources = listHandler(
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

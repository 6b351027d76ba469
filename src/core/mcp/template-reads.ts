// `resources/read` of a concrete URI that is not listed but matches a resource template: the
// precomputed instance file when the build wrote one for exactly this URI, else the template's
// provider script run live (variables as JSON on stdin and as environment variables, like a
// tool's options), else -32002. A provider that fails is -32603 with what it said: a read has no
// isError field, and the client must not mistake the failure for the resource's content.
import { resourceFilePath } from '../tree/resource-key.js';
import { readResourceFile } from '../tree/lenient-files.js';
import { matchUriTemplate } from '../tree/uri-template.js';
import { RESOURCE_NOT_FOUND, RpcError } from './json-rpc.js';
import type { ServerContext, RequestContext } from './server-context.js';
import { readLiveBytes } from './live-read.js';
import { resourceContentOf } from '../tree/resource-content.js';
import type { LoadedTree } from '../tree-reading/loaded-tree.js';
import { isObject, type JsonObject } from '../tree/json-object.js';

/**
 * The longest URI matched against the templates, in UTF-16 code units. 8192 because RFC 9110
 * (§4.1) asks only that URIs of 8000 octets be supported and the usual front servers stop there
 * (nginx's 8 KiB header buffer, Apache's LimitRequestLine 8190): a template instance longer than
 * that could not be a link on the web. Matching is linear (uri-template-matcher.ts); the cap also
 * keeps the per-read work, and the URI quoted back, small whatever a client sends.
 */
export const MAX_TEMPLATE_URI_LENGTH = 8192;

/** How much of a refused URI an error quotes. */
const QUOTED_URI_LENGTH = 100;

/**
 * The first template (in manifest order) that `uri` is an instance of, with its variables. A URI
 * over MAX_TEMPLATE_URI_LENGTH is refused as not found (-32002; -32602 in 2026-07-28).
 */
export function findTemplateFor(
  tree: LoadedTree,
  uri: string,
): { template: JsonObject & { uriTemplate: string }; variables: Record<string, string> } | undefined {
  if (tree.templates.length === 0) return undefined;
  if (uri.length > MAX_TEMPLATE_URI_LENGTH) {
    throw new RpcError(
      RESOURCE_NOT_FOUND,
      `Resource not found: the URI ${JSON.stringify(uri.slice(0, QUOTED_URI_LENGTH))}… is ${uri.length} characters long; resource templates match URIs of at most ${MAX_TEMPLATE_URI_LENGTH} characters`,
      { uriLength: uri.length },
    );
  }
  for (const template of tree.templates) {
    const variables = matchUriTemplate(template.uriTemplate as string, uri);
    if (variables) return { template: template as JsonObject & { uriTemplate: string }, variables };
  }
  return undefined;
}

/** The contents of a template instance, or undefined when no template matches `uri`. */
export async function readTemplateInstance(
  server: ServerContext,
  uri: string,
  request: RequestContext,
): Promise<JsonObject | undefined> {
  const { tree, reader } = server;
  const found = findTemplateFor(tree, uri);
  if (!found) return undefined;
  const { template, variables } = found;
  const mimeType = typeof template.mimeType === 'string' ? template.mimeType : undefined;

  const file = await reader.readJson(resourceFilePath(uri), request.answerRoom, `the resource ${uri}`);
  // Two URIs can share a file name: the file must say it is exactly this instance.
  if (file.kind === 'ok' && isObject(file.value) && file.value.uri === uri) {
    return { contents: readResourceFile(file.value, uri, mimeType) };
  }
  if (file.kind === 'broken') server.logProblem(`resources/read ${uri}: ${file.reason}`);

  const provider = tree.extension?.templateProviders?.[template.uriTemplate];
  if (typeof provider !== 'string') {
    throw new RpcError(
      RESOURCE_NOT_FOUND,
      `Resource not found: ${uri} matches the template ${template.uriTemplate}, but this instance was not precomputed and the template has no provider`,
      { uri },
    );
  }
  if (!server.live) {
    throw new RpcError(
      RESOURCE_NOT_FOUND,
      `Resource not found: ${uri} was not precomputed; its template's provider reads it live when the project is available (${server.liveHint})`,
      { uri },
    );
  }
  const bytes = await readLiveBytes(
    server.live,
    request,
    uri,
    {
      scriptPath: provider,
      phase: 'live',
      args: variables,
      declaredOptions: Object.keys(variables),
      toolsFolder: tree.extension?.toolsFolder,
    },
    "the template's provider",
  );
  // Text or base64 blob by the rule the build used for the precomputed instances.
  return { contents: [resourceContentOf(uri, mimeType ?? 'text/plain', bytes)] };
}

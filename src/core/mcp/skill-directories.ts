// `resources/directory/read` (the Skills extension's `directoryRead`) over the `skill://`
// namespace: every folder above a listed skill file is a directory resource (`skill://acme`,
// `skill://acme/billing/refunds/examples`, no trailing slash), whose direct children are its files
// (their resource definitions) and its folders (`inode/directory`). All of it follows from the
// manifest's resource list, worked out once per loaded tree.
import { isSkillUri, SKILL_URI_SCHEME } from '../tree/skills.js';
import type { JsonObject } from '../tree/json-object.js';
import { INVALID_PARAMS, RpcError } from './json-rpc.js';
import type { LoadedTree } from '../tree-reading/loaded-tree.js';
import { listHandler } from './pagination.js';
import { shapeResource } from './protocol-versions.js';
import type { RequestContext, ServerContext } from './server-context.js';

export const DIRECTORY_MIME_TYPE = 'inode/directory';

/** A child of a directory: a file's definition, or a folder. */
type Child = { kind: 'file'; definition: JsonObject } | { kind: 'folder'; uri: string; name: string };

/** Directory URI → its children in code-unit order of their URIs. */
const directoriesOf = new WeakMap<LoadedTree, Map<string, Child[]>>();

function workOutDirectories(tree: LoadedTree): Map<string, Child[]> {
  const children = new Map<string, Map<string, Child>>();
  const add = (directory: string, uri: string, child: Child): void => {
    let known = children.get(directory);
    if (!known) {
      known = new Map();
      children.set(directory, known);
    }
    if (!known.has(uri)) known.set(uri, child);
  };
  for (const resource of tree.resources) {
    const { uri } = resource.definition;
    if (!isSkillUri(uri)) continue;
    const segments = uri.slice(SKILL_URI_SCHEME.length).split('/');
    // Each folder above the file, from the authority down: skill://a, skill://a/b, …
    for (let depth = 1; depth < segments.length; depth++) {
      const directory = SKILL_URI_SCHEME + segments.slice(0, depth).join('/');
      if (depth + 1 === segments.length) add(directory, uri, { kind: 'file', definition: resource.definition });
      else {
        const folder = `${directory}/${segments[depth]}`;
        add(directory, folder, { kind: 'folder', uri: folder, name: decodeSegment(segments[depth]!) });
      }
    }
  }
  const sorted = new Map<string, Child[]>();
  for (const [directory, known] of children)
    sorted.set(
      directory,
      [...known.entries()]
        .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0))
        .map(([, child]) => child),
    );
  return sorted;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function directories(tree: LoadedTree): Map<string, Child[]> {
  let known = directoriesOf.get(tree);
  if (!known) {
    known = workOutDirectories(tree);
    directoriesOf.set(tree, known);
  }
  return known;
}

export async function readResourceDirectory(
  server: ServerContext,
  params: JsonObject | undefined,
  request: RequestContext,
): Promise<JsonObject> {
  const uri = params?.uri;
  if (typeof uri !== 'string')
    throw new RpcError(INVALID_PARAMS, 'resources/directory/read needs params.uri (a directory resource URI)');
  const children = directories(server.tree).get(uri);
  if (!children) {
    const detail = server.tree.resourcesByUri.has(uri)
      ? 'is not a directory resource'
      : 'is no directory this server serves';
    throw new RpcError(INVALID_PARAMS, `${uri} ${detail}`, { uri });
  }
  // The cursor names the directory, so a cursor from another directory is refused.
  const page = await listHandler(
    'resources',
    `directory ${uri}`,
    () => children,
    (child: Child, version) =>
      child.kind === 'file'
        ? shapeResource(child.definition, version)
        : { uri: child.uri, name: child.name, mimeType: DIRECTORY_MIME_TYPE },
  )(server, params, request);
  return { ...page, resultType: 'complete' };
}

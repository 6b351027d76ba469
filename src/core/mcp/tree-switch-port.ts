// The port through which a host switches a rebuilt tree in under running sessions (`serve
// <folder>`, `dev`), and the one rule the core applies with it: a request first lets the host look
// for a rebuild (the host decides how often), is answered from the tree it started with, and is
// answered once more, from the new tree, when it failed because the tree was switched under it (a
// search index part renamed by the rebuild, a file gone between the writer's two renames).
import type { JsonRpcRequest } from './json-rpc.js';
import type { LoadedTree } from '../tree-reading/loaded-tree.js';
import { RequestCancelled, type ServerContext } from './server-context.js';
import { isObject } from '../tree/json-object.js';

export type { TreeSwitchPort } from './server-context.js';

/**
 * Runs `answer` on the current tree. With a switch port: after the host's look for a rebuild, and
 * once more when the first answer failed (a JSON-RPC error, or an `isError` result the tree itself
 * gave) and the tree was switched meanwhile. A tool call's failed live run is never run again:
 * a script's side effects must not happen twice because a rebuild finished at the same moment.
 */
export async function answerOnCurrentTree<T>(
  server: ServerContext,
  request: JsonRpcRequest,
  answer: () => Promise<T>,
): Promise<T> {
  const port = server.treeSwitch;
  if (!port) return answer();
  const due = port.checkIfDue();
  if (due) await due;
  const tree = server.tree;
  try {
    const result = await answer();
    if (!isTreeFailure(server, tree, request, result) || !(await port.switchedSince(tree))) return result;
  } catch (error) {
    if (error instanceof RequestCancelled || !(await port.switchedSince(tree))) throw error;
  }
  return answer();
}

/** An `isError` result that came from the tree (a file, the search index), not from a live run. */
function isTreeFailure(server: ServerContext, tree: LoadedTree, request: JsonRpcRequest, result: unknown): boolean {
  if (!isObject(result) || result.isError !== true) return false;
  const name = request.params?.name;
  const tool = typeof name === 'string' ? tree.toolsByName.get(name) : undefined;
  return server.live === undefined || tool?.searchTool !== undefined;
}

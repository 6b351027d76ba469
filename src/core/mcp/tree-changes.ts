// What changed between two loads of a tree, as a client sees it: which lists (tools, resources
// with their templates, prompts) differ, so `staticmcp dev` sends a list_changed notification
// only for those, and a fingerprint of one resource's content for `resources/updated`.
import { resourceFilePath } from '../tree/resource-key.js';
import type { LoadedTree } from '../tree-reading/loaded-tree.js';
import { sha256Hex } from '../tree/sha256.js';

export interface ListChanges {
  tools: boolean;
  resources: boolean;
  prompts: boolean;
}

function sameList(previous: readonly unknown[], next: readonly unknown[]): boolean {
  return previous.length === next.length && JSON.stringify(previous) === JSON.stringify(next);
}

export function compareTreeLists(previous: LoadedTree, next: LoadedTree): ListChanges {
  return {
    tools: !sameList(
      previous.tools.map((tool) => tool.definition),
      next.tools.map((tool) => tool.definition),
    ),
    // Templates are listed by resources/templates/list; MCP has no notification of their own.
    resources:
      !sameList(
        previous.resources.map((resource) => resource.definition),
        next.resources.map((resource) => resource.definition),
      ) ||
      !sameList(previous.templates, next.templates) ||
      // The list's parts are named by their content: other names, another list.
      JSON.stringify(previous.resourceList ?? null) !== JSON.stringify(next.resourceList ?? null),
    prompts: !sameList(
      previous.prompts.map((prompt) => prompt.definition),
      next.prompts.map((prompt) => prompt.definition),
    ),
  };
}

/**
 * A hash of what `resources/read` of `uri` would answer from this tree (its definition and its
 * file, read fresh, not from the cache); the same hash for a missing file and a missing listing.
 */
export async function fingerprintResource(tree: LoadedTree, uri: string): Promise<string> {
  let content: string;
  try {
    const outcome = await tree.source.read(resourceFilePath(uri));
    content = outcome.status === 'ok' ? outcome.text : `<${outcome.status}>`;
  } catch (error) {
    content = `<unreadable: ${(error as Error).message}>`;
  }
  return sha256Hex(`${JSON.stringify(tree.resourcesByUri.get(uri)?.definition ?? null)}\0${content}`);
}

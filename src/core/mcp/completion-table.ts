// The tree's completion table (completions.json), read for completion/complete and for the lists a
// tree without a project narrows to what it holds. A module of its own: the narrowing runs at every
// serve start-up and must not load the completion machinery (providers, script output) with it.
import type { CompletionTable } from '../tree/manifest.js';
import { isObject } from '../tree/json-object.js';
import type { LoadedTree } from '../tree-reading/loaded-tree.js';
import type { ServerContext } from './server-context.js';

/** The tree's completion table; an absent or unreadable file is an empty one (reported once per read). */
export async function readCompletionTable(server: ServerContext, tree: LoadedTree): Promise<CompletionTable> {
  const file = tree.extension?.completions;
  if (typeof file !== 'string') return {};
  const read = await server.reader.readJson(file);
  if (read.kind === 'ok' && isObject(read.value)) return read.value as CompletionTable;
  if (read.kind === 'broken') server.logProblem(`completion/complete: ${read.reason}`);
  return {};
}

// What the lists show when a tool cannot run live (no project: `serve` without `--live`, always
// on the edge worker; or a tool whose tree says live calls are off): only what the tree can
// answer. A tool of ours with no precomputed call is left out; a partly precomputed tool's
// parameters are narrowed to the values the tree holds (an `enum` from completions.json for a
// value list, the default for a parameter that was not enumerated); a state resource (read by
// running its script) is left out. Calls are not affected: a hidden tool or another value still
// gets the `isError` answer that says how to get live calls. Trees of other generators do not say
// what they hold, so their lists are shown as their manifest has them.
import type { CompletionTable, ToolExtension } from '../tree/manifest.js';
import { readCompletionTable } from './completion-table.js';
import type { LoadedTree, TreeResource, TreeTool } from '../tree-reading/loaded-tree.js';
import type { ServerContext } from './server-context.js';
import { isObject, type JsonObject } from '../tree/json-object.js';

export interface AnswerableLists {
  tools: TreeTool[];
  resources: TreeResource[];
  /** Tools left out because nothing of theirs is precomputed, by name. */
  hiddenTools: string[];
}

/** The lists of a tree without live runs, worked out once per tree (a reload under dev makes a new one). */
const withoutLive = new WeakMap<LoadedTree, Promise<AnswerableLists>>();

/** The tools and resources to list: all of them when live runs are possible, else what the tree answers. */
export function answerableLists(server: ServerContext): Promise<AnswerableLists> | AnswerableLists {
  const { tree } = server;
  if (server.live) {
    // With a project, only tools whose tree turned live calls off can be narrowed.
    if (tree.tools.every((tool) => tool.extension?.live !== false))
      return { tools: tree.tools, resources: tree.resources, hiddenTools: [] };
    return workOut(server, tree, (tool) => tool.extension?.live !== false);
  }
  let lists = withoutLive.get(tree);
  if (!lists) {
    lists = workOut(server, tree, () => false);
    withoutLive.set(tree, lists);
  }
  return lists;
}

async function workOut(
  server: ServerContext,
  tree: LoadedTree,
  runsLive: (tool: TreeTool) => boolean,
): Promise<AnswerableLists> {
  const table = tree.tools.some((tool) => tool.extension && !runsLive(tool))
    ? await readCompletionTable(server, tree)
    : {};
  const tools: TreeTool[] = [];
  const hiddenTools: string[] = [];
  for (const tool of tree.tools) {
    const extension = tool.extension;
    if (!extension || runsLive(tool)) tools.push(tool);
    else if (extension.precomputed > 0) tools.push(narrowTool(tool, extension, table));
    else hiddenTools.push(tool.definition.name);
  }
  const stateResources = tree.extension?.stateResources ?? {};
  const resources = server.live
    ? tree.resources
    : tree.resources.filter((resource) => typeof stateResources[resource.definition.uri] !== 'string');
  return { tools, resources, hiddenTools };
}

/** Whether a parameter's schema already admits only finitely many values. */
function admitsFewValues(schema: JsonObject): boolean {
  return (
    Array.isArray(schema.enum) ||
    'const' in schema ||
    schema.type === 'boolean' ||
    (schema.type === 'integer' && typeof schema.minimum === 'number' && typeof schema.maximum === 'number')
  );
}

/** A completion value (always a string) back in its parameter's type. */
function typedValue(text: string, schema: JsonObject): unknown {
  if (schema.type === 'string') return text;
  if (schema.type === 'integer' || schema.type === 'number') return Number(text);
  if (schema.type === 'boolean') return text === 'true';
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The tool with each parameter's schema narrowed to the values its precomputed calls used. */
function narrowTool(tool: TreeTool, extension: ToolExtension, table: CompletionTable): TreeTool {
  const schema = tool.definition.inputSchema;
  const properties = isObject(schema.properties) ? schema.properties : {};
  const toolValues = table['ref/tool']?.[tool.definition.name];
  const held = isObject(toolValues) ? toolValues : {};
  let changed = false;
  const narrowed: JsonObject = {};
  for (const [name, property] of Object.entries(properties)) {
    narrowed[name] = property;
    if (!isObject(property) || admitsFewValues(property)) continue;
    let values: unknown[] | undefined;
    if (extension.enumerated.includes(name)) {
      const texts = held[name];
      if (Array.isArray(texts))
        values = texts.filter((text) => typeof text === 'string').map((text) => typedValue(text, property));
    } else if ('default' in property) {
      values = [property.default];
    }
    if (values === undefined || values.length === 0) continue;
    narrowed[name] = { ...property, enum: values };
    changed = true;
  }
  if (!changed) return tool;
  return { ...tool, definition: { ...tool.definition, inputSchema: { ...schema, properties: narrowed } } };
}

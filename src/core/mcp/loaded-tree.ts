// The manifest of a tree, read once at start and indexed: tools by name, resources by their exact
// URI string (never normalised by a URL parser), prompts by name, our extension when the tree is ours.
import { EXTENSION_KEY, MANIFEST_FILE } from '../tree/manifest.js';
import type { TreeSource } from './tree-source.js';
import { isObject, type JsonObject } from '../tree/json-object.js';
import { readTreeExtension, type TreeExtension, type TreeToolExtension } from './tree-extension.js';

export interface TreeTool {
  definition: JsonObject & { name: string; inputSchema: JsonObject };
  /** Property names in declaration order. */
  declaredParameters: string[];
  extension?: TreeToolExtension;
}

export interface TreeResource {
  definition: JsonObject & { uri: string; name: string };
}

export interface TreePrompt {
  definition: JsonObject & { name: string };
}

export interface LoadedTree {
  source: TreeSource;
  serverInfo: JsonObject & { name: string; version: string };
  instructions?: string;
  tools: TreeTool[];
  toolsByName: Map<string, TreeTool>;
  resources: TreeResource[];
  resourcesByUri: Map<string, TreeResource>;
  templates: JsonObject[];
  prompts: TreePrompt[];
  promptsByName: Map<string, TreePrompt>;
  extension?: TreeExtension;
  /** Identifies this build of the tree (cursors are bound to it). */
  manifestHash: string;
}

/** Reads and indexes `mcp.json`; throws an Error with a readable message when it is unusable. */
export async function loadTree(source: TreeSource): Promise<LoadedTree> {
  const outcome = await source.read(MANIFEST_FILE);
  if (outcome.status !== 'ok')
    throw new Error(
      `${source.displayName} has no ${MANIFEST_FILE}: is it a StaticMCP tree (the output of staticmcp build)?`,
    );
  let manifest: unknown;
  try {
    manifest = JSON.parse(outcome.text);
  } catch (error) {
    throw new Error(`${MANIFEST_FILE} in ${source.displayName} is not valid JSON (${(error as Error).message})`);
  }
  if (!isObject(manifest)) throw new Error(`${MANIFEST_FILE} in ${source.displayName} is not a JSON object`);
  const capabilities = isObject(manifest.capabilities) ? manifest.capabilities : {};
  // Some generators put the lists at the top level.
  const listOf = (key: string): unknown[] => {
    const list = Array.isArray(capabilities[key]) ? capabilities[key] : manifest[key as keyof typeof manifest];
    return Array.isArray(list) ? list : [];
  };
  const tools: TreeTool[] = [];
  const toolsByName = new Map<string, TreeTool>();
  for (const raw of listOf('tools')) {
    if (!isObject(raw) || typeof raw.name !== 'string' || toolsByName.has(raw.name)) continue;
    const inputSchema = isObject(raw.inputSchema) ? raw.inputSchema : { type: 'object' };
    const definition = {
      ...raw,
      name: raw.name,
      inputSchema: isObject(raw.inputSchema) ? raw.inputSchema : { type: 'object', properties: {} },
    };
    const properties = isObject(inputSchema.properties) ? inputSchema.properties : {};
    const tool: TreeTool = { definition, declaredParameters: Object.keys(properties) };
    tools.push(tool);
    toolsByName.set(raw.name, tool);
  }
  const extension = readTreeExtension(
    manifest[EXTENSION_KEY],
    (name) => toolsByName.get(name)?.declaredParameters ?? [],
  );
  for (const tool of tools) tool.extension = extension?.tools[tool.definition.name];

  const resources: TreeResource[] = [];
  const resourcesByUri = new Map<string, TreeResource>();
  for (const raw of listOf('resources')) {
    if (!isObject(raw) || typeof raw.uri !== 'string' || resourcesByUri.has(raw.uri)) continue;
    const resource = { definition: { ...raw, uri: raw.uri, name: typeof raw.name === 'string' ? raw.name : raw.uri } };
    resources.push(resource);
    resourcesByUri.set(raw.uri, resource);
  }
  const templates = listOf('resourceTemplates').filter(
    (raw): raw is JsonObject => isObject(raw) && typeof raw.uriTemplate === 'string',
  );

  const prompts: TreePrompt[] = [];
  const promptsByName = new Map<string, TreePrompt>();
  for (const raw of listOf('prompts')) {
    if (!isObject(raw) || typeof raw.name !== 'string' || promptsByName.has(raw.name)) continue;
    const prompt = { definition: { ...raw, name: raw.name } };
    prompts.push(prompt);
    promptsByName.set(raw.name, prompt);
  }

  const info = isObject(manifest.serverInfo) ? manifest.serverInfo : {};
  const serverInfo = {
    ...info,
    name: typeof info.name === 'string' ? info.name : typeof manifest.name === 'string' ? manifest.name : 'staticmcp',
    version:
      typeof info.version === 'string'
        ? info.version
        : typeof manifest.version === 'string'
          ? manifest.version
          : '0.0.0',
  };
  const contentHash = extension?.contentHash;
  return {
    source,
    serverInfo,
    instructions: typeof manifest.instructions === 'string' ? manifest.instructions : undefined,
    tools,
    toolsByName,
    resources,
    resourcesByUri,
    templates,
    prompts,
    promptsByName,
    extension,
    manifestHash: contentHash ?? (await hashText(outcome.text)),
  };
}

/** Only for trees without our content hash (so the hashing module loads only for them, not at every start). */
async function hashText(text: string): Promise<string> {
  const { sha256Hex } = await import('./sha256.js');
  return `sha256:${await sha256Hex(text)}`;
}

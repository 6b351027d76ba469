// The capabilities this server declares, for both eras: `initialize` (legacy) and `server/discover`
// (2026-07-28) build them here, so they agree by construction. Its own module so a legacy client's
// start never loads the 2026-07-28 result shaping.
import { knowsCompletionsCapability, type ProtocolVersion } from './protocol-versions.js';
import type { ServerContext } from './server-context.js';
import type { JsonObject } from '../tree/json-object.js';
import { APPS_EXTENSION_ID, appsExtensionSettings, isAppResource, namesAppResource } from '../tree/mcp-apps.js';
import type { LoadedTree } from '../tree-reading/loaded-tree.js';
import { SKILLS_EXTENSION_ID, skillsExtensionSettings } from '../tree/skills.js';

/** Per loaded tree (a reload is a new object): whether it has an MCP App, asked on every modern request. */
const appTrees = new WeakMap<LoadedTree, boolean>();

function hasApps(tree: LoadedTree): boolean {
  let known = appTrees.get(tree);
  if (known === undefined) {
    known =
      tree.resources.some((resource) => isAppResource(resource.definition)) ||
      tree.tools.some((tool) => namesAppResource(tool.definition));
    appTrees.set(tree, known);
  }
  return known;
}

/** The capabilities this server declares (initialize and server/discover agree by construction). */
export function serverCapabilities(server: ServerContext, version: ProtocolVersion, modern: boolean): JsonObject {
  const { tree, dev } = server;
  const capabilities: JsonObject = { logging: {} };
  // Under dev every kind is offered, even when empty: the next edit may add the first one. A
  // served folder switches rebuilt trees in too; its legacy sessions hear of it the same way (a
  // 2026-07-28 client has no session to tell: it keeps the cache hints of a served tree).
  if (dev || (server.treeSwitch !== undefined && !modern)) {
    capabilities.tools = { listChanged: true };
    capabilities.resources = { subscribe: true, listChanged: true };
    capabilities.prompts = { listChanged: true };
  } else {
    if (tree.tools.length > 0) capabilities.tools = {};
    // Legacy: subscriptions are accepted for every known resource (a served tree never changes, so
    // none is ever updated). Modern: subscriptions/listen would honour nothing, so none is claimed.
    if (tree.resources.length > 0 || tree.templates.length > 0)
      capabilities.resources = modern ? {} : { subscribe: true };
    if (tree.prompts.length > 0) capabilities.prompts = {};
  }
  const completable =
    dev ||
    tree.prompts.length > 0 ||
    tree.templates.length > 0 ||
    tree.extension?.completions !== undefined ||
    tree.extension?.completionProviders !== undefined;
  if (completable && knowsCompletionsCapability(version)) capabilities.completions = {};
  const hasSkills = (tree.extension?.skills?.count ?? 0) > 0;
  const extensions = declaredExtensions({ apps: hasApps(tree), skills: hasSkills });
  if (extensions !== undefined) capabilities.extensions = extensions;
  // Skill files are resources, so a server declaring the Skills extension declares `resources`
  // too (the specification requires it).
  if (hasSkills) capabilities.resources ??= modern ? {} : { subscribe: true };
  return capabilities;
}

/**
 * The `extensions` a server with these kinds declares (SEP-1724), in every protocol version: MCP
 * Apps (SEP-1865; the extension's own examples pair it with 2024-11-05, and a client that does not
 * know it ignores it) and Skills (SEP-2640) when the tree has any. The server card names the same
 * object, so the two agree by construction.
 */
export function declaredExtensions(kinds: { apps: boolean; skills: boolean }): JsonObject | undefined {
  const extensions: JsonObject = {};
  if (kinds.apps) extensions[APPS_EXTENSION_ID] = appsExtensionSettings();
  if (kinds.skills) extensions[SKILLS_EXTENSION_ID] = skillsExtensionSettings();
  return Object.keys(extensions).length > 0 ? extensions : undefined;
}

/** Whether `capabilities` declare what a method of the table needs (`skills` is an extension). */
export function declaresCapability(capabilities: JsonObject, capability: string): boolean {
  if (capability !== 'skills') return capability in capabilities;
  const extensions = capabilities.extensions as JsonObject | undefined;
  return extensions !== undefined && SKILLS_EXTENSION_ID in extensions;
}

// Our `staticmcp` extension as read from a tree we may not have written (an older staticmcp, a
// hand-edited mcp.json, another generator): every field is checked and a field of the wrong type
// is left out or read as "nothing known", so a partial or foreign extension still loads and only
// the facts it really states are used.
import type { CompletionKind, CompletionProvider } from '../tree/completion-provider.js';
import { isObject, type JsonObject } from '../tree/json-object.js';
import type { ManifestExtension, ToolExtension } from '../tree/manifest.js';
import { isHttpUrl } from '../search/document-url.js';

/**
 * What a reader can rely on: the manifest-wide fields only when they were there and well typed,
 * and for each tool a whole ToolExtension (readToolExtension fills what a tree left out).
 */
export type TreeExtension = Partial<Omit<ManifestExtension, 'tools' | 'completionProviders'>> & {
  tools: Record<string, TreeToolExtension>;
  completionProviders?: TreeCompletionProviders;
};

/** A provider as a tree records it; without `timeoutMs` it runs with the live runner's timeout. */
export type TreeCompletionProvider = Omit<CompletionProvider, 'timeoutMs'> & { timeoutMs?: number };
export type TreeCompletionProviders = Partial<Record<CompletionKind, Record<string, TreeCompletionProvider>>>;

/**
 * A tool's facts as read; `recordsEnumerated` when the tree really listed the enumerated
 * parameters (an absent list reads as [] but says nothing about what was precomputed).
 */
export type TreeToolExtension = ToolExtension & { recordsEnumerated?: true };

/**
 * The extension of a manifest, or undefined when it has none (or not an object). `declaredParametersOf`
 * gives a tool's inputSchema property names, in order: the call-file order of a tool whose
 * extension does not record `parameterOrder` (the order the builder writes).
 */
export function readTreeExtension(
  raw: unknown,
  declaredParametersOf: (toolName: string) => string[],
): TreeExtension | undefined {
  if (!isObject(raw)) return undefined;
  const tools: Record<string, TreeToolExtension> = {};
  for (const [name, entry] of Object.entries(isObject(raw.tools) ? raw.tools : {})) {
    if (isObject(entry)) tools[name] = readToolExtension(entry, declaredParametersOf(name));
  }
  const completionProviders = readCompletionProviders(raw.completionProviders);
  const allowedOrigins = isObject(raw.http) ? stringsOf(raw.http.allowedOrigins) : undefined;
  const liveOrigin = readLiveOrigin(raw.liveOrigin);
  const ttlSeconds = isObject(raw.cache) ? raw.cache.ttlSeconds : undefined;
  return {
    tools,
    ...(typeof raw.profileVersion === 'number' ? { profileVersion: raw.profileVersion } : {}),
    ...(typeof raw.generator === 'string' ? { generator: raw.generator } : {}),
    ...(typeof raw.contentHash === 'string' ? { contentHash: raw.contentHash } : {}),
    ...(isObject(raw.stateResources) ? { stateResources: stringValuesOf(raw.stateResources) } : {}),
    ...(isObject(raw.templateProviders) ? { templateProviders: stringValuesOf(raw.templateProviders) } : {}),
    ...(typeof raw.completions === 'string' ? { completions: raw.completions } : {}),
    ...(isObject(raw.skills) && typeof raw.skills.count === 'number' && typeof raw.skills.list === 'string'
      ? { skills: { count: raw.skills.count, list: raw.skills.list } }
      : {}),
    ...(completionProviders ? { completionProviders } : {}),
    ...(typeof raw.toolsFolder === 'string' ? { toolsFolder: raw.toolsFolder } : {}),
    ...(typeof raw.generatedAt === 'string' ? { generatedAt: raw.generatedAt } : {}),
    ...(typeof raw.publicUrl === 'string' && isHttpUrl(raw.publicUrl) ? { publicUrl: raw.publicUrl } : {}),
    ...(allowedOrigins ? { http: { allowedOrigins } } : {}),
    ...(liveOrigin ? { liveOrigin } : {}),
    // cacheTtlSeconds still checks the range; a non-number is the default lifetime, as before.
    ...(typeof ttlSeconds === 'number' ? { cache: { ttlSeconds } } : {}),
  };
}

/** A tree's live origin when it is a usable one: an http(s) URL and a positive timeout (else none). */
function readLiveOrigin(raw: unknown): { url: string; timeoutMs: number } | undefined {
  if (!isObject(raw) || typeof raw.url !== 'string' || !/^https?:\/\/[^/?#\s]+\/?$/i.test(raw.url)) return undefined;
  const timeoutMs = raw.timeoutMs;
  return {
    url: raw.url,
    timeoutMs: typeof timeoutMs === 'number' && Number.isSafeInteger(timeoutMs) && timeoutMs > 0 ? timeoutMs : 30_000,
  };
}

/**
 * One tool's facts. What a tree leaves out means "not known": no live runs (a live run needs the
 * script), nothing enumerated or precomputed, no timeout of its own, plain text output.
 */
function readToolExtension(raw: JsonObject, declaredParameters: string[]): TreeToolExtension {
  const script = typeof raw.script === 'string' ? raw.script : '';
  const requiredClientCapabilities = isObject(raw.requiredClientCapabilities)
    ? objectValuesOf(raw.requiredClientCapabilities)
    : undefined;
  return {
    parameterOrder: stringsOf(raw.parameterOrder) ?? declaredParameters,
    enumerated: stringsOf(raw.enumerated) ?? [],
    ...(Array.isArray(raw.enumerated) ? { recordsEnumerated: true as const } : {}),
    live: raw.live === true && script !== '',
    ...(typeof raw.liveReason === 'string' ? { liveReason: raw.liveReason } : {}),
    timeoutMs: typeof raw.timeoutMs === 'number' ? raw.timeoutMs : 0,
    script,
    precomputed: typeof raw.precomputed === 'number' ? raw.precomputed : 0,
    ...(raw.outputFormat === 'mcp' ? { outputFormat: 'mcp' as const } : {}),
    ...(requiredClientCapabilities ? { requiredClientCapabilities } : {}),
  };
}

const COMPLETION_KINDS: readonly CompletionKind[] = ['ref/prompt', 'ref/resource', 'ref/tool'];

/** Providers with a script; a provider without a timeout gets the live runner's. */
function readCompletionProviders(raw: unknown): TreeCompletionProviders | undefined {
  if (!isObject(raw)) return undefined;
  const providers: TreeCompletionProviders = {};
  for (const kind of COMPLETION_KINDS) {
    const byName = raw[kind];
    if (!isObject(byName)) continue;
    const read: Record<string, TreeCompletionProvider> = {};
    for (const [key, provider] of Object.entries(byName)) {
      if (!isObject(provider) || typeof provider.script !== 'string') continue;
      read[key] = {
        name: typeof provider.name === 'string' ? provider.name : '',
        script: provider.script,
        ...(typeof provider.timeoutMs === 'number' ? { timeoutMs: provider.timeoutMs } : {}),
      };
    }
    providers[kind] = read;
  }
  return providers;
}

/** The strings of an array (other items dropped), or undefined when it is no array. */
function stringsOf(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : undefined;
}

function stringValuesOf(object: JsonObject): Record<string, string> {
  return Object.fromEntries(
    Object.entries(object).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

function objectValuesOf(object: JsonObject): Record<string, JsonObject> {
  return Object.fromEntries(
    Object.entries(object).filter((entry): entry is [string, JsonObject] => isObject(entry[1])),
  );
}

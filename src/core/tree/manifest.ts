// The shape of `mcp.json` in our StaticMCP profile, and the names of our extension inside it.
// Other generators' manifests are read through the same types, with every extra field optional.
import type { CompletionProviders } from './completion-provider.js';
import type { JsonObject } from './json-object.js';
import type { SkillsExtension } from './skills.js';

/** Bumped when the layout of trees we write changes in a way readers must know about. */
export const PROFILE_VERSION = 1;
/** The single top-level key of `mcp.json` that holds everything specific to staticmcp. */
export const EXTENSION_KEY = 'staticmcp';
/** The `_meta` key of a call file that records the exact arguments the file answers. */
export const ARGUMENTS_META_KEY = 'staticmcp/arguments';
export const MANIFEST_FILE = 'mcp.json';
/** The edge worker a host runs beside the tree (Cloudflare Pages advanced mode); not hashed as content. */
export const WORKER_FILE = '_worker.js';
/** Cloudflare Pages' routing file: which paths run the worker. */
export const ROUTES_FILE = '_routes.json';
export const LATEST_PROTOCOL_VERSION = '2025-11-25';

export interface ToolDefinition {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonObject & { type: 'object'; properties?: Record<string, JsonObject>; required?: string[] };
  outputSchema?: JsonObject;
  annotations?: JsonObject;
  icons?: JsonObject[];
  _meta?: JsonObject;
}

export interface ResourceDefinition {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: JsonObject;
  icons?: JsonObject[];
  _meta?: JsonObject;
}

export interface ResourceTemplateDefinition {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: JsonObject;
}

export interface PromptDefinition {
  name: string;
  title?: string;
  description?: string;
  arguments?: { name: string; description?: string; required?: boolean }[];
}

/** Per tool facts the bridge needs beyond the MCP definition. */
export interface ToolExtension {
  /** Parameters in the order their values appear as key segments. */
  parameterOrder: string[];
  /** Parameters whose whole domain was precomputed. */
  enumerated: string[];
  /** Whether a call that misses the tree may run the script live. */
  live: boolean;
  /** Why no call, or not every call, was precomputed; absent when all were. */
  liveReason?: string;
  timeoutMs: number;
  /** Script path relative to the project root (e.g. `tools/math/multiply`), `/`-separated, for live runs. */
  script: string;
  /** Number of call files written for this tool. */
  precomputed: number;
  /** `mcp` when the script prints a CallToolResult (rich content); absent for plain text output. */
  outputFormat?: 'mcp';
  /**
   * Client capabilities a call needs (`{"sampling": {}}`): every host refuses a request that did
   * not declare them with -32021 before reading or running anything. Absent when none.
   */
  requiredClientCapabilities?: Record<string, JsonObject>;
}

export interface ManifestExtension {
  profileVersion: number;
  generator: string;
  /** sha256 over every file of the tree except mcp.json, in path order. */
  contentHash: string;
  tools: Record<string, ToolExtension>;
  /** State resources (`mcpd://<script>/state`) → script path, read live with `--state`. */
  stateResources?: Record<string, string>;
  /** uriTemplate → provider script (relative to the project root) that reads an instance live. */
  templateProviders?: Record<string, string>;
  /** Tree-relative path of the completion table (`completions.json`), when there is one. */
  completions?: string;
  /** The skills (core/tree/skills.ts): how many, and the file of their entries; written only when there are some. */
  skills?: SkillsExtension;
  /** Script-backed completion providers, run live by a bridge with the project (completion-provider.ts). */
  completionProviders?: CompletionProviders;
  /**
   * The tools folder relative to the project root, `/`-separated (`''` = the project root itself),
   * for MCPD_CONFIG_COMMANDS_ROOT_DIRECTORY on live runs; written only when it is not `tools`.
   */
  toolsFolder?: string;
  generatedAt?: string;
  /**
   * staticmcp.json's publicUrl without its trailing slashes, written only when set: hosts make the
   * documents' relative pages absolute from it (core/search/document-url.ts).
   */
  publicUrl?: string;
  /** What the edge worker (`_worker.js`) needs from `staticmcp.json`; written only when the project sets it. */
  http?: HttpExtension;
  /** Where the edge worker forwards what the tree cannot answer (`liveOrigin` in staticmcp.json); written only when set. */
  liveOrigin?: LiveOriginExtension;
  /** The owner's cache lifetime from `staticmcp.json` (`cache`); written only when the project sets it. */
  cache?: CacheExtension;
  /**
   * Packed tools (issue #24, core/packs/pack-table.ts): tool → its index files in key order, each
   * `{first: <hex key>, index: "packs/<tool>/<sha16>.idx"}`; written only when the build packed.
   */
  packs?: Record<string, { first: string; index: string }[]>;
  /**
   * The resource list past the entries inline in `capabilities.resources` (core/tree/resource-list.ts):
   * its total and its part files; written only when the list has more than the inline entries.
   */
  resourceList?: { total: number; parts: { path: string; count: number }[] };
  /**
   * The search index (issue #25, core/search/search-index-format.ts), whose presence declares the
   * search and fetch tools to our readers; written only when the project turns search on.
   */
  search?: {
    format: number;
    documentCount: number;
    tokenCount: number;
    blockSize: number;
    /** The rows, inline; or `table`, the packs/search.index/<hash>.table.json file holding them. */
    terms?: { first: string; index: string }[];
    titles?: { first: string; index: string }[];
    documents?: { first: string; index: string }[];
    /**
     * Format 6: the term and title packs by their first keys, a line each: `<key hex> <content name>
     * <bytes>` (a list of [key hex, content name, bytes] in earlier trees).
     */
    termPacks?: string | readonly (readonly [string, string, number])[];
    titlePacks?: string | readonly (readonly [string, string, number])[];
    table?: string;
    /** Beside `table`: the packs/search.index/<hash>.title-packs file of the title pack rows. */
    titlePackFile?: string;
  };
}

/**
 * Whether a manifest's `staticmcp` value marks a tree as ours (held to our profile: encoded
 * resource names, recorded arguments, the content hash). One that holds only `search` is not: it
 * is what `staticmcp index` adds to another generator's tree, whose files keep their own shapes.
 */
export function isOurExtension(raw: unknown): boolean {
  return (
    typeof raw === 'object' && raw !== null && !Array.isArray(raw) && Object.keys(raw).some((key) => key !== 'search')
  );
}

export interface CacheExtension {
  /** How long a precomputed answer stays fresh: `ttlMs` of modern results, `max-age` in `_headers`. */
  ttlSeconds: number;
}

/** A tree without `cache.ttlSeconds`: five minutes, what static hosts are told for call files too. */
export const DEFAULT_CACHE_TTL_SECONDS = 300;

/** The TTL a tree asks for (a broken or foreign value falls back to the default: bad input never crashes). */
export function cacheTtlSeconds(extension: { cache?: unknown } | undefined): number {
  const cache = extension?.cache as { ttlSeconds?: unknown } | undefined;
  const ttl = cache?.ttlSeconds;
  return typeof ttl === 'number' && Number.isInteger(ttl) && ttl >= 0 && ttl <= MAX_CACHE_TTL_SECONDS
    ? ttl
    : DEFAULT_CACHE_TTL_SECONDS;
}

/** One year, the longest max-age HTTP caches are expected to honour. */
export const MAX_CACHE_TTL_SECONDS = 31_536_000;

export interface HttpExtension {
  /** Origins, besides the site's own, whose browsers may call `/mcp` (`"*"` = any). */
  allowedOrigins?: string[];
}

export interface LiveOriginExtension {
  /** The origin's address, `https://host[:port]` (http only on a loopback host). */
  url: string;
  /** How long the edge waits for one forwarded run before answering `isError`, progress or not. */
  timeoutMs: number;
}

export interface Manifest {
  protocolVersion: string;
  serverInfo: { name: string; version: string; title?: string; description?: string };
  instructions?: string;
  capabilities: {
    tools: ToolDefinition[];
    resources: ResourceDefinition[];
    resourceTemplates?: ResourceTemplateDefinition[];
    prompts?: PromptDefinition[];
  };
  [EXTENSION_KEY]?: ManifestExtension;
}

/** Where a tree keeps one prompt's renderable template: `prompts/<name>.json`. */
export const promptFilePath = (name: string): string => `prompts/${name}.json`;

/** `completions.json`: per reference kind, per referenced name (or uriTemplate), per argument, the values. */
export type CompletionTable = Partial<
  Record<'ref/prompt' | 'ref/resource' | 'ref/tool', Record<string, Record<string, string[]>>>
>;

/** The default tools folder, assumed when a tree does not record `toolsFolder`. */
export const DEFAULT_TOOLS_FOLDER = 'tools';

// One site object per manifest version: what the worker builds once from a site's `mcp.json` and
// reuses for every request of that version (isolate-tree-cache.ts keeps it per isolate). It holds
// the loaded tree (mcp.json parsed once, its pack table with it), the tree source (packed or not,
// decided here, once), the parsed-file cache and the MCP handler. What differs per request (the
// peer address, the origin the request was addressed to) reaches the handler with the request.
// A new manifest version gets a new site object, swapped in whole: a request keeps the site it
// started with, so its answers never mix two trees. Later work plugs in here: a tree's resource
// list parts and skills are read through `reader` and answered by the handler's context, built
// once per version like everything else on this object.
import { CachedTreeReader } from '../../core/tree-reading/cached-tree-reader.js';
import type { ConnectionInfo } from '../../core/mcp/http/client-quotas.js';
import { createMcpHttpHandler, type McpHttpHandler } from '../../core/mcp/http/streamable-http.js';
import type { LoadedTree } from '../../core/tree-reading/loaded-tree.js';
import type { ServerContext } from '../../core/mcp/server-context.js';
import type { TreeSource } from '../../core/tree/tree-source.js';
import type { PackFileSource, PackIndexCache } from '../../core/packs/pack-reader.js';
import { PackedTreeSource } from '../../core/packs/packed-tree-source.js';
import { MANIFEST_FILE } from '../../core/tree/manifest.js';
import { compileEdgeValidator } from '../../validators/cfworker-validator.js';
import type { readOriginAnswerLimits } from './origin-answer-limits.js';
import { OriginRunner } from './origin-runner.js';

export interface EdgeSite {
  /** The manifest version it answers for: the tree's content hash, else its manifest's own hash. */
  readonly version: string;
  readonly tree: LoadedTree;
  /** The tree's files: a packed tree's packed calls from their packs, everything else as fetched. */
  readonly source: TreeSource;
  /** Parsed tree files, shared by the version's requests (bounded, see CachedTreeReader). */
  readonly reader: CachedTreeReader;
  /** The context every request of this version is answered with (a live runner added per request). */
  readonly context: ServerContext;
  /** Answers one request to the MCP endpoint; `connection` carries what is per request. */
  readonly handler: McpHttpHandler;
}

export interface EdgeSiteOptions {
  /** The site's files below its root: the host's asset binding, or a fetch of the same origin. */
  files: TreeSource & PackFileSource;
  /** The isolate's bound on parsed pack indexes and whole packs, shared with the tree's search reader. */
  packCache: PackIndexCache;
  /** The site's root as the first request of the version named it: the hint for live answers names it. */
  siteRoot: URL;
  /** The secret that signs requests to the tree's live origin, when the host holds one. */
  originKey: string | undefined;
  /** The bounds on a live origin's answer the worker's bindings set, or what is wrong with one. */
  originAnswerLimits: ReturnType<typeof readOriginAnswerLimits>;
  logProblem(text: string): void;
}

/** The tree's source, packed or not: decided once per version from the pack table loaded with the tree. */
function treeSourceOf(tree: LoadedTree, options: EdgeSiteOptions): TreeSource {
  const packs = tree.packs;
  if (packs === undefined) return options.files;
  // A malformed table: its tools' calls answer as not precomputed, said once per version.
  if ('problem' in packs) {
    options.logProblem(`${MANIFEST_FILE}: ${packs.problem}`);
    return options.files;
  }
  // One whole pack a call once the isolate's cache holds the call's index (else one index read more).
  return new PackedTreeSource(options.files, options.files, packs.table, {
    cacheLimits: options.packCache,
    onProblem: options.logProblem,
  });
}

/** The origins that may call: the request's own always; the project adds others (`http.allowedOrigins`, `"*"` for any). */
function originRule(tree: LoadedTree): (origin: string, connection: ConnectionInfo) => boolean {
  const listed = tree.extension?.http?.allowedOrigins;
  const allowed = new Set(
    Array.isArray(listed) ? listed.filter((item): item is string => typeof item === 'string') : [],
  );
  return (origin, connection) => origin === connection.siteOrigin || allowed.has('*') || allowed.has(origin);
}

export function openEdgeSite(tree: LoadedTree, options: EdgeSiteOptions): EdgeSite {
  const source = treeSourceOf(tree, options);
  const reader = new CachedTreeReader(source);
  const context: ServerContext = {
    tree,
    reader,
    liveHint: `run staticmcp serve ${options.siteRoot.href} --live <project folder>`,
    dev: false,
    // workerd cancels a request's timers when it ends: what the first requests need loads as they need it.
    preloadWhenIdle: false,
    loadValidatorCompiler: async () => compileEdgeValidator,
    logProblem: options.logProblem,
  };
  const origin = tree.extension?.liveOrigin;
  const handler = createMcpHttpHandler({
    // Stateless: called once per request, whose client (its address) the origin's limits key on.
    server: (client) =>
      origin
        ? {
            ...context,
            live: new OriginRunner({
              url: origin.url,
              timeoutMs: origin.timeoutMs,
              secret: options.originKey,
              client: client?.address || 'unknown',
              ...('problem' in options.originAnswerLimits
                ? { settingsProblem: options.originAnswerLimits.problem }
                : { limits: options.originAnswerLimits.limits }),
            }),
          }
        : context,
    sessions: false,
    isAllowedOrigin: originRule(tree),
    logProblem: options.logProblem,
  });
  return { version: tree.manifestHash, tree, source, reader, context, handler };
}

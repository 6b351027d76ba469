// The edge entry, bundled into every tree as `_worker.js`: the tree answers MCP by itself wherever
// it is hosted with code next to it (Cloudflare Pages advanced mode, Workers static assets, a
// Netlify edge function). `/mcp` is Streamable HTTP, stateless (every POST stands alone, no
// session is kept; what is kept between requests is the site object of the manifest's version,
// edge-site.ts); every other path is the static site.
// Precomputed answers, and, when the tree names a live origin (`liveOrigin`) and the host holds
// its secret, the rest forwarded there (origin-runner.ts); else a miss says how to run
// `staticmcp serve <site> --live <project>`.
import { errorResponse, INTERNAL_ERROR } from '../../core/mcp/json-rpc.js';
import { createAssetTreeSource, type AssetFetcher } from './asset-tree-source.js';
import { type EdgeSite, openEdgeSite } from './edge-site.js';
import { loadSiteForIsolate } from './isolate-tree-cache.js';

// Not exported: workerd takes every named export of the entry module for an entrypoint.
const MCP_PATH = '/mcp';

export interface WorkerEnv {
  /** The static files, on hosts that bind them (Cloudflare); absent elsewhere (then: fetch of the same origin). */
  ASSETS?: AssetFetcher;
  /** The secret that signs requests to the tree's live origin (a Workers secret, never in the tree). */
  STATICMCP_ORIGIN_KEY?: string;
}

/** The host's view of the static site: its asset binding, or the network. */
function siteFetcher(env: WorkerEnv | undefined): AssetFetcher {
  return env?.ASSETS ?? { fetch: (request) => fetch(request) };
}

const logProblem = (text: string): void => console.error(`staticmcp worker: ${text}`);

async function answerMcp(
  request: Request,
  env: WorkerEnv | undefined,
  url: URL,
  hostContext: unknown,
): Promise<Response> {
  const siteRoot = new URL('/', url);
  const siteKey = env?.ASSETS ? 'assets' : siteRoot.origin;
  let site: EdgeSite;
  try {
    site = await loadSiteForIsolate(
      () => createAssetTreeSource(siteFetcher(env), siteRoot),
      siteKey,
      (tree, packCache, files) =>
        openEdgeSite(tree, {
          files,
          packCache,
          siteRoot,
          originKey:
            typeof env?.STATICMCP_ORIGIN_KEY === 'string' && env.STATICMCP_ORIGIN_KEY !== ''
              ? env.STATICMCP_ORIGIN_KEY
              : undefined,
          logProblem,
        }),
    );
  } catch (error) {
    console.error(`staticmcp worker: ${(error as Error).message}`);
    const body = errorResponse(
      null,
      INTERNAL_ERROR,
      `This site's MCP tree cannot be loaded (${(error as Error).message}); redeploy the output of staticmcp build`,
    );
    return new Response(JSON.stringify(body), { status: 503, headers: { 'content-type': 'application/json' } });
  }
  // The peer: Netlify's context names it (`context.ip`); Cloudflare's front end sets
  // CF-Connecting-IP (replacing any copy the client sent).
  const contextIp = (hostContext as { ip?: unknown } | undefined)?.ip;
  const peerAddress =
    typeof contextIp === 'string' && contextIp !== ''
      ? contextIp
      : (request.headers.get('cf-connecting-ip') ?? undefined);
  // The handler reads what is left of a refused body first (web-exchange.ts), so the client sees
  // the refusal instead of a reset connection.
  return site.handler.handle(request, { peerAddress, siteOrigin: url.origin });
}

export default {
  async fetch(request: Request, env?: WorkerEnv, context?: unknown): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname !== MCP_PATH) return siteFetcher(env).fetch(request);
    try {
      return await answerMcp(request, env, url, context);
    } catch (error) {
      // A client that hangs up mid-body, a host failure: one request fails, the isolate goes on.
      console.error(`staticmcp worker: ${(error as Error).stack ?? String(error)}`);
      return new Response(JSON.stringify(errorResponse(null, INTERNAL_ERROR, 'Internal error')), {
        status: 500,
        headers: { 'content-type': 'application/json' },
      });
    }
  },
};

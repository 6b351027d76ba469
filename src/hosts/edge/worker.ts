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
import { readOriginAnswerLimits } from './origin-answer-limits.js';

// Not exported: workerd takes every named export of the entry module for an entrypoint.
const MCP_PATH = '/mcp';

export interface WorkerEnv {
  /** The static files, on hosts that bind them (Cloudflare); absent elsewhere (then: fetch of the same origin). */
  ASSETS?: AssetFetcher;
  /** The secret that signs requests to the tree's live origin (a Workers secret, never in the tree). */
  STATICMCP_ORIGIN_KEY?: string;
  /** Bounds on a live origin's answer (origin-answer-limits.ts); unset: the defaults. */
  STATICMCP_ORIGIN_MAX_ANSWER_BYTES?: string;
  STATICMCP_ORIGIN_MAX_LINE_BYTES?: string;
  STATICMCP_ORIGIN_MAX_LINES?: string;
}

/** The host's view of the static site: its asset binding, or the network. */
function siteFetcher(env: WorkerEnv | undefined): AssetFetcher {
  return env?.ASSETS ?? { fetch: (request) => fetch(request) };
}

const logProblem = (text: string): void => console.error(`staticmcp worker: ${text}`);

/**
 * The client's address as the platform vouches for it, the key of the origin's per-client limits:
 * Netlify's `context.ip`; CF-Connecting-IP only where Cloudflare's front end set it (it replaces
 * any copy the client sent, and the request then carries Cloudflare's `request.cf`; workerd gives
 * `request.cf` only when its front is configured to pass it, as miniflare does). Elsewhere the
 * header is whatever the client wrote, so every client shares one key.
 */
function vouchedPeerAddress(request: Request, hostContext: unknown): string | undefined {
  const contextIp = (hostContext as { ip?: unknown } | undefined)?.ip;
  if (typeof contextIp === 'string' && contextIp !== '') return contextIp;
  const cf = (request as Request & { cf?: unknown }).cf;
  if (typeof cf !== 'object' || cf === null) return undefined;
  return request.headers.get('cf-connecting-ip') || undefined;
}

async function answerMcp(
  request: Request,
  env: WorkerEnv | undefined,
  url: URL,
  hostContext: unknown,
): Promise<Response> {
  const siteRoot = new URL('/', url);
  // The origin bindings are part of the key: they change only with a deploy (a new isolate) on a
  // real host, but a host that passes other bindings to the same isolate gets a site of its own.
  const originAnswerLimits = readOriginAnswerLimits(env);
  const siteKey = `${env?.ASSETS ? 'assets' : siteRoot.origin} ${JSON.stringify(originAnswerLimits)}`;
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
          originAnswerLimits,
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
  const peerAddress = vouchedPeerAddress(request, hostContext);
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

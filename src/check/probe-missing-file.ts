// How a deployed tree's host answers a file it does not have: `check <URL>` asks for one that no
// build writes. Anything but 404/410 means a page stands in for missing files (Cloudflare Pages
// without 404.html answers index.html with status 200), which our readers take for a miss but a
// cache, a browser or another StaticMCP bridge may take for the file.
import type { TreeProblem } from './check-tree.js';

/** A call file no build writes: tool names never start with a dot. */
const MISSING_FILE = 'tools/.staticmcp-check-missing-file.json';
const PROBE_TIMEOUT_MS = 15_000;

/** The problem with how `base` (a tree URL ending in `/`) answers a missing file, if any. */
export async function probeMissingFile(base: URL): Promise<TreeProblem | undefined> {
  let response: Response;
  try {
    response = await fetch(new URL(MISSING_FILE, base), {
      redirect: 'manual',
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
  } catch {
    return undefined; // An unreachable host is already reported by the tree's own checks.
  }
  await response.body?.cancel();
  if (response.status === 404 || response.status === 410) return undefined;
  const answer =
    response.status >= 300 && response.status < 400
      ? `a redirect (HTTP ${response.status}${response.headers.get('location') ? ` to ${response.headers.get('location')}` : ''})`
      : `HTTP ${response.status}${response.headers.get('content-type') ? ` (${response.headers.get('content-type')})` : ''}`;
  return {
    path: MISSING_FILE,
    message: `the host answers a file the tree does not have with ${answer}, not 404: a page stands in for every missing file, which caches and other StaticMCP bridges can take for a broken answer`,
    hint: 'deploy the whole tree, including the 404.html staticmcp build writes (Cloudflare Pages answers 404 only when a site has one), or make the host answer 404 for missing files',
  };
}

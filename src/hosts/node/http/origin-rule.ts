// The one rule for which web pages (Origins) may use `serve --http`, shared by /mcp and the static
// site so they cannot drift apart: pages on this machine or on a Host the server answers to
// (host-rules.ts), plus the origins the tree's project lists (staticmcp.json `http.allowedOrigins`,
// which the build copies into mcp.json and the edge worker honours too).
import type { LoadedTree } from '../../../core/tree-reading/loaded-tree.js';
import { isAllowedOrigin } from './host-rules.js';

export interface OriginRule {
  /**
   * Whether a page from `origin` may use the server. `runsScripts`: the request may make this
   * machine run a live script (a call to /mcp of a server with --live); `"*"` in the list is then
   * not honoured, since any web page could start a script, while reading precomputed answers or
   * the tree's files runs nothing.
   */
  allows(origin: string, runsScripts: boolean): boolean;
  /** Whether the project lists `"*"`: every page may read the tree, with or without an Origin. */
  allowsEveryReader(): boolean;
}

/** `allowedHosts` and the tree are read at each request: the port is known late, a rebuild swaps the tree. */
export function createOriginRule(allowedHosts: () => readonly string[], tree: () => LoadedTree): OriginRule {
  const listed = (): readonly unknown[] => {
    const origins = tree().extension?.http?.allowedOrigins;
    return Array.isArray(origins) ? origins : [];
  };
  return {
    allows(origin, runsScripts) {
      if (isAllowedOrigin(origin, allowedHosts())) return true;
      const origins = listed();
      return origins.includes(origin) || (!runsScripts && origins.includes('*'));
    },
    allowsEveryReader: () => listed().includes('*'),
  };
}

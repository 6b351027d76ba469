// The one Host header check (DNS rebinding: a foreign page whose name resolves to this machine
// still sends its own Host), used by the MCP endpoint and by `serve --http`'s static site alike.
// The host decides which names to allow (hosts/node/http/host-rules.ts for serve --http); the edge
// worker checks none (its platform routes by Host already).

/**
 * Whether a Host header value is allowed. `allowed` entries are lower case, `host` (any port) or
 * `host:port`, `[::1]:8080` style for IPv6.
 */
export function isAllowedHost(hostHeader: string | null, allowed: readonly string[]): boolean {
  const host = (hostHeader ?? '').toLowerCase();
  if (host === '') return false;
  if (allowed.includes(host)) return true;
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : (host.split(':')[0] ?? '');
  return name !== '' && allowed.includes(name);
}

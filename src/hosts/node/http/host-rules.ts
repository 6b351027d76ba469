// Who may talk to `serve --http`: the Host names it answers to (DNS rebinding: a foreign page whose
// name resolves to 127.0.0.1 still sends its own Host; the check itself, for /mcp and the static
// site alike, is core/mcp/http/host-check.ts), the Origins that may call /mcp, and which bind
// addresses count as loopback (anything else is reachable by other machines).

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/** `::1` → `[::1]`: the form a Host header and a URL use. */
export function bracketIpv6(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

export function isLoopbackHost(host: string): boolean {
  const name = bracketIpv6(host.toLowerCase());
  return name === 'localhost' || name === '[::1]' || /^127(\.\d{1,3}){3}$/.test(name);
}

/**
 * The Host header values to accept: the loopback names with the port, the bind address, and the
 * names the operator added (`--allowed-host`, as `name` for any port or `name:port`).
 */
export function allowedHostsFor(bindHost: string, port: number, extra: readonly string[]): string[] {
  const names = new Set([...LOOPBACK_NAMES, bracketIpv6(bindHost.toLowerCase())]);
  const hosts = new Set<string>();
  for (const name of names) {
    hosts.add(`${name}:${port}`);
    // A client leaves the port out of Host when it is the scheme's default.
    if (port === 80) hosts.add(name);
  }
  for (const host of extra) hosts.add(host.trim().toLowerCase());
  return [...hosts];
}

/**
 * An Origin may call when it is a page on this machine (any loopback name, any port: Inspector's
 * UI, a local dev server) or on a host this server answers to; `null` and anything else may not.
 */
export function isAllowedOrigin(origin: string, allowedHosts: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (isLoopbackHost(url.hostname)) return true;
  return allowedHosts.includes(url.host) || allowedHosts.includes(url.hostname);
}

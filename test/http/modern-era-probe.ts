// Does a running MCP endpoint speak the 2026-07-28 (stateless) revision? One `server/discover`
// request, sent the way a 2026-07-28 client sends it. The third-party proofs (Inspector's
// `--protocol-era modern`, conformance 0.2.0-alpha) use it to skip, loudly, the parts that cannot
// pass before the protocol core learns that era, and to run them as soon as it has.

export const MODERN_VERSION = '2026-07-28';

/** What the probe found: offered or not, and the server's answer to show in a skip message. */
export interface ModernEraProbe {
  offered: boolean;
  answer: string;
}

/** POSTs `server/discover` to `endpoint` (loopback only) and reads `supportedVersions`. */
export async function probeModernEra(endpoint: URL): Promise<ModernEraProbe> {
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(endpoint.hostname)) throw new Error(`the probe talks to loopback servers only, not ${endpoint.host}`);
  const body = {
    jsonrpc: '2.0', id: 'probe', method: 'server/discover',
    params: {
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
        'io.modelcontextprotocol/clientCapabilities': {},
        'io.modelcontextprotocol/clientInfo': { name: 'staticmcp-era-probe', version: '1' },
      },
    },
  };
  let answer: string;
  try {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/json', accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN_VERSION, 'mcp-method': 'server/discover',
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    answer = `HTTP ${response.status}: ${(await response.text()).slice(0, 300)}`;
  } catch (error) {
    return { offered: false, answer: `no answer: ${(error as Error).message}` };
  }
  // The answer may come as JSON or as one SSE event; either way the versions are in its text.
  const json = /\{.*\}/s.exec(answer)?.[0];
  let versions: unknown;
  try {
    versions = (JSON.parse(json ?? 'null') as { result?: { supportedVersions?: unknown } } | null)?.result?.supportedVersions;
  } catch {
    versions = undefined;
  }
  return { offered: Array.isArray(versions) && versions.includes(MODERN_VERSION), answer };
}

/** The line printed when a proof is skipped because the server does not offer the era yet. */
export function modernEraSkipNote(what: string, probe: ModernEraProbe): string {
  return `SKIPPED ${what}: the server does not offer MCP ${MODERN_VERSION} through server/discover yet ` +
    `(it answered ${probe.answer.replace(/\s+/g, ' ')}). These checks run by themselves once the protocol core speaks that era.`;
}

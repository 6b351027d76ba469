// The MCP Server Card and the AI Catalog that points to it, as the server-card extension defines
// them (modelcontextprotocol/experimental-ext-server-card at 8924e086, `schema.json` and
// `docs/discovery.md`; a draft, so pinned): the card at `<streamable-http-url>/server-card`, which
// for a tree is `/mcp/server-card` (a static file: every host routes only `/mcp` itself to the
// worker), and the catalog at the host's `/.well-known/ai-catalog.json`. The card is advisory and
// made from the same values as server.json and the manifest (what `server/discover` answers), so
// the three agree by construction; `check` compares them in a tree. Its `_meta` names the
// extensions the server declares (Skills, MCP Apps).
import { MODERN_VERSIONS, SUPPORTED_VERSIONS } from '../core/mcp/protocol-versions.js';

export const SERVER_CARD_FILE = 'mcp/server-card';
export const AI_CATALOG_FILE = '.well-known/ai-catalog.json';
/** The MCP Registry's HTTP domain proof (`v=MCPv1; k=…; p=…`), for a custom domain. */
export const REGISTRY_AUTH_FILE = '.well-known/mcp-registry-auth';
export const SERVER_CARD_MEDIA_TYPE = 'application/mcp-server-card+json';
export const AI_CATALOG_MEDIA_TYPE = 'application/ai-catalog+json';
export const SERVER_CARD_SCHEMA_URL = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';
export const AI_CATALOG_SPEC_VERSION = '1.0';

/** Every version `/mcp` speaks: the legacy ones by initialize, the modern ones (what server/discover lists) per request. */
export function endpointProtocolVersions(): string[] {
  return [...SUPPORTED_VERSIONS, ...MODERN_VERSIONS];
}

export interface ServerCardInput {
  /** The registry name (`com.example/weather`), the same as server.json's. */
  name: string;
  version: string;
  description: string;
  title?: string;
  /** The site's address without a trailing slash. */
  publicUrl: string;
  /** The `extensions` server/discover declares (declaredExtensions), named in the card's `_meta`. */
  extensions?: Record<string, unknown>;
}

export function renderServerCard(input: ServerCardInput): Record<string, unknown> {
  return {
    $schema: SERVER_CARD_SCHEMA_URL,
    name: input.name,
    version: input.version,
    description: input.description,
    ...(input.title !== undefined ? { title: input.title } : {}),
    websiteUrl: `${input.publicUrl}/`,
    remotes: [
      {
        type: 'streamable-http',
        url: `${input.publicUrl}/mcp`,
        supportedProtocolVersions: endpointProtocolVersions(),
      },
    ],
    // The card has no capabilities field; `_meta` is its extension point. Each extension is keyed
    // by its own identifier with the settings server/discover gives it, so a client can tell
    // before connecting that the server serves skills (or apps).
    ...(input.extensions !== undefined ? { _meta: input.extensions } : {}),
  };
}

/** Where a site's card is: `<streamable-http-url>/server-card`. */
export function serverCardUrl(publicUrl: string): string {
  return `${publicUrl}/${SERVER_CARD_FILE}`;
}

/**
 * The catalog's domain-anchored identifier, `urn:air:{publisher}:{namespace}:{name}`: the site's
 * host publishes, `mcp` is the namespace, the card name's last part the name.
 */
export function catalogIdentifier(publicUrl: string, cardName: string): string {
  const name = cardName.slice(cardName.indexOf('/') + 1);
  return `urn:air:${new URL(publicUrl).hostname.toLowerCase()}:mcp:${name}`;
}

export function renderAiCatalog(publicUrl: string, cardName: string): Record<string, unknown> {
  return {
    specVersion: AI_CATALOG_SPEC_VERSION,
    entries: [
      {
        identifier: catalogIdentifier(publicUrl, cardName),
        type: SERVER_CARD_MEDIA_TYPE,
        url: serverCardUrl(publicUrl),
      },
    ],
  };
}

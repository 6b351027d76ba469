// `server.json` in the official MCP Registry's format (schema 2025-12-11), written when the project
// names its public URL: the deployed worker as a streamable-http remote, and, once staticmcp is on
// the npm registry (PUBLISHED_ON_NPM), this package run with npx as the stdio alternative
// (`staticmcp serve <url>`). Ready for `mcp-publisher publish`.
import { PUBLISHED_ON_NPM } from '../shared/staticmcp-command.js';
import type { Manifest } from '../core/tree/manifest.js';

export const SERVER_JSON_FILE = 'server.json';
export const REGISTRY_SCHEMA_URL = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';
/** The registry's limits: `namespace/name`, and a description of at most 100 characters. */
export const REGISTRY_NAME_PATTERN = /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/;
const MAX_DESCRIPTION_CHARS = 100;

export interface RegistryEntryInput {
  /** The site's address, without a trailing slash (`https://example.pages.dev`). */
  publicUrl: string;
  /** `namespace/name` as the registry will verify it; derived from the URL's host when absent. */
  registryName?: string;
  /** The npm package that runs the tree over stdio, and its exact version. */
  packageName: string;
  packageVersion: string;
}

/** `https://docs.example.com` + server `weather` → `com.example.docs/weather` (the reverse-DNS namespace the registry verifies by domain). */
export function deriveRegistryName(publicUrl: string, serverName: string): string {
  const host = new URL(publicUrl).hostname;
  const namespace = host
    .split('.')
    .reverse()
    .join('.')
    .replace(/[^a-zA-Z0-9.-]/g, '-');
  const name = serverName.replace(/[^a-zA-Z0-9._-]/g, '-') || 'mcp';
  return `${namespace}/${name}`;
}

function shortDescription(manifest: Manifest): string {
  const text = (
    manifest.serverInfo.description ??
    manifest.serverInfo.title ??
    `MCP server ${manifest.serverInfo.name}`
  )
    .replace(/\s+/g, ' ')
    .trim();
  return text.length <= MAX_DESCRIPTION_CHARS ? text : `${text.slice(0, MAX_DESCRIPTION_CHARS - 1)}…`;
}

export function renderServerJson(manifest: Manifest, input: RegistryEntryInput): Record<string, unknown> {
  const { serverInfo } = manifest;
  return {
    $schema: REGISTRY_SCHEMA_URL,
    name: input.registryName ?? deriveRegistryName(input.publicUrl, serverInfo.name),
    description: shortDescription(manifest),
    ...(serverInfo.title !== undefined ? { title: serverInfo.title } : {}),
    version: serverInfo.version,
    websiteUrl: `${input.publicUrl}/`,
    remotes: [{ type: 'streamable-http', url: `${input.publicUrl}/mcp` }],
    // The registry verifies every package it lists: never name one npm does not have.
    ...(PUBLISHED_ON_NPM
      ? {
          packages: [
            {
              registryType: 'npm',
              identifier: input.packageName,
              version: input.packageVersion,
              runtimeHint: 'npx',
              transport: { type: 'stdio' },
              packageArguments: [
                { type: 'positional', value: 'serve' },
                { type: 'positional', value: `${input.publicUrl}/` },
              ],
            },
          ],
        }
      : {}),
  };
}

/**
 * Hosts that give every customer a subdomain of their own domain: a name derived from such a
 * site's host (`dev.pages.my-site/…`) names a domain the user does not own, so the registry cannot
 * verify it. GitHub Pages user sites are the exception the registry can verify: `alice.github.io`
 * belongs to the GitHub account `alice`, whose login grants `io.github.alice/*`.
 */
const SHARED_HOST_SUFFIXES = ['pages.dev', 'workers.dev', 'netlify.app'] as const;
const GITHUB_PAGES_SUFFIX = 'github.io';

export interface RegistryNameSettings {
  /** staticmcp.json `registryName`: used as it is. */
  registryName?: string;
  /** staticmcp.json `githubOwner`: the GitHub user or organisation that publishes (`io.github.<owner>/…`). */
  githubOwner?: string;
}

export type ResolvedRegistryName =
  /** A name the registry can verify: by GitHub login (`io.github.…`) or by the site's own domain. */
  | { verifiable: true; name: string }
  /** Only a descriptive name (for the server card); server.json would be refused by the registry. */
  | { verifiable: false; name: string; reason: string };

function safeServerName(serverName: string): string {
  return serverName.replace(/[^a-zA-Z0-9._-]/g, '-') || 'mcp';
}

/**
 * The registry name of a site: `registryName` as given; else `io.github.<githubOwner>/<server>`;
 * else, for a GitHub Pages user site, `io.github.<user>/<server>`; else the reverse-DNS name of the
 * site's host, which only a custom domain's owner can verify (DNS or /.well-known/mcp-registry-auth).
 */
export function resolveRegistryName(
  publicUrl: string,
  serverName: string,
  settings: RegistryNameSettings,
): ResolvedRegistryName {
  if (settings.registryName !== undefined) return { verifiable: true, name: settings.registryName };
  if (settings.githubOwner !== undefined)
    return { verifiable: true, name: `io.github.${settings.githubOwner}/${safeServerName(serverName)}` };
  const host = new URL(publicUrl).hostname.toLowerCase();
  const githubUser = host.endsWith(`.${GITHUB_PAGES_SUFFIX}`) ? host.slice(0, -GITHUB_PAGES_SUFFIX.length - 1) : '';
  if (githubUser !== '' && !githubUser.includes('.'))
    return { verifiable: true, name: `io.github.${githubUser}/${safeServerName(serverName)}` };
  const derived = deriveRegistryName(publicUrl, serverName);
  const shared = SHARED_HOST_SUFFIXES.find((suffix) => host === suffix || host.endsWith(`.${suffix}`));
  if (shared === undefined) return { verifiable: true, name: derived };
  return {
    verifiable: false,
    name: derived,
    reason: `${host} is a subdomain of ${shared}, a domain you do not own, so the MCP Registry cannot verify a name derived from it (${derived}); set "githubOwner" (publishes as io.github.<owner>/${safeServerName(serverName)}) or "registryName" in staticmcp.json`,
  };
}

/** Hosts no registry client can reach: loopback, private and link-local addresses, local names. */
function isPrivateHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || /\.(localhost|local|internal|lan|home\.arpa)$/.test(bare)) return true;
  if (/^(127|10|0)\.|^192\.168\.|^169\.254\.|^172\.(1[6-9]|2\d|3[01])\./.test(bare)) return true;
  return bare === '::1' || bare === '::' || /^f[cd][0-9a-f]{2}:|^fe80:/.test(bare);
}

/**
 * Why a publicUrl cannot be announced to registries and clients (server.json, the server card, the
 * AI Catalog), or undefined when it can: the registry lists only public https remotes, the
 * catalog's well-known address is at the root of a host, and the edge worker answers `/mcp` there.
 */
export function publicUrlProblem(publicUrl: string): string | undefined {
  let url: URL;
  try {
    url = new URL(publicUrl);
  } catch {
    return `${publicUrl} is not a URL`;
  }
  if (url.protocol !== 'https:')
    return `${publicUrl} is not https: registries and clients accept only https remotes (http is for local development); give the https address the site is deployed at`;
  if (url.pathname !== '/' && url.pathname !== '')
    return `${publicUrl} has a path (${url.pathname}): the edge worker answers /mcp and the AI Catalog is read from /.well-known/ at the root of a host; deploy the tree at the root of a (sub)domain and give that address`;
  if (isPrivateHost(url.hostname))
    return `${publicUrl} is not a public address: registries and clients elsewhere cannot reach it; give the address the site is deployed at`;
  return undefined;
}

/**
 * Registry rules the schema leaves open: every remote is a public https URL (the schema accepts
 * http). Added to the schema's own findings.
 */
export function registryRuleProblems(serverJson: Record<string, unknown>): string[] {
  const remotes = Array.isArray(serverJson.remotes) ? serverJson.remotes : [];
  const problems: string[] = [];
  for (const [index, remote] of remotes.entries()) {
    const url = (remote as { url?: unknown } | null)?.url;
    if (typeof url !== 'string') continue;
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {}
    if (parsed?.protocol !== 'https:' || isPrivateHost(parsed.hostname))
      problems.push(`server.json.remotes.${index}.url ${url} is not a public https URL`);
  }
  return problems;
}

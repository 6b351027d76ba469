// The files that announce a deployed tree to registries and clients, written when staticmcp.json
// names the public URL: server.json for the MCP Registry (validated against the registry's pinned
// schema and rules: a file the registry would refuse is a build problem, never written silently),
// the server card at /mcp/server-card and the AI Catalog at /.well-known/ai-catalog.json
// (server-card.ts), and the registry's HTTP domain proof at /.well-known/mcp-registry-auth when
// configured. A publicUrl that cannot be announced (http, a path, a private host) gets a warning
// that says so, and none of these files.
import { validateServerCard, validateServerJson } from './discovery-schemas.js';
import type { Manifest } from '../core/tree/manifest.js';
import { treeJsonFile } from '../core/tree/canonical-json.js';
import {
  publicUrlProblem,
  registryRuleProblems,
  renderServerJson,
  resolveRegistryName,
  SERVER_JSON_FILE,
} from './registry-server-json.js';
import {
  AI_CATALOG_FILE,
  REGISTRY_AUTH_FILE,
  renderAiCatalog,
  renderServerCard,
  SERVER_CARD_FILE,
} from './server-card.js';

export interface DiscoveryOptions {
  /** The site's public address, without a trailing slash. */
  publicUrl?: string;
  registryName?: string;
  githubOwner?: string;
  /** The registry's HTTP proof record (`v=MCPv1; k=ed25519; p=…`). */
  registryAuth?: string;
  packageName: string;
  packageVersion: string;
  /** The `extensions` server/discover declares for this tree, named on the server card. */
  extensions?: Record<string, unknown>;
}

export interface DiscoveryProblem {
  path: string;
  message: string;
}

export interface DiscoveryFiles {
  files: Map<string, string>;
  /** What the user must fix (the build fails). */
  failures: DiscoveryProblem[];
  /** What was left out, and why. */
  warnings: DiscoveryProblem[];
  /** Whether the card and catalog are written (their `_headers` rules go with them). */
  card: boolean;
}

const CONFIG = 'staticmcp.json';
const FROM_CONFIG =
  'its values come from staticmcp.json (name, title, description, version, publicUrl, registryName, githubOwner): fix them there';

export function discoveryFiles(manifest: Manifest, options: DiscoveryOptions): DiscoveryFiles {
  const result: DiscoveryFiles = { files: new Map(), failures: [], warnings: [], card: false };
  if (options.registryAuth !== undefined) result.files.set(REGISTRY_AUTH_FILE, `${options.registryAuth}\n`);
  const { publicUrl } = options;
  if (publicUrl === undefined) return result;
  const urlProblem = publicUrlProblem(publicUrl);
  if (urlProblem !== undefined) {
    result.warnings.push({
      path: CONFIG,
      message: `publicUrl ${urlProblem}. ${SERVER_JSON_FILE}, the server card and the AI Catalog are not written`,
    });
    return result;
  }

  const resolved = resolveRegistryName(publicUrl, manifest.serverInfo.name, options);
  const serverJson = renderServerJson(manifest, {
    publicUrl,
    registryName: resolved.name,
    packageName: options.packageName,
    packageVersion: options.packageVersion,
  });
  if (!resolved.verifiable) {
    result.warnings.push({ path: SERVER_JSON_FILE, message: `not written: ${resolved.reason}` });
  } else {
    const problems = [...validateServerJson(serverJson), ...registryRuleProblems(serverJson)];
    if (problems.length === 0) result.files.set(SERVER_JSON_FILE, treeJsonFile(serverJson));
    else
      result.failures.push({
        path: SERVER_JSON_FILE,
        message: `not written: the MCP Registry (schema 2025-12-11) would refuse it: ${problems.join('; ')}; ${FROM_CONFIG}`,
      });
  }

  const card = renderServerCard({
    name: resolved.name,
    version: serverJson.version as string,
    description: serverJson.description as string,
    ...(typeof serverJson.title === 'string' ? { title: serverJson.title } : {}),
    publicUrl,
    ...(options.extensions !== undefined ? { extensions: options.extensions } : {}),
  });
  const cardProblems = validateServerCard(card);
  if (cardProblems.length > 0) {
    result.failures.push({
      path: SERVER_CARD_FILE,
      message: `not written: it does not follow the server card schema: ${cardProblems.join('; ')}; ${FROM_CONFIG}`,
    });
    return result;
  }
  result.files.set(SERVER_CARD_FILE, treeJsonFile(card));
  result.files.set(AI_CATALOG_FILE, treeJsonFile(renderAiCatalog(publicUrl, resolved.name)));
  result.card = true;
  return result;
}

// `server.json` in the official MCP Registry's format (schema 2025-12-11), written when the project
// names its public URL: the deployed worker as a streamable-http remote, and, once staticmcp is on
// the npm registry (PUBLISHED_ON_NPM), this package run with npx as the stdio alternative
// (`staticmcp serve <url>`). Ready for `mcp-publisher publish`.
import { PUBLISHED_ON_NPM } from '../staticmcp-command.js';
import type { Manifest } from './manifest.js';

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

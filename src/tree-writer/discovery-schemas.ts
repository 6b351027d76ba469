// The published schemas a tree's discovery files must follow, read from the pinned copies in
// schemas/ (see schemas/README.md for their sources and commits): the MCP Registry's server.json
// 2025-12-11 (modelcontextprotocol/static a9ba437d, the registry's generated schema as published)
// and the MCP Server Card draft (modelcontextprotocol/experimental-ext-server-card 8924e086).
// Used by the build (a file that does not validate is a build problem, never written silently)
// and by `check` (a tree edited after the build). Loaded on first use: ajv and the files cost
// nothing to commands that never look at discovery files.
import { readFileSync } from 'node:fs';
import { compileVendoredValidator, type Validator } from '../shared/ajv-validator.js';

/** Where the pinned copies live: schemas/ at the package root (beside staticmcp.schema.json). */
const SCHEMAS_FOLDER = new URL('../../schemas/', import.meta.url);
export const REGISTRY_SCHEMA_FILE = 'registry-server.2025-12-11.schema.json';
export const SERVER_CARD_SCHEMA_FILE = 'server-card.schema.json';
/** The experimental-ext-server-card commit whose schema.json and docs/discovery.md we follow (a draft). */
export const SERVER_CARD_SPEC_COMMIT = '8924e08682b4a936e6464b57845ec2ff17dc8776';

let registryValidator: Validator | undefined;
let cardValidator: Validator | undefined;

function readSchema(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(file, SCHEMAS_FOLDER), 'utf8')) as Record<string, unknown>;
}

/** What is wrong with a server.json under the registry's schema (empty when it validates). */
export function validateServerJson(value: unknown): string[] {
  registryValidator ??= compileVendoredValidator(readSchema(REGISTRY_SCHEMA_FILE), 'server.json', '07');
  return registryValidator(value);
}

/** What is wrong with a server card under the extension's schema (its `ServerCard` definition). */
export function validateServerCard(value: unknown): string[] {
  if (!cardValidator) {
    const { $defs } = readSchema(SERVER_CARD_SCHEMA_FILE);
    cardValidator = compileVendoredValidator({ $ref: '#/$defs/ServerCard', $defs }, 'server card', '2020-12');
  }
  return cardValidator(value);
}

// The discovery files of a tree, for `staticmcp check`: server.json against the MCP Registry's
// pinned schema and rules, and the server card and AI Catalog (server-card draft 8924e086) against
// theirs and against what the tree serves. The card is advisory, but a client reads it before it
// connects, so one that contradicts server.json or mcp.json (what `server/discover` and initialize
// answer) is stale or tampered: a problem whose fix is a rebuild. In our trees, a server.json
// without its card and catalog is one too (the build writes the three together).
import { validateServerCard, validateServerJson } from '../tree-writer/discovery-schemas.js';
import { isObject, type JsonObject } from '../core/tree/json-object.js';
import { MANIFEST_FILE } from '../core/tree/manifest.js';
import { registryRuleProblems, SERVER_JSON_FILE } from '../tree-writer/registry-server-json.js';
import {
  AI_CATALOG_FILE,
  endpointProtocolVersions,
  SERVER_CARD_FILE,
  SERVER_CARD_MEDIA_TYPE,
} from '../tree-writer/server-card.js';
import { MODERN_VERSIONS } from '../core/mcp/protocol-versions.js';
import type { TreeSource } from '../core/tree/tree-source.js';
import { SKILLS_EXTENSION_ID } from '../core/tree/skills.js';

type Report = (path: string, message: string, hint: string) => void;

const REBUILD =
  'rebuild the tree with staticmcp build (the card, the catalog and server.json are written together from staticmcp.json)';

/** A JSON file of the tree: its object, `missing`, or undefined once reported as unreadable. */
async function readJsonObject(
  source: TreeSource,
  file: string,
  report: Report,
): Promise<JsonObject | 'missing' | undefined> {
  let text: string;
  try {
    const outcome = await source.read(file);
    if (outcome.status !== 'ok') return 'missing';
    text = outcome.text;
  } catch (error) {
    report(file, `cannot be read (${(error as Error).message})`, 'make the file readable');
    return undefined;
  }
  try {
    const value: unknown = JSON.parse(text);
    if (isObject(value)) return value;
  } catch {}
  report(file, 'is not a JSON object', REBUILD);
  return undefined;
}

export async function checkDiscoveryFiles(
  source: TreeSource,
  manifest: JsonObject,
  ours: boolean,
  report: Report,
): Promise<void> {
  const serverJson = await readJsonObject(source, SERVER_JSON_FILE, report);
  const card = await readJsonObject(source, SERVER_CARD_FILE, report);
  const catalog = await readJsonObject(source, AI_CATALOG_FILE, report);

  if (isObject(serverJson)) {
    const problems = [...validateServerJson(serverJson), ...registryRuleProblems(serverJson)];
    if (problems.length > 0)
      report(SERVER_JSON_FILE, `the MCP Registry (schema 2025-12-11) would refuse it: ${problems.join('; ')}`, REBUILD);
    if (ours && card === 'missing')
      report(
        SERVER_CARD_FILE,
        `is missing, though ${SERVER_JSON_FILE} is there: clients find the server through it`,
        REBUILD,
      );
    if (ours && catalog === 'missing')
      report(
        AI_CATALOG_FILE,
        `is missing, though ${SERVER_JSON_FILE} is there: it points clients to the server card`,
        REBUILD,
      );
  }
  if (isObject(card)) checkCard(card, isObject(serverJson) ? serverJson : undefined, manifest, ours, report);
  if (isObject(catalog)) checkCatalog(catalog, isObject(card) ? card : undefined, report);
}

function checkCard(
  card: JsonObject,
  serverJson: JsonObject | undefined,
  manifest: JsonObject,
  ours: boolean,
  report: Report,
): void {
  const stale = (message: string): void => report(SERVER_CARD_FILE, message, REBUILD);
  const problems = validateServerCard(card);
  if (problems.length > 0) stale(`does not follow the server card schema: ${problems.join('; ')}`);
  if (ours) checkCardSkills(card, manifest, stale);
  const serverInfo = isObject(manifest.serverInfo) ? manifest.serverInfo : {};
  for (const field of ['version', 'title'] as const) {
    if (card[field] !== undefined && card[field] !== serverInfo[field])
      stale(
        `says ${field} ${JSON.stringify(card[field])}, but ${MANIFEST_FILE} (what server/discover answers) says ${JSON.stringify(serverInfo[field])}`,
      );
  }
  if (serverJson) {
    for (const field of ['name', 'version', 'description', 'title', 'websiteUrl'] as const) {
      if (card[field] !== serverJson[field])
        stale(
          `says ${field} ${JSON.stringify(card[field])}, but ${SERVER_JSON_FILE} says ${JSON.stringify(serverJson[field])}`,
        );
    }
  }
  const remotes = Array.isArray(card.remotes) ? card.remotes.filter(isObject) : [];
  const registryRemotes = serverJson && Array.isArray(serverJson.remotes) ? serverJson.remotes.filter(isObject) : [];
  const spoken = endpointProtocolVersions();
  for (const [index, remote] of remotes.entries()) {
    if (serverJson && !registryRemotes.some((other) => other.url === remote.url && other.type === remote.type))
      stale(`remotes[${index}] (${String(remote.type)} ${String(remote.url)}) is not a remote of ${SERVER_JSON_FILE}`);
    const versions = Array.isArray(remote.supportedProtocolVersions) ? remote.supportedProtocolVersions : [];
    const unknown = versions.filter((version) => !spoken.includes(version as string));
    if (unknown.length > 0)
      stale(`remotes[${index}] lists protocol versions the server does not speak: ${unknown.join(', ')}`);
    const missing = MODERN_VERSIONS.filter((version) => !versions.includes(version));
    if (versions.length > 0 && missing.length > 0)
      stale(`remotes[${index}] leaves out ${missing.join(', ')}, which server/discover lists`);
  }
}

function checkCatalog(catalog: JsonObject, card: JsonObject | undefined, report: Report): void {
  const entries = Array.isArray(catalog.entries) ? catalog.entries.filter(isObject) : [];
  const cardEntries = entries.filter((entry) => entry.type === SERVER_CARD_MEDIA_TYPE);
  if (cardEntries.length === 0) {
    report(
      AI_CATALOG_FILE,
      `has no entry of type ${SERVER_CARD_MEDIA_TYPE}: clients cannot find the server card`,
      REBUILD,
    );
    return;
  }
  const website = typeof card?.websiteUrl === 'string' ? card.websiteUrl : undefined;
  if (website === undefined) return;
  const expected = `${website.replace(/\/+$/, '')}/${SERVER_CARD_FILE}`;
  if (!cardEntries.some((entry) => entry.url === expected))
    report(
      AI_CATALOG_FILE,
      `points to ${cardEntries.map((entry) => String(entry.url)).join(', ')}, not to this site's card (${expected})`,
      REBUILD,
    );
}

/** Our card's `_meta` names the Skills extension exactly when the tree serves skills (server/discover declares it then). */
function checkCardSkills(card: JsonObject, manifest: JsonObject, stale: (message: string) => void): void {
  const named = isObject(card._meta) && SKILLS_EXTENSION_ID in card._meta;
  const extension = isObject(manifest.staticmcp) ? manifest.staticmcp.skills : undefined;
  const count = isObject(extension) && typeof extension.count === 'number' ? extension.count : 0;
  if (named && count === 0)
    stale(`names the Skills extension (${SKILLS_EXTENSION_ID}) in its _meta, but ${MANIFEST_FILE} serves no skills`);
  if (!named && count > 0)
    stale(
      `does not name the Skills extension (${SKILLS_EXTENSION_ID}) in its _meta, though ${MANIFEST_FILE} serves ${count === 1 ? '1 skill' : `${count} skills`} and server/discover declares it`,
    );
}

// `skills/list` and `skills/get` (the Skills extension, core/tree/skills.ts), answered from the
// tree's precomputed entries (`skills/list.json`, named in mcp.json's extension). The files
// themselves are ordinary resources, read by `resources/read`. Both eras get the same answer,
// with `resultType` and the cache hints the extension requires on both results.
import { type SkillEntry, readSkillEntries } from '../tree/skills.js';
import type { JsonObject } from '../tree/json-object.js';
import { INTERNAL_ERROR, INVALID_PARAMS, RpcError } from './json-rpc.js';
import { cacheHints } from './modern-results.js';
import { listHandler } from './pagination.js';
import type { RequestContext, ServerContext } from './server-context.js';

/** The tree's skill entries; none when it declares none. A listed file that is missing or broken is an internal error. */
async function skillEntries(server: ServerContext): Promise<SkillEntry[]> {
  const listFile = server.tree.extension?.skills?.list;
  if (listFile === undefined) return [];
  const file = await server.reader.readJson(listFile);
  if (file.kind === 'ok') return readSkillEntries(file.value);
  const reason = file.kind === 'broken' ? file.reason : 'the file is missing';
  server.logProblem(`skills: ${listFile}: ${reason}`);
  throw new RpcError(INTERNAL_ERROR, `The skill entries (${listFile}) cannot be read: ${reason}`);
}

/** What both results carry in every era: the extension's result type and cache hints. */
function completeResult(server: ServerContext, result: JsonObject): JsonObject {
  return { ...result, resultType: 'complete', ...cacheHints(server, 'tree') };
}

const listPage = listHandler('skills', 'skills', skillEntries, (entry) => entry);

export async function listSkills(
  server: ServerContext,
  params: JsonObject | undefined,
  request: RequestContext,
): Promise<JsonObject> {
  return completeResult(server, await listPage(server, params, request));
}

export async function getSkill(server: ServerContext, params: JsonObject | undefined): Promise<JsonObject> {
  const uri = params?.uri;
  if (typeof uri !== 'string')
    throw new RpcError(INVALID_PARAMS, "skills/get needs params.uri (the URI of a skill's SKILL.md)");
  const skill = (await skillEntries(server)).find((entry) => entry.uri === uri);
  if (!skill) throw new RpcError(INVALID_PARAMS, `No skill is served at ${uri}`, { uri });
  return completeResult(server, { skill });
}

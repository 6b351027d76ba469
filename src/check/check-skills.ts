// The skills of a tree (core/tree/skills.ts): every file a skill's entry lists must be in the
// tree, and what `resources/read` returns for it (text as UTF-8 bytes, a blob decoded) must have
// the entry's digest and size, the check a host makes before it uses the file.
import { createHash } from 'node:crypto';
import type { CachedTreeReader } from '../core/tree-reading/cached-tree-reader.js';
import { isObject, type JsonObject } from '../core/tree/json-object.js';
import { EXTENSION_KEY } from '../core/tree/manifest.js';
import { readResourceFile } from '../core/tree/lenient-files.js';
import { resourceFilePath } from '../core/tree/resource-key.js';
import { readSkillEntries } from '../core/tree/skills.js';
import { at, REBUILD, type Report } from './tree-problem.js';

/** The bytes a client gets from one contents item, or undefined when it has neither text nor blob. */
function bytesOf(item: JsonObject | undefined): Buffer | undefined {
  if (typeof item?.text === 'string') return Buffer.from(item.text, 'utf8');
  if (typeof item?.blob === 'string') return Buffer.from(item.blob, 'base64');
  return undefined;
}

/** Returns the number of skill files checked. */
export async function checkSkills(extension: JsonObject, reader: CachedTreeReader, report: Report): Promise<number> {
  const skills = extension.skills;
  if (skills === undefined) return 0;
  if (!isObject(skills) || typeof skills.list !== 'string') {
    report(at(EXTENSION_KEY, 'skills'), 'is not {count, list}', REBUILD);
    return 0;
  }
  const listFile = await reader.readJson(skills.list);
  if (listFile.kind !== 'ok') {
    report(skills.list, listFile.kind === 'broken' ? listFile.reason : 'is missing', REBUILD);
    return 0;
  }
  const entries = readSkillEntries(listFile.value);
  if (entries.length !== skills.count)
    report(
      skills.list,
      `holds ${entries.length} usable skill entries, but mcp.json says ${String(skills.count)}`,
      REBUILD,
    );
  const checked = new Map<string, string | undefined>();
  for (const entry of entries) {
    if (entry.resources === 'dynamic') continue;
    for (const { uri, digest, size } of entry.resources) {
      // A nested skill's files are in its enclosing skill's entry too: read and report each once.
      if (!checked.has(uri)) checked.set(uri, await findMismatch(reader, uri, digest, size));
      const problem = checked.get(uri);
      if (problem !== undefined) report(resourceFilePath(uri), `${problem} (the skill ${entry.uri})`, REBUILD);
    }
  }
  return checked.size;
}

async function findMismatch(
  reader: CachedTreeReader,
  uri: string,
  digest: string,
  size: number,
): Promise<string | undefined> {
  const file = await reader.readJson(resourceFilePath(uri));
  if (file.kind === 'missing') return `is missing, but ${uri} is a file of a skill`;
  if (file.kind === 'broken') return `cannot be read (${file.reason})`;
  const bytes = bytesOf(readResourceFile(file.value, uri, undefined)[0]);
  if (!bytes) return `holds no text or blob for ${uri}`;
  if (bytes.length !== size) return `serves ${bytes.length} bytes for ${uri}, but its skill's entry says ${size}`;
  const actual = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
  if (actual !== digest)
    return `no longer matches its digest: ${uri} serves ${actual}, but its skill's entry says ${digest} (a host refuses the file)`;
  return undefined;
}

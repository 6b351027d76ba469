// The Skills extension (io.modelcontextprotocol/skills, modelcontextprotocol/ext-skills
// `specification/stable/skills.mdx`) as a tree carries it: each file of a skill folder is a
// `skill://` resource whose file lives under `skills/files/` (its own folder, so `skill://a/b` and
// `resource://a/b` never share a file), and `skills/list.json` holds every skill's entry (verbatim
// front matter, and a manifest of its files with `sha256:` digests and sizes), which answers both
// `skills/list` and `skills/get`. Shared by the build, `check` and every host. Portable.
import { isObject } from './json-object.js';

export const SKILLS_EXTENSION_ID = 'io.modelcontextprotocol/skills';
export const SKILL_URI_SCHEME = 'skill://';
/** The file every skill has at its root; its URI names the skill. */
export const SKILL_FILE = 'SKILL.md';
/** Where a tree keeps the skill entries: `{ "skills": [Skill, …] }`. */
export const SKILLS_LIST_FILE = 'skills/list.json';
/** The folder of skill files inside a tree (resource-key.ts puts every `skill://` URI there). */
export const SKILL_FILES_FOLDER = 'skills/files';
/** The reserved `_meta` prefix for front-matter fields on a SKILL.md resource. */
export const SKILL_META_PREFIX = 'io.modelcontextprotocol.skills/';

/** One file of a skill: its URI, the `sha256:` digest and the byte length of what `resources/read` returns. */
export interface SkillResource {
  uri: string;
  digest: string;
  size: number;
}

/** A skill's entry, as `skills/list` and `skills/get` return it. */
export interface SkillEntry {
  uri: string;
  frontmatter: { name: string; description: string; [field: string]: unknown };
  resources: SkillResource[] | 'dynamic';
}

/** What `mcp.json`'s extension says about skills: how many, and where their entries are. */
export interface SkillsExtension {
  count: number;
  list: string;
}

export function isSkillUri(uri: string): boolean {
  return uri.startsWith(SKILL_URI_SCHEME);
}

/** The extension's settings as a server declares them in `capabilities.extensions`: `resources/directory/read` is answered. */
export function skillsExtensionSettings(): Record<string, unknown> {
  return { directoryRead: true };
}

const DIGEST = /^sha256:[0-9a-f]{64}$/;

/** Whether a value read from a tree is a usable entry (a foreign or damaged one is left out, never served). */
export function isSkillEntry(value: unknown): value is SkillEntry {
  if (!isObject(value) || typeof value.uri !== 'string' || !isObject(value.frontmatter)) return false;
  const { name, description } = value.frontmatter;
  if (typeof name !== 'string' || typeof description !== 'string') return false;
  if (value.resources === 'dynamic') return true;
  return (
    Array.isArray(value.resources) &&
    value.resources.every(
      (resource) =>
        isObject(resource) &&
        typeof resource.uri === 'string' &&
        typeof resource.digest === 'string' &&
        DIGEST.test(resource.digest) &&
        typeof resource.size === 'number',
    )
  );
}

/** The entries of a `skills/list.json` value, those that are not entries left out. */
export function readSkillEntries(value: unknown): SkillEntry[] {
  const skills = isObject(value) ? value.skills : undefined;
  return Array.isArray(skills) ? skills.filter(isSkillEntry) : [];
}

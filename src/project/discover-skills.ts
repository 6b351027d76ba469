// A project's `skills/` folder → Agent Skills served by the Skills extension (core/tree/skills.ts):
// every folder holding a SKILL.md is a skill (nested ones too), every file under it a `skill://`
// resource, and each skill an entry with its verbatim front matter and the digests and sizes of
// its files. The digests are of the bytes a client gets back from `resources/read`: a text file
// (valid UTF-8) is published as `text` unchanged (CRLF and a BOM kept), anything else as a base64
// `blob`, so both are the file's own bytes. The Agent Skills rules are enforced per skill (a bad
// skill is refused, naming its file; the rest build), and what importers would refuse is a warning.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { isTextContent } from '../core/tree/resource-content.js';
import { resourceFilePath } from '../core/tree/resource-key.js';
import {
  SKILL_FILE,
  SKILL_META_PREFIX,
  SKILL_URI_SCHEME,
  type SkillEntry,
  type SkillResource,
} from '../core/tree/skills.js';
import { readFailureReason, readProjectFile } from '../shared/read-regular-file.js';
import type { ProjectResource } from './project-resource.js';
import { walkFolder } from './walk-folder.js';

export const SKILLS_FOLDER = 'skills';
/** Path segments below skills/ a file may have (prefix folders, the skill, its own folders). */
const MAX_SKILL_DEPTH = 12;
/** Agent Skills: 1–64 lowercase letters, digits and single hyphens, not at either end. */
const SKILL_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const MAX_NAME_LENGTH = 64;
const MAX_DESCRIPTION_LENGTH = 1024;
/** The Skills extension's per-skill caps (hosts need not load more). */
export const SPEC_MAX_RESOURCES_PER_SKILL = 512;
export const SPEC_MAX_SKILL_BYTES = 16 * 1024 * 1024;
/** OpenAI's plugin import: the skills it reads from skills/list, and the largest SKILL.md it takes. */
export const OPENAI_MAX_SKILLS = 5;
export const OPENAI_MAX_SKILL_FILE_BYTES = 256 * 1024;

export interface SkillLimits {
  /** A file larger than this is skipped, with a warning (limits.maxSkillFileBytes). */
  maxSkillFileBytes: number;
  /** A SKILL.md whose front matter is larger is refused before it is parsed (limits.maxSkillFrontMatterBytes). */
  maxSkillFrontMatterBytes: number;
}

/** Problems name files by their project path (`skills/…`). */
export interface SkillNotice {
  path: string;
  message: string;
}

export interface SkillDiscovery {
  /** Every published file once (a nested skill's files belong to its enclosing skill too). */
  resources: ProjectResource[];
  /** One entry per skill, in path order. */
  skills: SkillEntry[];
  /** Skills refused (each names its SKILL.md); the others still build. */
  problems: SkillNotice[];
  warnings: SkillNotice[];
}

interface SkillFile {
  /** Path inside skills/. */
  relativePath: string;
  uri: string;
  bytes: Buffer;
  mimeType: string;
  digest: string;
}

/** `a/b c/SKILL.md` → `skill://a/b%20c/SKILL.md`: each segment a valid URI segment, the rest as is. */
export function skillFileUri(relativePath: string): string {
  return `${SKILL_URI_SCHEME}${relativePath.split('/').map(encodeURIComponent).join('/')}`;
}

const shown = (relativePath: string): string => `${SKILLS_FOLDER}/${relativePath}`;

export async function discoverSkills(projectRoot: string, limits: SkillLimits): Promise<SkillDiscovery> {
  const discovery: SkillDiscovery = { resources: [], skills: [], problems: [], warnings: [] };
  const walked = await walkFolder(path.join(projectRoot, SKILLS_FOLDER), {
    maxDepth: MAX_SKILL_DEPTH,
    tooDeepMessage: `is deeper than ${MAX_SKILL_DEPTH} levels below skills/; its files are not published`,
  });
  for (const notice of walked.notices)
    discovery.warnings.push({ path: shown(notice.relativePath), message: notice.message });
  const roots = walked.files
    .filter((file) => path.posix.basename(file.relativePath) === SKILL_FILE)
    .map((file) => path.posix.dirname(file.relativePath));
  if (roots.includes('.')) {
    discovery.problems.push({
      path: shown(SKILL_FILE),
      message: 'a skill is a folder named like the skill: move it to skills/<name>/SKILL.md',
    });
  }
  const skillRoots = roots.filter((root) => root !== '.');
  const insideSomeSkill = (relativePath: string): boolean =>
    skillRoots.some((root) => relativePath.startsWith(`${root}/`));

  const files = new Map<string, SkillFile>();
  // Tree file → the skill file there: two names that encode alike (`a.md`, `A.md`) would share one.
  const treeFiles = new Map<string, string>();
  // The MIME database loads only for a project with skill files other than SKILL.md.
  let mimeTypes: typeof import('./mime-type.js') | undefined;
  for (const { file, relativePath } of walked.files) {
    if (!insideSomeSkill(relativePath)) {
      if (path.posix.basename(relativePath) !== SKILL_FILE)
        discovery.warnings.push({
          path: shown(relativePath),
          message: 'is in no skill folder (no SKILL.md above it), so it is not published',
        });
      continue;
    }
    const uri = skillFileUri(relativePath);
    const treeFile = resourceFilePath(uri);
    const holder = treeFiles.get(treeFile);
    if (holder !== undefined) {
      discovery.warnings.push({
        path: shown(relativePath),
        message: `would be stored in the tree as ${treeFile}, like ${shown(holder)} (their names differ only in case or punctuation); skipped: rename one`,
      });
      continue;
    }
    treeFiles.set(treeFile, relativePath);
    const read = await readSkillFile(file, projectRoot, limits);
    if ('problem' in read) {
      discovery.warnings.push({ path: shown(relativePath), message: read.problem });
      continue;
    }
    let mimeType = 'text/markdown';
    if (path.posix.basename(relativePath) !== SKILL_FILE) {
      mimeTypes ??= await import('./mime-type.js');
      mimeType = mimeTypes.mimeTypeFor(relativePath);
    }
    files.set(relativePath, {
      relativePath,
      uri,
      bytes: read.bytes,
      mimeType,
      digest: `sha256:${createHash('sha256').update(read.bytes).digest('hex')}`,
    });
  }

  // The YAML parser is loaded only by projects that have skills.
  const frontMatter = skillRoots.length > 0 ? await import('./yaml-front-matter.js') : undefined;
  const published = new Set<string>();
  const names = new Map<string, string>();
  for (const root of skillRoots.sort()) {
    const skillFile = files.get(`${root}/${SKILL_FILE}`);
    if (!skillFile) continue; // skipped above, with its reason
    const fields = validateSkill(skillFile, path.posix.basename(root), (text) =>
      frontMatter!.readFrontMatterObject(text, {
        value: limits.maxSkillFrontMatterBytes,
        name: 'limits.maxSkillFrontMatterBytes',
      }),
    );
    if ('problem' in fields) {
      discovery.problems.push({
        path: shown(skillFile.relativePath),
        message: `${fields.problem}; the skill is not published`,
      });
      continue;
    }
    const own = [...files.values()]
      .filter((file) => file.relativePath.startsWith(`${root}/`))
      .sort((left, right) => fileOrder(left, right, skillFile));
    const resources: SkillResource[] = own.map((file) => ({
      uri: file.uri,
      digest: file.digest,
      size: file.bytes.length,
    }));
    discovery.skills.push({ uri: skillFile.uri, frontmatter: fields.fields, resources });
    for (const file of own) published.add(file.relativePath);
    warnAboutSize(discovery, skillFile, resources);
    const name = fields.fields.name;
    const other = names.get(name);
    if (other !== undefined)
      discovery.warnings.push({
        path: shown(skillFile.relativePath),
        message: `has the name "${name}" of ${shown(other)} too; hosts tell them apart by path, but a user sees two skills of one name`,
      });
    else names.set(name, skillFile.relativePath);
  }
  if (discovery.skills.length > OPENAI_MAX_SKILLS)
    discovery.warnings.push({
      path: `${SKILLS_FOLDER}/`,
      message: `${discovery.skills.length} skills: OpenAI's plugin import reads at most ${OPENAI_MAX_SKILLS} from skills/list`,
    });
  const entriesByUri = new Map(discovery.skills.map((skill) => [skill.uri, skill]));
  for (const relativePath of [...published].sort()) {
    const file = files.get(relativePath)!;
    discovery.resources.push(projectResourceOf(file, entriesByUri.get(file.uri)));
  }
  return discovery;
}

/** SKILL.md first, then the rest in code-unit order of their URIs. */
function fileOrder(left: SkillFile, right: SkillFile, skillFile: SkillFile): number {
  if (left === skillFile) return -1;
  if (right === skillFile) return 1;
  return left.uri < right.uri ? -1 : left.uri > right.uri ? 1 : 0;
}

async function readSkillFile(
  file: string,
  projectRoot: string,
  limits: SkillLimits,
): Promise<{ bytes: Buffer } | { problem: string }> {
  try {
    // Before reading: a 100 MB file is refused by its size, not after filling memory.
    const { size } = await fs.stat(file);
    if (size > limits.maxSkillFileBytes)
      return {
        problem: `is ${size} bytes, over limits.maxSkillFileBytes (${limits.maxSkillFileBytes}); skipped (raise the limit in staticmcp.json to publish it)`,
      };
    return { bytes: await readProjectFile(file, projectRoot) };
  } catch (error) {
    return { problem: `cannot be read (${readFailureReason(error)}); skipped` };
  }
}

/** The Agent Skills rules for one SKILL.md: front matter, name (= its folder), description. */
function validateSkill(
  skillFile: SkillFile,
  folderName: string,
  readFrontMatter: (text: string) => ReturnType<typeof import('./yaml-front-matter.js').readFrontMatterObject>,
): { fields: SkillEntry['frontmatter'] } | { problem: string } {
  if (!isTextContent('text/markdown', skillFile.bytes)) return { problem: 'is not UTF-8 text' };
  const read = readFrontMatter(skillFile.bytes.toString('utf8'));
  if ('problem' in read) return read;
  const { name, description } = read.fields;
  if (typeof name !== 'string' || name === '') return { problem: 'has no "name" in its front matter' };
  if ([...name].length > MAX_NAME_LENGTH || !SKILL_NAME.test(name))
    return {
      problem: `has the name "${name.slice(0, 80)}", which is not an Agent Skills name: 1-${MAX_NAME_LENGTH} lowercase letters, digits and hyphens, no hyphen at either end or twice in a row`,
    };
  if (name !== folderName)
    return { problem: `has the name "${name}" but its folder is "${folderName}": they must be equal (rename one)` };
  if (typeof description !== 'string' || description.trim() === '')
    return { problem: 'has no "description" in its front matter (say what the skill does and when to use it)' };
  const length = [...description].length;
  if (length > MAX_DESCRIPTION_LENGTH)
    return {
      problem: `has a description of ${length} characters, over the ${MAX_DESCRIPTION_LENGTH} Agent Skills allow`,
    };
  return { fields: { ...read.fields, name, description } };
}

function warnAboutSize(discovery: SkillDiscovery, skillFile: SkillFile, resources: SkillResource[]): void {
  const path = shown(skillFile.relativePath);
  if (skillFile.bytes.length > OPENAI_MAX_SKILL_FILE_BYTES)
    discovery.warnings.push({
      path,
      message: `is ${skillFile.bytes.length} bytes: OpenAI's plugin import takes a SKILL.md of at most ${OPENAI_MAX_SKILL_FILE_BYTES}`,
    });
  const total = resources.reduce((sum, resource) => sum + resource.size, 0);
  if (resources.length > SPEC_MAX_RESOURCES_PER_SKILL || total > SPEC_MAX_SKILL_BYTES)
    discovery.warnings.push({
      path,
      message: `its skill has ${resources.length} files and ${total} bytes, over the Skills extension's caps (${SPEC_MAX_RESOURCES_PER_SKILL} files, ${SPEC_MAX_SKILL_BYTES} bytes): hosts need not load it`,
    });
}

/** A published file as a resource: text when it is UTF-8 (its bytes unchanged), else a base64 blob. */
function projectResourceOf(file: SkillFile, entry: SkillEntry | undefined): ProjectResource {
  const text = isTextContent(file.mimeType, file.bytes) ? file.bytes.toString('utf8') : undefined;
  const relativeInSkills = file.relativePath;
  const base = {
    uri: file.uri,
    mimeType: file.mimeType,
    relativePath: relativeInSkills,
    shownPath: shown(relativeInSkills),
    content: text !== undefined ? { text } : { blob: file.bytes.toString('base64') },
    size: file.bytes.length,
  };
  if (!entry)
    return {
      ...base,
      name: path.posix.basename(file.relativePath),
      description: `${SKILLS_FOLDER}/${file.relativePath}`,
    };
  // A SKILL.md: name and description from its front matter, the other fields under the reserved prefix.
  const { name, description, ...rest } = entry.frontmatter;
  const meta = Object.fromEntries(Object.entries(rest).map(([key, value]) => [`${SKILL_META_PREFIX}${key}`, value]));
  return { ...base, name, description, ...(Object.keys(meta).length > 0 ? { meta } : {}) };
}

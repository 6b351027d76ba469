// The landing page's Skills section (landing-page.ts puts it after the tools): each skill of the
// tree with its name, path, description and files, so a person sees what an agent would be told
// before connecting. Static HTML with the page's own classes; nothing when the tree has no skills,
// so other trees' pages stay as they were.
import { SKILL_FILE, SKILL_URI_SCHEME, SKILLS_LIST_FILE, type SkillEntry } from '../core/tree/skills.js';
import { clipText, escapeHtml } from './page-text.js';

/** Files listed per skill; the rest are counted (a skill may hold hundreds, all in skills/list.json). */
const FILES_SHOWN_PER_SKILL = 50;
/** Skills listed on the page; the rest are counted, so a tree of thousands keeps a page a browser opens. */
const SKILLS_SHOWN = 200;

export function renderSkillsSection(skills: readonly SkillEntry[]): string {
  if (skills.length === 0) return '';
  return [
    // The page's other sections' shape (landing-page.ts): a section that collapses.
    '<details open class="section" id="skills">',
    `<summary><h2 id="skills-title">Skills (${skills.length})</h2></summary>`,
    '<div class="list">',
    '<p>Instructions for agents on using this server, as <a href="https://agentskills.io/specification">Agent Skills</a>. ' +
      'Clients that know the <a href="https://github.com/modelcontextprotocol/ext-skills">Skills extension</a> list them with <code>skills/list</code>; ' +
      'every file is also a resource, listed below.</p>',
    ...skills.slice(0, SKILLS_SHOWN).map(renderSkill),
    ...(skills.length > SKILLS_SHOWN
      ? [`<p class="muted">And ${skills.length - SKILLS_SHOWN} more skills, in ${SKILLS_LIST_FILE}.</p>`]
      : []),
    '</div>',
    '</details>',
  ].join('\n');
}

function renderSkill(skill: SkillEntry): string {
  const skillPath = skillPathOf(skill.uri);
  const { name, description } = skill.frontmatter;
  const mark = skillPath !== name ? ` <span class="mark">${escapeHtml(skillPath)}</span>` : '';
  return (
    `<article class="skill" data-skill="${escapeHtml(skill.uri)}"><h3><code>${escapeHtml(name)}</code>${mark}</h3>` +
    `<p>${escapeHtml(clipText(description, SKILLS_LIST_FILE))}</p>${renderFiles(skill)}</article>`
  );
}

function renderFiles(skill: SkillEntry): string {
  if (skill.resources === 'dynamic') return '<p class="muted">Its files are made when they are read.</p>';
  const root = skill.uri.slice(0, -SKILL_FILE.length);
  const shown = skill.resources.slice(0, FILES_SHOWN_PER_SKILL).map((resource) => {
    const file = resource.uri.startsWith(root) ? readablePath(resource.uri.slice(root.length)) : resource.uri;
    return `<li><code>${escapeHtml(file)}</code> <span class="muted">${sizeText(resource.size)}</span></li>`;
  });
  const rest = skill.resources.length - shown.length;
  const more = rest > 0 ? `<li class="muted">and ${rest} more files (in ${SKILLS_LIST_FILE})</li>` : '';
  return `<p class="muted">Files (${skill.resources.length}):</p><ul>${shown.join('')}${more}</ul>`;
}

/** `skill://acme/billing/refunds/SKILL.md` → `acme/billing/refunds` (decoded for reading). */
function skillPathOf(uri: string): string {
  const withoutScheme = uri.startsWith(SKILL_URI_SCHEME) ? uri.slice(SKILL_URI_SCHEME.length) : uri;
  return readablePath(withoutScheme.slice(0, -`/${SKILL_FILE}`.length));
}

/** Percent-decoded where that is valid (the URI keeps each segment encoded), else as written. */
function readablePath(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

function sizeText(bytes: number): string {
  if (bytes < 1024) return bytes === 1 ? '1 byte' : `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

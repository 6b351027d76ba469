// The landing page's Skills section (src/tree-writer/landing-skills.ts) from skill entries: text from
// the tree is escaped, and a tree of many skills, or a skill of many files, keeps a page of bounded
// size, counting what it leaves out.
import { describe, expect, it } from 'vitest';
import type { SkillEntry } from '../../src/core/tree/skills.js';
import { renderSkillsSection } from '../../src/tree-writer/landing-skills.js';

const DIGEST = `sha256:${'0'.repeat(64)}`;

function entry(name: string, files: string[] = [], description = `Does ${name} things.`): SkillEntry {
  const root = `skill://${name}/`;
  return {
    uri: `${root}SKILL.md`,
    frontmatter: { name, description },
    resources: ['SKILL.md', ...files].map((file, index) => ({
      uri: `${root}${file}`,
      digest: DIGEST,
      size: index * 700,
    })),
  };
}

describe('renderSkillsSection', () => {
  it('is empty for a tree without skills', () => {
    expect(renderSkillsSection([])).toBe('');
  });

  it('escapes what the tree says, decodes file paths, and gives sizes', () => {
    const html = renderSkillsSection([
      entry('tricky', ['a%20b/c.md', 'd.bin'], '<script>alert(1)</script> & "quotes"'),
    ]);
    expect(html).not.toContain('<script>');
    expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62; &#38; &#34;quotes&#34;');
    expect(html).toContain('<li><code>a b/c.md</code> <span class="muted">700 bytes</span></li>');
    expect(html).toContain('<li><code>d.bin</code> <span class="muted">1.4 KiB</span></li>');
  });

  it('lists the first 200 skills and 50 files of each, and counts the rest', () => {
    const many = Array.from({ length: 203 }, (_, index) => entry(`s${index}`));
    many[0] = entry(
      's0',
      Array.from({ length: 59 }, (_, index) => `f${index}.md`),
    );
    const html = renderSkillsSection(many);
    expect(html).toContain('<h2 id="skills-title">Skills (203)</h2>');
    expect(html.match(/<article class="skill"/g)).toHaveLength(200);
    expect(html).toContain('And 3 more skills, in skills/list.json.');
    expect(html).toContain('Files (60):');
    expect(html).toContain('and 10 more files (in skills/list.json)');
  });
});

// A project's skills/ folder read by discoverSkills against the real disk: one good skill beside
// every kind of bad input the issue names (no front matter, a name unlike its folder, 1 MB of
// front matter, a billion-laughs document, a symlink out of the project, a FIFO, a 100 MB file,
// two skills of one name, two file names the tree would store alike). Each bad one gets a message naming its file; the good one is published
// whole, with digests of its files' own bytes; nothing outside the project is read.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultLimits } from '../../src/project/config.js';
import { discoverSkills, type SkillDiscovery } from '../../src/project/discover-skills.js';
import { writeProject } from '../helpers/projects.js';
import { temporaryFolder } from '../helpers/temp-folders.js';
import { cpuMsSince } from '../helpers/cpu-time.js';

const skill = (name: string, body = '# Body\n', extra = ''): string =>
  `---\nname: ${name}\ndescription: Does ${name} things.\n${extra}---\n\n${body}`;

const BILLION_LAUGHS = [
  '---',
  'name: laughs',
  'description: lol',
  'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
  'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]',
  'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]',
  'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]',
  'e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]',
  'f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]',
  'g: [*f,*f,*f,*f,*f,*f,*f,*f,*f]',
  '---',
  '',
].join('\n');

const sha256 = (bytes: string | Buffer): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

let project: string;
let outside: string;
let found: SkillDiscovery;
let tookCpuMs: number;

beforeAll(async () => {
  outside = path.join(await temporaryFolder('staticmcp-outside-'), 'secret.txt');
  await fs.writeFile(outside, 'not for publishing\n');
  project = await writeProject({
    'skills/good/SKILL.md': skill('good', '# Good\r\n\r\nWindows line endings stay.\r\n'),
    'skills/good/references/guide.md': '\uFEFFA guide with a byte-order mark.\n',
    'skills/good/assets/logo.bin': Buffer.from([0, 1, 2, 0xff, 0xfe]),
    // Stored like references/guide.md (guide_md.json): the second name in path order is skipped.
    'skills/good/references/guide_md': 'a name that encodes like guide.md\n',
    'skills/no-front/SKILL.md': '# No front matter\n',
    'skills/renamed/SKILL.md': skill('other-name'),
    'skills/Upper/SKILL.md': skill('Upper'),
    'skills/no-description/SKILL.md': '---\nname: no-description\n---\n',
    'skills/bom/SKILL.md': `\uFEFF${skill('bom')}`,
    'skills/laughs/SKILL.md': BILLION_LAUGHS,
    // 1 MB of front matter: 20,000 keys, which would hold the YAML parser far longer than their size suggests.
    'skills/huge-front/SKILL.md': skill(
      'huge-front',
      '',
      Array.from({ length: 20_000 }, (_, index) => `k${index}: ${'v'.repeat(45)}\n`).join(''),
    ),
    'skills/big-body/SKILL.md': skill('big-body', `${'A long body line.\n'.repeat(16_000)}`),
    'skills/team-a/tools/SKILL.md': skill('tools'),
    'skills/team-b/tools/SKILL.md': skill('tools'),
    'skills/stray.md': 'not in a skill\n',
    'skills/SKILL.md': skill('skills'),
  });
  await fs.symlink(outside, path.join(project, 'skills/good/leak.txt'));
  execFileSync('mkfifo', [path.join(project, 'skills/good/pipe')]);
  // Sparse: 100 MB on paper, nothing on disk, refused by its size before a byte is read.
  await fs.writeFile(path.join(project, 'skills/good/big.dat'), '');
  await fs.truncate(path.join(project, 'skills/good/big.dat'), 100 * 1024 * 1024);
  const start = process.cpuUsage();
  found = await discoverSkills(project, defaultLimits());
  tookCpuMs = cpuMsSince(start);
});

const messageFor = (notices: SkillDiscovery['problems'], file: string): string | undefined =>
  notices.find((notice) => notice.path === file)?.message;

describe('discoverSkills', () => {
  it('publishes the good skill whole, each file with the digest of its own bytes', async () => {
    const good = found.skills.find((entry) => entry.uri === 'skill://good/SKILL.md');
    expect(good?.frontmatter).toEqual({ name: 'good', description: 'Does good things.' });
    const own = (relative: string): Promise<Buffer> => fs.readFile(path.join(project, 'skills/good', relative));
    const expected = [];
    for (const relative of ['SKILL.md', 'assets/logo.bin', 'references/guide.md']) {
      const bytes = await own(relative);
      expected.push({ uri: `skill://good/${relative}`, digest: sha256(bytes), size: bytes.length });
    }
    expect(good?.resources).toEqual(expected);
    // Text stays the file's text (CRLF and BOM kept); bytes that are not UTF-8 are a blob.
    const resource = (uri: string) => found.resources.find((candidate) => candidate.uri === uri);
    expect(resource('skill://good/SKILL.md')?.content).toEqual({ text: expect.stringContaining('endings stay.\r\n') });
    expect(resource('skill://good/references/guide.md')?.content).toEqual({
      text: '\uFEFFA guide with a byte-order mark.\n',
    });
    expect(resource('skill://good/assets/logo.bin')?.content).toEqual({ blob: 'AAEC//4=' });
  });

  it('refuses each bad SKILL.md with a message naming it, and builds the rest', () => {
    expect(messageFor(found.problems, 'skills/no-front/SKILL.md')).toMatch(/has no YAML front matter/);
    expect(messageFor(found.problems, 'skills/renamed/SKILL.md')).toMatch(
      /name "other-name" but its folder is "renamed"/,
    );
    expect(messageFor(found.problems, 'skills/Upper/SKILL.md')).toMatch(/not an Agent Skills name/);
    expect(messageFor(found.problems, 'skills/no-description/SKILL.md')).toMatch(/no "description"/);
    expect(messageFor(found.problems, 'skills/bom/SKILL.md')).toMatch(/byte-order mark/);
    expect(messageFor(found.problems, 'skills/laughs/SKILL.md')).toMatch(/not valid YAML \(.*alias/i);
    expect(messageFor(found.problems, 'skills/SKILL.md')).toMatch(/move it to skills\/<name>\/SKILL.md/);
    expect(messageFor(found.problems, 'skills/huge-front/SKILL.md')).toMatch(
      /has 10\d{5} bytes of front matter, over limits\.maxSkillFrontMatterBytes \(65536\).*the skill is not published$/,
    );
    expect(found.skills.map((entry) => entry.uri)).toEqual([
      'skill://big-body/SKILL.md',
      'skill://good/SKILL.md',
      'skill://team-a/tools/SKILL.md',
      'skill://team-b/tools/SKILL.md',
    ]);
    // A refused skill publishes nothing.
    expect(found.resources.some((resource) => resource.uri.startsWith('skill://laughs/'))).toBe(false);
  });

  it('skips what is not the project’s regular files, saying why, and reads nothing outside', () => {
    expect(messageFor(found.warnings, 'skills/good/leak.txt')).toMatch(/leads outside the project/);
    expect(messageFor(found.warnings, 'skills/good/pipe')).toMatch(/not a regular file/);
    expect(messageFor(found.warnings, 'skills/good/big.dat')).toMatch(
      /104857600 bytes, over limits\.maxSkillFileBytes \(16777216\)/,
    );
    expect(messageFor(found.warnings, 'skills/stray.md')).toMatch(/in no skill folder/);
    expect(messageFor(found.warnings, 'skills/good/references/guide_md')).toMatch(
      /stored in the tree as skills\/files\/good\/references\/guide_md\.json, like skills\/good\/references\/guide\.md/,
    );
    const published = found.resources.map((resource) => resource.uri);
    for (const skipped of ['leak.txt', 'pipe', 'big.dat', 'references/guide_md'])
      expect(published).not.toContain(`skill://good/${skipped}`);
    expect(JSON.stringify(found)).not.toContain('not for publishing');
  });

  it('warns where importers or the specification draw a line, and about a repeated name', () => {
    expect(messageFor(found.warnings, 'skills/big-body/SKILL.md')).toMatch(
      /OpenAI's plugin import takes a SKILL.md of at most 262144/,
    );
    expect(messageFor(found.warnings, 'skills/team-b/tools/SKILL.md')).toMatch(
      /name "tools" of skills\/team-a\/tools\/SKILL.md too/,
    );
    // 1 MB of front matter is refused before it is parsed, not a hang (CPU time: a busy machine does
    // not stretch it).
    expect(tookCpuMs).toBeLessThan(10_000);
  });

  it('warns past five skills (OpenAI) and past the per-skill caps of the specification', async () => {
    const many: Record<string, string> = {};
    for (let index = 1; index <= 6; index++) many[`skills/s${index}/SKILL.md`] = skill(`s${index}`);
    for (let index = 0; index < 513; index++) many[`skills/s1/files/f${index}.txt`] = `${index}\n`;
    const more = await discoverSkills(await writeProject(many), defaultLimits());
    expect(messageFor(more.warnings, 'skills/')).toMatch(/6 skills: OpenAI's plugin import reads at most 5/);
    expect(messageFor(more.warnings, 'skills/s1/SKILL.md')).toMatch(/514 files .* over the Skills extension's caps/);
  });
});

it('publishes a front matter over the default when limits.maxSkillFrontMatterBytes is raised', async () => {
  const notes = `notes: "${'n'.repeat(100_000)}"\n`;
  const project = await writeProject({ 'skills/long-notes/SKILL.md': skill('long-notes', '', notes) });
  const refused = await discoverSkills(project, defaultLimits());
  expect(messageFor(refused.problems, 'skills/long-notes/SKILL.md')).toMatch(/over limits\.maxSkillFrontMatterBytes/);
  const raised = await discoverSkills(project, { ...defaultLimits(), maxSkillFrontMatterBytes: 200_000 });
  expect(raised.problems).toEqual([]);
  expect(raised.skills[0]?.frontmatter.notes).toHaveLength(100_000);
});

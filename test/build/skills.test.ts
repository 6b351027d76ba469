// Skills through the real CLI: a project with the fixture's skills and one bad skill builds the
// good ones (exit 1, the bad SKILL.md named), with skill files in their own folder of the tree
// and their entries in skills/list.json, listed on the landing page; `check` passes it, and reports a skill file edited after
// the build by its digest; shards merged into a packed tree keep them; a rebuild without a skill
// leaves none of its files behind; a project without skills declares nothing. The shard parts,
// the rebuild, the project without skills and check (of the tree, its tampered copy and the
// merged tree) run the commands' decisions in-process.
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildJson, runCli } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { writeProject } from '../helpers/projects.js';
import { temporaryFolderSync } from '../helpers/temp-folders.js';
import { checkSource } from '../../src/cli/commands/check.js';
import { buildInProcess } from '../helpers/in-process-build.js';

let project: string;
let report: Awaited<ReturnType<typeof buildJson>>;

beforeAll(async () => {
  project = path.join(temporaryFolderSync('staticmcp-skills-build-'), 'project');
  cpSync(path.join(REPO_ROOT, 'test/fixtures/skills-project'), project, { recursive: true });
  mkdirSync(path.join(project, 'skills/wrong-folder'));
  writeFileSync(
    path.join(project, 'skills/wrong-folder/SKILL.md'),
    '---\nname: right-name\ndescription: Named unlike its folder.\n---\n',
  );
});

describe('build', () => {
  beforeAll(async () => {
    report = await buildJson(project);
  });

  it('publishes the good skills and names the bad SKILL.md', () => {
    expect(report.code).toBe(1);
    expect(report.report.failures).toEqual([
      {
        path: 'skills/wrong-folder/SKILL.md',
        message:
          'has the name "right-name" but its folder is "wrong-folder": they must be equal (rename one); the skill is not published',
      },
    ]);
    const tree = path.join(project, 'dist');
    const manifest = JSON.parse(readFileSync(path.join(tree, 'mcp.json'), 'utf8')) as {
      staticmcp: { skills?: unknown };
    };
    expect(manifest.staticmcp.skills).toEqual({ count: 3, list: 'skills/list.json' });
    const list = JSON.parse(readFileSync(path.join(tree, 'skills/list.json'), 'utf8')) as { skills: { uri: string }[] };
    expect(list.skills.map((skill) => skill.uri)).toEqual([
      'skill://acme/billing/refunds/SKILL.md',
      'skill://acme/billing/refunds/chargebacks/SKILL.md',
      'skill://greeting-etiquette/SKILL.md',
    ]);
    // Their own folder: never where a resource://greeting-etiquette/SKILL.md would be.
    expect(existsSync(path.join(tree, 'skills/files/greeting-etiquette/skill_md.json'))).toBe(true);
    expect(existsSync(path.join(tree, 'resources'))).toBe(false);
  });

  it('the landing page lists each skill with its description and files', () => {
    const page = readFileSync(path.join(project, 'dist/index.html'), 'utf8');
    expect(page).toContain('<h2 id="skills-title">Skills (3)</h2>');
    const skill = (uri: string): string => {
      const start = page.indexOf(`<article class="skill" data-skill="${uri}">`);
      expect(start, uri).toBeGreaterThan(-1);
      return page.slice(start, page.indexOf('</article>', start));
    };
    const refunds = skill('skill://acme/billing/refunds/SKILL.md');
    // Named by its front matter, its prefixed path beside it; every file (the nested skill's too) with its size.
    expect(refunds).toContain('<h3><code>refunds</code> <span class="mark">acme/billing/refunds</span></h3>');
    expect(refunds).toContain('<p>Process customer refund requests per company policy.</p>');
    expect(refunds).toContain('Files (4):');
    for (const file of ['SKILL.md', 'assets/stamp.png', 'chargebacks/SKILL.md', 'examples/email.md'])
      expect(refunds).toMatch(
        new RegExp(`<li><code>${file}</code> <span class="muted">\\d+(\\.\\d)? (bytes|KiB)</span></li>`),
      );
    expect(skill('skill://greeting-etiquette/SKILL.md')).toContain(
      '<p>Greet people in their own language with this server&#39;s greet tool.',
    );
    // The refused skill is not on the page.
    expect(page).not.toContain('wrong-folder');
  });

  it('check passes the tree, and reports a skill file that no longer matches its digest', async () => {
    // check's decision in-process (checkSource; test/cli/check.test.ts runs the command and reads
    // its lines): the report the command prints and exits by.
    const tree = path.join(project, 'dist');
    const clean = (await checkSource(tree)).report;
    expect(clean.ok, JSON.stringify(clean.problems)).toBe(true);
    expect(clean.problems).toEqual([]);
    const tampered = path.join(temporaryFolderSync('staticmcp-skills-tampered-'), 'dist');
    cpSync(tree, tampered, { recursive: true });
    const file = path.join(tampered, 'skills/files/acme/billing/refunds/examples/email_md.json');
    writeFileSync(file, readFileSync(file, 'utf8').replace('on its way', 'ON ITS WAY'));
    const checked = (await checkSource(tampered)).report;
    expect(checked.ok).toBe(false);
    expect(checked.problems.map((problem) => `${problem.path}: ${problem.message}`).join('\n')).toContain(
      'skills/files/acme/billing/refunds/examples/email_md.json: no longer matches its digest: skill://acme/billing/refunds/examples/email.md serves sha256:',
    );
  });

  it('shards merged into a packed tree hold the same skills, and check passes it', async () => {
    const folder = temporaryFolderSync('staticmcp-skills-shards-');
    const parts = ['1/2', '2/2'].map((shard, index) => ({ shard, out: path.join(folder, `part-${index + 1}`) }));
    // `build --shard I/2 --out <part>` in-process (each part has the refused skill's failure, exit 1).
    for (const [index, { out }] of parts.entries())
      await buildInProcess(project, { shard: { index: index + 1, count: 2 }, outDir: out });
    const merged = path.join(folder, 'merged');
    const merge = await runCli(['merge', ...parts.map((part) => part.out), '--out', merged, '--max-call-files', '1']);
    // The refused skill is the shards' one failure: the merge says so, and writes the rest.
    expect(merge.code, merge.stderr).toBe(1);
    expect(merge.stderr).toContain('the tree holds everything else');
    expect(existsSync(path.join(merged, 'packs'))).toBe(true);
    expect(readFileSync(path.join(merged, 'skills/list.json'), 'utf8')).toBe(
      readFileSync(path.join(project, 'dist/skills/list.json'), 'utf8'),
    );
    expect((await checkSource(merged)).report.problems).toEqual([]);
  });

  it('a rebuild without a skill leaves none of its files in the tree', async () => {
    rmSync(path.join(project, 'skills/greeting-etiquette'), { recursive: true });
    rmSync(path.join(project, 'skills/wrong-folder'), { recursive: true });
    const rebuilt = await buildInProcess(project);
    expect(rebuilt.code).toBe(0);
    expect(existsSync(path.join(project, 'dist/skills/files/greeting-etiquette'))).toBe(false);
    expect(readFileSync(path.join(project, 'dist/skills/list.json'), 'utf8')).not.toContain('greeting-etiquette');
  });
});

it('a project without skills writes no skills folder and no skills extension', async () => {
  const plain = await writeProject({ 'resources/readme.md': '# Hello\n' });
  expect((await buildInProcess(plain)).code).toBe(0);
  expect(existsSync(path.join(plain, 'dist/skills'))).toBe(false);
  expect(readFileSync(path.join(plain, 'dist/mcp.json'), 'utf8')).not.toContain('"skills"');
  expect(readFileSync(path.join(plain, 'dist/index.html'), 'utf8')).not.toContain('id="skills"');
});

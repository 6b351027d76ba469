// What a user put into the output folder survives a rebuild that changes the tree (a gh-pages
// worktree's .git, CNAME, robots.txt, a page of their own), files from the project's public/
// folder are copied in, and `check` holds neither against the tree's content hash. Builds run
// in-process through the build command's decision (test/helpers/in-process-build.ts: the same tree
// writer, without the bundled worker); one `check` runs as the CLI and shows what it prints, the
// other is the command's checkSource in-process.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkSource } from '../../src/cli/commands/check.js';
import { problemsOf, runCli } from '../helpers/cli.js';
import { buildInProcess } from '../helpers/in-process-build.js';
import { makeProject } from '../helpers/projects.js';

const USER_FILES: Record<string, string> = {
  CNAME: 'mcp.example.org\n',
  'robots.txt': 'User-agent: *\n',
  '.git/HEAD': 'ref: refs/heads/gh-pages\n',
  '.git/objects/ab/cdef': 'object',
  'about/index.html': '<h1>About</h1>\n',
};

describe('the output folder', () => {
  it('keeps what the user added across a rebuild that rewrites the tree, and removes stale build files', async () => {
    const project = await makeProject({ tools: { ok: 'ok' }, files: { 'resources/old.md': '# Old\n' } });
    expect((await buildInProcess(project)).code).toBe(0);
    const dist = path.join(project, 'dist');
    for (const [relative, content] of Object.entries(USER_FILES)) {
      await fs.mkdir(path.dirname(path.join(dist, relative)), { recursive: true });
      await fs.writeFile(path.join(dist, relative), content);
    }
    await fs.rm(path.join(project, 'resources', 'old.md'));
    await fs.writeFile(path.join(project, 'resources', 'new.md'), '# New\n');
    const rebuilt = await buildInProcess(project);
    expect(problemsOf(rebuilt.report)).toBe('[]');
    for (const [relative, content] of Object.entries(USER_FILES)) {
      expect(await fs.readFile(path.join(dist, relative), 'utf8'), relative).toBe(content);
    }
    await expect(fs.access(path.join(dist, 'resources', 'old_md.json'))).rejects.toThrow();
    await fs.access(path.join(dist, 'resources', 'new_md.json'));
    const checked = await runCli(['check', dist]);
    expect(checked.stdout).toMatch(/no problems/);
    expect(checked.code).toBe(0);
  });

  it('gets the files of public/ as they are, refusing names the build owns', async () => {
    const project = await makeProject({
      tools: { ok: 'ok' },
      files: {
        'public/CNAME': 'mcp.example.org\n',
        'public/.well-known/security.txt': 'Contact: mailto:security@example.org\n',
        'public/favicon.ico': Buffer.from([0, 0, 1, 0, 0xff]),
        'public/mcp.json': '{"not": "ours"}',
        'public/_headers': '/*.json\n  Cache-Control: no-store\n',
      },
    });
    const { report, code } = await buildInProcess(project);
    expect(code).toBe(1);
    expect(problemsOf(report)).toMatch(/public\/mcp\.json.*belongs to the build/);
    // Rules of the user's would join the build's on the hosts: refused, with where such settings go.
    expect(problemsOf(report)).toMatch(/public\/_headers.*would join rules of yours with its own.*cache\.ttlSeconds/);
    const dist = path.join(project, 'dist');
    expect(await fs.readFile(path.join(dist, 'CNAME'), 'utf8')).toBe('mcp.example.org\n');
    expect(await fs.readFile(path.join(dist, '.well-known', 'security.txt'), 'utf8')).toMatch(/Contact/);
    expect([...(await fs.readFile(path.join(dist, 'favicon.ico')))]).toEqual([0, 0, 1, 0, 0xff]);
    expect(JSON.parse(await fs.readFile(path.join(dist, 'mcp.json'), 'utf8'))).toHaveProperty('staticmcp');
    expect((await checkSource(dist)).report).toMatchObject({ ok: true, problems: [] });
  });

  it('builds into a fresh gh-pages worktree (only .git and CNAME) and keeps both', async () => {
    const project = await makeProject({ tools: { ok: 'ok' } });
    const dist = path.join(project, 'dist');
    await fs.mkdir(path.join(dist, '.git'), { recursive: true });
    await fs.writeFile(path.join(dist, '.git', 'HEAD'), 'ref: refs/heads/gh-pages\n');
    await fs.writeFile(path.join(dist, 'CNAME'), 'mcp.example.org\n');
    expect((await buildInProcess(project)).code).toBe(0);
    expect(await fs.readFile(path.join(dist, '.git', 'HEAD'), 'utf8')).toBe('ref: refs/heads/gh-pages\n');
    expect(await fs.readFile(path.join(dist, 'CNAME'), 'utf8')).toBe('mcp.example.org\n');
    await fs.access(path.join(dist, 'mcp.json'));
  });
});

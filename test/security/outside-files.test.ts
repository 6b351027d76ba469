// Nothing outside the project reaches the public tree: a symlink in resources/ to a file or a
// folder outside, an icon that is such a link, and a template provider outside the project are
// each refused with a message naming them, the secret's bytes appear nowhere in the tree, and
// everything else still builds. A symlink that stays inside the project keeps working.
// Builds run in-process (the build command's buildOrReplay: the same report and tree); the one
// test that reads what the command prints runs the CLI.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildJson, problemsOf } from '../helpers/cli.js';
import { buildInProcess } from '../helpers/in-process-build.js';
import { readTree } from '../helpers/files.js';
import { makeProject } from '../helpers/projects.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

const SECRET = 'ssh-ed25519 PRIVATE-KEY-MATERIAL-THAT-MUST-NOT-BE-PUBLISHED';

/**
 * A project beside a folder of secrets, with `setup` adding the attack; builds it (in-process, or
 * as `staticmcp build --json` with `viaCli`) and reads the tree.
 */
async function buildWithAttack(setup: (project: string, secrets: string) => Promise<void>, viaCli = false) {
  const parent = await temporaryFolder();
  const secrets = path.join(parent, 'home-ssh');
  await fs.mkdir(secrets);
  await fs.writeFile(path.join(secrets, 'id_ed25519'), SECRET);
  const project = await makeProject(
    { tools: { ok: 'ok' }, files: { 'resources/doc.md': '# Doc\n\nPublic text.\n' } },
    parent,
  );
  await setup(project, secrets);
  const result = viaCli ? await buildJson(project) : { ...(await buildInProcess(project)), stderr: '' };
  const tree = await readTree(path.join(project, 'dist'));
  const published = [...tree.values()].some(
    (bytes) =>
      bytes.toString('utf8').includes(SECRET) ||
      bytes.toString('utf8').includes(Buffer.from(SECRET).toString('base64')),
  );
  return { ...result, tree, published, project };
}

describe('files from outside the project', () => {
  it('refuses a symlink in resources/ to a file outside, naming the link, and builds the rest', async () => {
    const { published, report, tree, code } = await buildWithAttack((project, secrets) =>
      fs.symlink(path.join(secrets, 'id_ed25519'), path.join(project, 'resources', 'key.txt')),
    );
    expect(published).toBe(false);
    expect(problemsOf(report)).toMatch(/key\.txt.*symlink that leads outside the project/);
    expect(code).toBe(1);
    expect([...tree.keys()]).toContain('resources/doc_md.json');
  });

  it('refuses a symlink in resources/ to a folder outside', async () => {
    const { published, report } = await buildWithAttack((project, secrets) =>
      fs.symlink(secrets, path.join(project, 'resources', 'ssh')),
    );
    expect(published).toBe(false);
    expect(problemsOf(report)).toMatch(/ssh\/id_ed25519.*symlink that leads outside the project/);
  });

  it('keeps a symlink that stays inside the project', async () => {
    const { report, tree } = await buildWithAttack(async (project) => {
      await fs.mkdir(path.join(project, 'docs'));
      await fs.writeFile(path.join(project, 'docs', 'inside.md'), '# Inside\n');
      await fs.symlink(path.join(project, 'docs', 'inside.md'), path.join(project, 'resources', 'inside.md'));
    });
    expect(problemsOf(report)).toBe('[]');
    expect([...tree.keys()]).toContain('resources/inside_md.json');
  });

  it('refuses an icon that is a symlink to a file outside', async () => {
    const { published, report } = await buildWithAttack(async (project, secrets) => {
      await fs.symlink(path.join(secrets, 'id_ed25519'), path.join(project, 'tools', 'icon.png'));
      await fs.writeFile(path.join(project, 'tools', 'ok.meta.json'), JSON.stringify({ icons: [{ src: 'icon.png' }] }));
    });
    expect(published).toBe(false);
    expect(problemsOf(report)).toMatch(/icon\.png.*symlink that leads outside the project/);
  });

  it('refuses a template provider outside the project and never records a machine path', async () => {
    const { tree, report, published } = await buildWithAttack(async (project, secrets) => {
      await fs.writeFile(path.join(secrets, 'provider'), '#!/bin/sh\necho leaked\n', { mode: 0o755 });
      await fs.writeFile(
        path.join(project, 'resources', 'by-id.meta.json'),
        JSON.stringify({
          name: 'by-id',
          uriTemplate: 'item://{id}',
          provider: path.join(secrets, 'provider'),
          values: { id: ['1'] },
        }),
      );
      await fs.writeFile(
        path.join(project, 'resources', 'by-key.meta.json'),
        JSON.stringify({
          name: 'by-key',
          uriTemplate: 'key://{id}',
          provider: '../home-ssh/provider',
          values: { id: ['1'] },
        }),
      );
    });
    expect(published).toBe(false);
    const manifest = tree.get('mcp.json')!.toString('utf8');
    expect(manifest).not.toContain('home-ssh');
    expect(manifest).not.toContain('leaked');
    expect(JSON.stringify(report)).toMatch(/provider .* is not a path inside the project/);
  });

  it('refuses a prompt that is a symlink to a file outside, and an image a prompt embeds from outside', async () => {
    const { published, report } = await buildWithAttack(async (project, secrets) => {
      await fs.mkdir(path.join(project, 'prompts'));
      await fs.symlink(path.join(secrets, 'id_ed25519'), path.join(project, 'prompts', 'leak.md'));
      await fs.symlink(path.join(secrets, 'id_ed25519'), path.join(project, 'prompts', 'pixel.png'));
      await fs.writeFile(
        path.join(project, 'prompts', 'look.json'),
        JSON.stringify({
          messages: [{ role: 'user', content: { type: 'image', file: 'pixel.png' } }],
        }),
      );
    });
    expect(published).toBe(false);
    expect(JSON.stringify(report)).toMatch(/leak\.md.*symlink that leads outside the project/);
    expect(JSON.stringify(report)).toMatch(/pixel\.png.*symlink that leads outside the project/);
  });

  it('refuses sidecars that are symlinks to files outside, for a tool, a resource and a template, and publishes none of their fields', async () => {
    const { published, report, tree } = await buildWithAttack(async (project, secrets) => {
      const outsideMeta = path.join(secrets, 'meta.json');
      await fs.writeFile(
        outsideMeta,
        JSON.stringify({ description: SECRET, name: 'leak', uriTemplate: 'leak://{id}', values: { id: ['1'] } }),
      );
      await fs.symlink(outsideMeta, path.join(project, 'tools', 'ok.meta.json'));
      await fs.symlink(outsideMeta, path.join(project, 'resources', 'doc.md.meta.json'));
      await fs.symlink(outsideMeta, path.join(project, 'resources', 'leak.meta.json'));
    });
    expect(published).toBe(false);
    const problems = JSON.stringify(report);
    expect(problems).toMatch(/ok\.meta\.json cannot be read \(it is a symlink that leads outside the project/);
    expect(problems).toMatch(/doc\.md\.meta\.json cannot be read \(it is a symlink that leads outside the project/);
    expect(problems).toMatch(/leak\.meta\.json.*symlink that leads outside the project/);
    expect(tree.get('mcp.json')!.toString('utf8')).not.toContain('leak://');
  });

  it('reports a sidecar that is not JSON without quoting its bytes', async () => {
    const { report, stderr, code } = await buildWithAttack(async (project) => {
      // A key pasted where a sidecar was meant to be, inside the project.
      await fs.writeFile(path.join(project, 'resources', 'doc.md.meta.json'), `${SECRET}\n`);
    }, true);
    expect(code).toBe(1);
    const problems = problemsOf(report);
    expect(problems).toMatch(/doc\.md\.meta\.json is not JSON \(a syntax error/);
    for (const printed of [JSON.stringify(report), stderr]) expect(printed).not.toContain('ssh-ed');
  });
});

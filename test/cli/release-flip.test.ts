// The release flips PUBLISHED_ON_NPM, never a person: scripts/mark-published.mjs on a copy of
// src/shared/staticmcp-command.ts turns exactly that switch on and nothing else, refuses a file it cannot
// flip exactly once (a second release step, a renamed switch), and the release workflow runs it
// before `npm publish --provenance` builds the package. test/cli/deploy-commands.test.ts runs the
// same script on a compiled dist/ and publishes the result to a local registry.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PACKAGE_JSON, runCommand } from '../helpers/npm-package.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

const SCRIPT = path.join(REPO_ROOT, 'scripts', 'mark-published.mjs');
const SOURCE = path.join(REPO_ROOT, 'src', 'shared', 'staticmcp-command.ts');

describe('the release switch', () => {
  it('flips PUBLISHED_ON_NPM in a copy of the source, and refuses to flip it twice', async () => {
    const folder = await temporaryFolder();
    const copy = path.join(folder, 'staticmcp-command.ts');
    const original = await fs.readFile(SOURCE, 'utf8');
    // A checkout never says published: only the release does.
    expect(original).toContain('export const PUBLISHED_ON_NPM = false;');
    await fs.writeFile(copy, original);

    const flip = await runCommand(process.execPath, [SCRIPT, copy], { cwd: folder });
    expect(flip.code, flip.stderr).toBe(0);
    const flipped = await fs.readFile(copy, 'utf8');
    expect(flipped).toBe(original.replace('PUBLISHED_ON_NPM = false;', 'PUBLISHED_ON_NPM = true;'));

    const again = await runCommand(process.execPath, [SCRIPT, copy], { cwd: folder });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('holds 0 `PUBLISHED_ON_NPM = false;` where exactly one was expected');
    expect(await fs.readFile(copy, 'utf8')).toBe(flipped);

    const missing = await runCommand(process.execPath, [SCRIPT, path.join(folder, 'nope.ts')], { cwd: folder });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('cannot read');
    const usage = await runCommand(process.execPath, [SCRIPT], { cwd: folder });
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('usage: node scripts/mark-published.mjs');
  });

  it('is flipped by the release workflow on a v* tag, before npm publish builds with provenance', async () => {
    const workflow = parse(await fs.readFile(path.join(REPO_ROOT, '.github/workflows/release.yml'), 'utf8')) as {
      on: { push: { tags: string[] } };
      permissions: Record<string, string>;
      jobs: { publish: { steps: { run?: string }[] } };
    };
    expect(workflow.on.push.tags).toEqual(['v*']);
    expect(workflow.permissions['id-token']).toBe('write');
    const runs = workflow.jobs.publish.steps.flatMap((step) => (step.run ? [step.run] : []));
    const flip = runs.indexOf('node scripts/mark-published.mjs src/shared/staticmcp-command.ts');
    const publish = runs.indexOf('npm publish --provenance --access public');
    expect(flip).toBeGreaterThan(-1);
    expect(publish).toBeGreaterThan(flip);
    // prepack builds dist/ from the flipped source as npm publish packs it.
    expect((PACKAGE_JSON as unknown as { scripts: Record<string, string> }).scripts.prepack).toBe('npm run build');
  });

  it('has the package metadata npm shows and provenance checks', () => {
    const metadata = PACKAGE_JSON as unknown as Record<string, unknown>;
    expect(metadata.repository).toMatchObject({
      type: 'git',
      url: expect.stringMatching(/^git\+https:\/\/github\.com\//),
    });
    expect(metadata.homepage).toEqual(expect.stringMatching(/^https:\/\//));
    expect(metadata.bugs).toMatchObject({ url: expect.stringMatching(/^https:\/\/.*\/issues$/) });
    expect(metadata.keywords).toEqual(expect.arrayContaining(['mcp', 'model-context-protocol']));
  });
});

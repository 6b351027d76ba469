// The MCP Apps recipe of docs/mcp-apps.md, run as it is written there (its shell lines, with
// `staticmcp` the CLI under test): the build inlines ext-apps' App class where the page asks for
// it and says nothing; the same page without the marker builds with a warning naming the page.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, REPO_ROOT } from '../helpers/paths.js';
import { temporaryFolderSync } from '../helpers/temp-folders.js';

const MARKER = '<script src="staticmcp:ext-apps"></script>';

/** The recipe's shell block: the first ```sh fence after its heading. */
function recipeScript(): string {
  const doc = readFileSync(path.join(REPO_ROOT, 'docs', 'mcp-apps.md'), 'utf8');
  const section = doc.slice(doc.indexOf('### Recipe: an app in five minutes'));
  const block = /```sh\n([\s\S]*?)\n```/.exec(section);
  if (!block?.[1]) throw new Error('docs/mcp-apps.md has no recipe block');
  return block[1];
}

/** Runs `script` with sh in a new folder, `staticmcp` on PATH being the CLI under test. */
function runRecipe(script: string): { project: string; status: number | null; stderr: string } {
  const project = temporaryFolderSync('staticmcp-recipe-');
  const bin = path.join(project, '.bin');
  mkdirSync(bin);
  writeFileSync(path.join(bin, 'staticmcp'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  chmodSync(path.join(bin, 'staticmcp'), 0o755);
  const run = spawnSync('sh', ['-e', '-c', script], {
    cwd: project,
    encoding: 'utf8',
    env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` },
  });
  return { project, status: run.status, stderr: run.stderr };
}

function appPageText(project: string): string {
  const manifest = JSON.parse(readFileSync(path.join(project, 'dist', 'mcp.json'), 'utf8')) as {
    capabilities: { resources: { uri: string; mimeType?: string }[] };
  };
  const page = manifest.capabilities.resources.find((resource) => resource.mimeType === 'text/html;profile=mcp-app');
  expect(page?.uri).toBe('ui://roll/index.html');
  const file = JSON.parse(readFileSync(path.join(project, 'dist', 'resources', 'roll', 'index_html.json'), 'utf8')) as {
    text: string;
  };
  return file.text;
}

describe('the MCP Apps recipe in docs/mcp-apps.md', () => {
  it('builds as written: the App class is inlined where the page asks for it, with no warning', () => {
    const { project, status, stderr } = runRecipe(recipeScript());
    expect(status, stderr).toBe(0);
    expect(stderr).not.toMatch(/warning/);
    const text = appPageText(project);
    expect(text).not.toContain(MARKER);
    // The class is there (its handshake's method name), and nothing is fetched for it.
    expect(text).toContain('ui/initialize');
    expect(text).not.toMatch(/<script[^>]+src=/);
  });

  it('warns, naming the page, when a page uses the App API without the class', () => {
    const { project, status, stderr } = runRecipe(recipeScript().replace(MARKER, ''));
    expect(status, stderr).toBe(0);
    expect(stderr).toMatch(
      /warning: tools\/roll\.sh\.ui\.html uses the MCP Apps App API but does not hold the App class.*<script src="staticmcp:ext-apps"><\/script>/,
    );
    expect(appPageText(project)).not.toContain('ui/initialize');
  });
});

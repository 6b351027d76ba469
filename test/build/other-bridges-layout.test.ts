// Our tree read by other StaticMCP bridges: the reference sse_bridge computes a file name from the
// arguments exactly as the client sent them (raw values; one argument → `tools/<name>/<v>.json`,
// two → the values sorted), and a resource's file from its URI with the scheme dropped (§2 of the
// standard: `resource://changelog.md` → `resources/changelog.md.json`). The functions below model
// that lookup, so these tests read our tree the way that bridge does. Trees are built and checked
// by the commands' decisions in-process (buildOrReplay, checkSource); the landing page's count is
// in the HTML the build renders, with or without the CLI's bundled page script.
import { describe, expect, it } from 'vitest';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { checkSource } from '../../src/cli/commands/check.js';
import { buildInProcess } from '../helpers/in-process-build.js';
import { makeProject } from '../helpers/projects.js';

function render(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The file a bridge that keys on the arguments as sent looks for (up to two arguments). */
function sentArgumentsPath(tool: string, args: Record<string, unknown>): string {
  const values = Object.values(args).map(render);
  if (values.length === 0) return `tools/${tool}.json`;
  if (values.length === 1) return `tools/${tool}/${values[0]}.json`;
  values.sort();
  return `tools/${tool}/${values[0]}/${values[1]}.json`;
}

/** The standard's resource file: everything after `scheme://`, `/` as folders. */
function standardResourcePath(uri: string): string {
  return `resources/${uri.slice(uri.indexOf('://') + 3)}.json`;
}

/** What such a bridge answers resources/read with: `contents` as stored, else `{uri, mimeType, text}`, else the file as text. */
function readAsReferenceBridge(file: Record<string, unknown>, uri: string): unknown[] {
  if (Array.isArray(file.contents)) return file.contents;
  if (file.uri !== undefined && file.mimeType !== undefined && file.text !== undefined)
    return [{ uri: file.uri, mimeType: file.mimeType, text: file.text }];
  return [{ uri, mimeType: 'application/json', text: JSON.stringify(file, null, 2) }];
}

/** A script with optional options (name → [value_type, default]) that echoes `answer`. */
function optionsScript(options: Record<string, [unknown, unknown]>, answer: string): string {
  const declared = Object.fromEntries(
    Object.entries(options).map(([name, [type, value]]) => [
      name,
      { description: name, required: false, value_type: type, default_value: value },
    ]),
  );
  return `#!/bin/sh\nif [ "$1" = "--help" ]; then\n  echo '{"description": "test"}'\n  echo '${JSON.stringify(declared)}' >&2\n  exit 0\nfi\necho "${answer}"\n`;
}

const GREET = optionsScript(
  { language: [{ enum: ['en', 'fr', 'de'] }, 'en'], shout: ['boolean', false] },
  '$language $shout',
);
const TWO_FLAGS = optionsScript({ a: ['boolean', false], b: ['boolean', false] }, 'a=$a b=$b');

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
  'base64',
);

async function projectWith(scripts: Record<string, string>, files: Record<string, string | Buffer> = {}) {
  const project = await makeProject({
    files: { ...Object.fromEntries(Object.entries(scripts).map(([name, body]) => [`tools/${name}`, body])), ...files },
  });
  for (const name of Object.keys(scripts)) await fs.chmod(path.join(project, 'tools', name), 0o755);
  return project;
}

const readTreeJson = async (tree: string, file: string) =>
  JSON.parse(await fs.readFile(path.join(tree, file), 'utf8')) as Record<string, unknown>;

describe('calls that leave out defaulted optional arguments', () => {
  it('are found where a bridge keyed on the sent arguments looks, answering the defaults-applied call', async () => {
    const project = await projectWith({ greet: GREET });
    const { code } = await buildInProcess(project);
    expect(code).toBe(0);
    const tree = path.join(project, 'dist');
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'en false'],
      [{ language: 'fr' }, 'fr false'],
      [{ language: 'en' }, 'en false'],
      [{ shout: true }, 'en true'],
      [{ language: 'de', shout: false }, 'de false'],
    ];
    for (const [args, answer] of cases) {
      const file = await readTreeJson(tree, sentArgumentsPath('greet', args));
      expect((file.content as { text: string }[])[0]?.text, JSON.stringify(args)).toBe(`${answer}\n`);
    }
    // Our own lookup is unchanged, and check accepts the copies without counting them as calls.
    expect((await readTreeJson(tree, 'tools/greet/en/false.json')).content).toEqual([
      { type: 'text', text: 'en false\n' },
    ]);
    expect((await checkSource(tree)).report.problems).toEqual([]);
  });

  it('writes no copy at a key two calls would share', async () => {
    const project = await projectWith({ flags: TWO_FLAGS });
    expect((await buildInProcess(project)).code).toBe(0);
    const tree = path.join(project, 'dist');
    // {a: true} and {b: true} both leave one default out and encode to flags/true.json: ambiguous.
    await expect(fs.access(path.join(tree, 'tools/flags/true.json'))).rejects.toThrow();
    expect(((await readTreeJson(tree, 'tools/flags.json')).content as { text: string }[])[0]?.text).toBe(
      'a=false b=false\n',
    );
    expect(((await readTreeJson(tree, 'tools/flags/false.json')).content as { text: string }[])[0]?.text).toBe(
      'a=false b=false\n',
    );
  });
});

describe('resources', () => {
  it('are found at the standard name (changelog.md) as well as the encoded one, and a blob reads as a blob', async () => {
    const project = await projectWith(
      {},
      {
        'resources/changelog.md': '# Changes\n',
        'resources/logo.png': PNG,
        'resources/odd name.txt': 'spaces are not kept raw',
      },
    );
    expect((await buildInProcess(project)).code).toBe(0);
    const tree = path.join(project, 'dist');
    const changelog = await readTreeJson(tree, standardResourcePath('resource://changelog.md'));
    expect(readAsReferenceBridge(changelog, 'resource://changelog.md')).toEqual([
      { uri: 'resource://changelog.md', mimeType: 'text/markdown', text: '# Changes\n' },
    ]);
    expect(await readTreeJson(tree, 'resources/changelog_md.json')).toEqual(changelog);
    const logo = await readTreeJson(tree, standardResourcePath('resource://logo.png'));
    expect(readAsReferenceBridge(logo, 'resource://logo.png')).toEqual([
      { uri: 'resource://logo.png', mimeType: 'image/png', blob: PNG.toString('base64') },
    ]);
    // A bridge that reads {uri, mimeType, blob} at the top finds it too.
    expect(logo).toMatchObject({ uri: 'resource://logo.png', mimeType: 'image/png', blob: PNG.toString('base64') });
    await expect(fs.access(path.join(tree, 'resources/odd name.txt.json'))).rejects.toThrow();
    expect((await checkSource(tree)).report.problems).toEqual([]);
  });

  it('past the inline list and the file budget: the inline resources list and read, the rest are ours alone', async () => {
    const documents = Object.fromEntries(
      Array.from({ length: 260 }, (_, index) => [`resources/page-${index}.txt`, `page ${index}\n`]),
    );
    const project = await projectWith(
      {},
      {
        ...documents,
        'staticmcp.json': JSON.stringify({
          search: false,
          limits: { resourcesInManifest: 20, resourcesPerListPart: 100 },
        }),
      },
    );
    const build = await buildInProcess(project, { maxCallFiles: 10 });
    expect(build.code, build.error?.message).toBe(0);
    expect(build.report.warnings.map((warning) => warning.message).join('\n')).toMatch(
      /other StaticMCP bridges list and read the inline ones/,
    );
    const tree = path.join(project, 'dist');
    const manifest = await readTreeJson(tree, 'mcp.json');
    // What such a bridge lists: mcp.json's resources, the first 20; each reads at the standard name.
    const listed = (manifest.capabilities as { resources: { uri: string }[] }).resources;
    expect(listed).toHaveLength(20);
    for (const { uri } of listed) {
      const file = await readTreeJson(tree, standardResourcePath(uri));
      expect(readAsReferenceBridge(file, uri)).toEqual([{ uri, mimeType: 'text/plain', text: expect.any(String) }]);
    }
    // Past them: listed in our parts, packed under packs/: no file where that bridge looks.
    const inline = new Set(listed.map((resource) => resource.uri));
    const unlisted = Object.keys(documents)
      .map((file) => `resource://${file.slice('resources/'.length)}`)
      .filter((uri) => !inline.has(uri));
    expect(unlisted).toHaveLength(240);
    for (const uri of unlisted.slice(0, 10))
      await expect(fs.access(path.join(tree, standardResourcePath(uri)))).rejects.toThrow();
    // Our own bridge serves all 260: check reads every part and packed resource.
    const { report: checked } = await checkSource(tree);
    expect(checked.problems).toEqual([]);
    expect(checked.checked.resources).toBe(260);
    // The landing page counts the whole list, not mcp.json's first part.
    expect(await fs.readFile(path.join(tree, 'index.html'), 'utf8')).toContain('Resources (260)');
  });
});

// A document is parsed once, and not at all when its bytes did not change (issue #39), in-process:
// a project of Markdown documents built, rebuilt unchanged (no document parsed: the build report's
// own counts), rebuilt after a one-document edit (one parsed, and the tree byte for byte the one a
// from-scratch build writes), with a broken front matter told again on every cached rebuild.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildProject } from '../../src/builder/build-project.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

const DOCUMENTS = 24;
const BROKEN = 'resources/guide/broken.md';

function markdown(index: number): string {
  return `---\ntitle: Page ${index}\n---\n\n# Heading ${index}\n\nThe first paragraph of page ${index}.\n\n- a list\n- of items\n`;
}

/** Every file of a tree, by its path, with its bytes. */
async function readTree(root: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const entry of await fs.readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    files.set(path.relative(root, full), (await fs.readFile(full)).toString('base64'));
  }
  return files;
}

const brokenWarning = (warnings: { path: string; message: string }[]) =>
  warnings.find((warning) => warning.path === BROKEN)?.message ?? '';

let project: string;
let first: Awaited<ReturnType<typeof buildProject>>;

beforeAll(async () => {
  project = await temporaryFolder('document-cache-');
  await fs.mkdir(path.join(project, 'resources', 'guide'), { recursive: true });
  for (let index = 0; index < DOCUMENTS - 1; index++)
    await fs.writeFile(path.join(project, 'resources', 'guide', `page-${index}.md`), markdown(index));
  await fs.writeFile(
    path.join(project, BROKEN),
    '---\ntitle: [unclosed\n---\n\n# The broken one\n\nIts first paragraph.\n',
  );
  // Files older than the build are known by their identity next time (fresher ones are digested).
  const past = new Date(Date.now() - 60_000);
  for (const name of await fs.readdir(path.join(project, 'resources', 'guide')))
    await fs.utimes(path.join(project, 'resources', 'guide', name), past, past);
  first = await buildProject({ projectRoot: project, outDir: path.join(project, 'tree') });
});

describe('the document cache', () => {
  it('parses every document on the first build, and tells a broken front matter with its fallback', () => {
    expect(first.ok).toBe(true);
    expect(first.documents).toEqual({ parsed: DOCUMENTS, reused: 0 });
    expect(brokenWarning(first.warnings)).toMatch(/front matter that is not valid YAML .*headings/);
  });

  it('parses no document on a rebuild with nothing changed, and still warns about the broken one', async () => {
    const again = await buildProject({ projectRoot: project, outDir: path.join(project, 'tree') });
    expect(again.documents).toEqual({ parsed: 0, reused: DOCUMENTS });
    expect(again.unchanged).toBe(true);
    expect(brokenWarning(again.warnings)).toBe(brokenWarning(first.warnings));
  });

  it('parses only the edited document, and writes the tree a from-scratch build writes', async () => {
    const edited = path.join(project, 'resources', 'guide', 'page-3.md');
    await fs.writeFile(edited, markdown(3).replace('The first paragraph of page 3.', 'An edited paragraph.'));
    const rebuilt = await buildProject({ projectRoot: project, outDir: path.join(project, 'tree') });
    expect(rebuilt.documents).toEqual({ parsed: 1, reused: DOCUMENTS - 1 });
    const fresh = await buildProject({ projectRoot: project, outDir: path.join(project, 'fresh'), force: true });
    expect(fresh.documents).toEqual({ parsed: DOCUMENTS, reused: 0 });
    expect(await readTree(path.join(project, 'tree'))).toEqual(await readTree(path.join(project, 'fresh')));
    const manifest = await fs.readFile(path.join(project, 'tree', 'mcp.json'), 'utf8');
    expect(manifest).toContain('"description": "An edited paragraph."');
    expect(brokenWarning(rebuilt.warnings)).toMatch(/not valid YAML/);
  });

  it('reads a file touched without a change by its digest, and parses nothing', async () => {
    const touched = path.join(project, 'resources', 'guide', 'page-5.md');
    const later = new Date();
    await fs.utimes(touched, later, later);
    const rebuilt = await buildProject({ projectRoot: project, outDir: path.join(project, 'tree') });
    expect(rebuilt.documents).toEqual({ parsed: 0, reused: DOCUMENTS });
  });
});

// A document is parsed once, and not at all when its bytes did not change (issue #39), in-process:
// a project of Markdown documents built, rebuilt unchanged (no document parsed: the build report's
// own counts), rebuilt after a one-document edit (one parsed, and the tree byte for byte the one a
// from-scratch build writes), with a broken front matter told again on every cached rebuild; a
// same-size edit within the second after a build (same inode and mtime) is still noticed; a
// renamed file's parse is found by its bytes.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildProject } from '../../src/builder/build-project.js';
import { readResourceContent } from '../../src/project/resource-file-content.js';
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

  it("takes a renamed file's parse from its bytes under the old name, and writes a from-scratch tree", async () => {
    const guide = path.join(project, 'resources', 'guide');
    await fs.rename(path.join(guide, 'page-7.md'), path.join(guide, 'renamed-7.md'));
    const rebuilt = await buildProject({ projectRoot: project, outDir: path.join(project, 'tree') });
    expect(rebuilt.documents).toEqual({ parsed: 0, reused: DOCUMENTS });
    const fresh = await buildProject({ projectRoot: project, outDir: path.join(project, 'fresh'), force: true });
    expect(fresh.documents).toEqual({ parsed: DOCUMENTS, reused: 0 });
    expect(await readTree(path.join(project, 'tree'))).toEqual(await readTree(path.join(project, 'fresh')));
    expect(await fs.readFile(path.join(project, 'tree', 'mcp.json'), 'utf8')).toContain(
      'resource://guide/renamed-7.md',
    );
  });
});

describe('a damaged record', () => {
  it('is not believed: a record cut short, or one byte changed, has every document parsed again', async () => {
    const record = path.join(project, '.staticmcp', 'cache', 'documents.bin');
    const whole = await fs.readFile(record);
    const build = () => buildProject({ projectRoot: project, outDir: path.join(project, 'tree') });
    await fs.writeFile(record, whole.subarray(0, Math.floor(whole.length / 2)));
    expect((await build()).documents).toEqual({ parsed: DOCUMENTS, reused: 0 });
    const changed = Buffer.from(whole);
    // Inside an entry's parse (a title's letter), past the header: the record still reads as entries.
    changed[changed.lastIndexOf('Page')]! ^= 0x01;
    await fs.writeFile(record, changed);
    const rebuilt = await build();
    expect(rebuilt.documents).toEqual({ parsed: DOCUMENTS, reused: 0 });
    expect(rebuilt.unchanged).toBe(true);
    expect((await build()).documents).toEqual({ parsed: 0, reused: DOCUMENTS });
  });
});

describe('a record of many documents, one of them larger than a write of the record', () => {
  it('is copied on by an edit build and believed whole by the build after it', async () => {
    const root = await temporaryFolder('document-cache-large-record-');
    const folder = path.join(root, 'resources');
    await fs.mkdir(folder, { recursive: true });
    const count = 200;
    // ~300-byte descriptions: the entries together span a few of the record's 64 KiB writes.
    const page = (index: number) =>
      `# Page ${index}\n\nPage ${index} ${'says something long enough to be listed. '.repeat(7)}\n`;
    for (let index = 0; index < count; index++)
      await fs.writeFile(path.join(folder, `page-${String(index).padStart(3, '0')}.md`), page(index));
    // A front matter page URL of 70,000 characters (under a raised bound): an entry larger than a write.
    const url = `https://example.com/${'a'.repeat(70_000)}`;
    await fs.writeFile(path.join(folder, 'page-100.md'), `---\nurl: ${url}\n---\n\n${page(100)}`);
    const past = new Date(Date.now() - 60_000);
    for (const name of await fs.readdir(folder)) await fs.utimes(path.join(folder, name), past, past);
    const bound = process.env.STATICMCP_MAX_FRONT_MATTER_BYTES;
    process.env.STATICMCP_MAX_FRONT_MATTER_BYTES = String(128 * 1024);
    try {
      const build = () => buildProject({ projectRoot: root, outDir: path.join(root, 'tree') });
      expect((await build()).documents).toEqual({ parsed: count, reused: 0 });
      // Each edit build copies every other entry as recorded; the build after it trusts them all.
      for (const edited of ['page-010.md', 'page-190.md']) {
        await fs.appendFile(path.join(folder, edited), '\nOne more line.\n');
        await fs.utimes(path.join(folder, edited), past, new Date(Date.now() - 30_000));
        expect((await build()).documents).toEqual({ parsed: 1, reused: count - 1 });
      }
      const fresh = await buildProject({ projectRoot: root, outDir: path.join(root, 'fresh'), force: true });
      expect(fresh.documents).toEqual({ parsed: count, reused: 0 });
      expect(await readTree(path.join(root, 'tree'))).toEqual(await readTree(path.join(root, 'fresh')));
    } finally {
      if (bound === undefined) delete process.env.STATICMCP_MAX_FRONT_MATTER_BYTES;
      else process.env.STATICMCP_MAX_FRONT_MATTER_BYTES = bound;
    }
  });
});

describe('a document edited within the same second as the build before', () => {
  it('is read and parsed again even with the same size, inode and mtime', async () => {
    const root = await temporaryFolder('document-cache-same-second-');
    await fs.mkdir(path.join(root, 'resources'), { recursive: true });
    const file = path.join(root, 'resources', 'note.md');
    // Written just before the build: too fresh to be known by its identity next time.
    const moment = new Date(Date.now() - 500);
    await fs.writeFile(file, '# Note\n\nThe first text.\n');
    await fs.utimes(file, moment, moment);
    const build = () => buildProject({ projectRoot: root, outDir: path.join(root, 'tree') });
    expect((await build()).documents).toEqual({ parsed: 1, reused: 0 });
    const before = await fs.stat(file, { bigint: true });
    // The same length, the same inode (written in place), the mtime set back to the same instant.
    await fs.writeFile(file, '# Note\n\nThe other text.\n');
    await fs.utimes(file, moment, moment);
    const after = await fs.stat(file, { bigint: true });
    expect([after.ino, after.size, after.mtimeNs]).toEqual([before.ino, before.size, before.mtimeNs]);
    const rebuilt = await build();
    expect(rebuilt.documents).toEqual({ parsed: 1, reused: 0 });
    const manifest = await fs.readFile(path.join(root, 'tree', 'mcp.json'), 'utf8');
    expect(manifest).toContain('"description": "The other text."');
  });
});

describe('the document cache for a built site', () => {
  const page = (title: string, body: string) =>
    `<!doctype html><html><head><title>${title}</title></head><body><nav>Menu</nav><main><h1>${title}</h1><p>${body}</p></main></body></html>`;

  it('extracts each page once, reuses it unchanged, and writes what a from-scratch build writes', async () => {
    const root = await temporaryFolder('document-cache-site-');
    await fs.mkdir(path.join(root, 'site', 'docs'), { recursive: true });
    await fs.writeFile(path.join(root, 'site', 'index.html'), page('Home', 'Welcome.'));
    await fs.writeFile(path.join(root, 'site', 'docs', 'a.html'), page('Page A', 'The text of page A.'));
    await fs.writeFile(path.join(root, 'site', 'docs', 'b.html'), page('Page B', 'The text of page B.'));
    await fs.writeFile(path.join(root, 'site', 'style.css'), 'body { color: black }\n');
    await fs.writeFile(path.join(root, 'staticmcp.json'), JSON.stringify({ site: 'site' }));
    const build = (out: string, force = false) =>
      buildProject({ projectRoot: root, outDir: path.join(root, out), force });
    expect((await build('tree')).documents).toEqual({ parsed: 3, reused: 0 });
    const again = await build('tree');
    expect(again.documents).toEqual({ parsed: 0, reused: 3 });
    expect(again.unchanged).toBe(true);
    await fs.writeFile(path.join(root, 'site', 'docs', 'a.html'), page('Page A', 'An edited text.'));
    expect((await build('tree')).documents).toEqual({ parsed: 1, reused: 2 });
    expect((await build('fresh', true)).documents).toEqual({ parsed: 3, reused: 0 });
    const tree = await readTree(path.join(root, 'tree'));
    expect(tree).toEqual(await readTree(path.join(root, 'fresh')));
    expect(tree.get('style.css')).toBe(Buffer.from('body { color: black }\n').toString('base64'));
    const edited = [...tree.entries()].find(([file]) => file.startsWith('resources/') && file.includes('a.html'));
    expect(Buffer.from(edited?.[1] ?? '', 'base64').toString('utf8')).toContain('An edited text.');
  });
});

describe('a document edited while the build runs', () => {
  it('is published as it is when written, with a warning that its listing is from the text read first', async () => {
    const root = await temporaryFolder('document-cache-race-');
    const file = path.join(root, 'notes.md');
    await fs.writeFile(file, '# First\n');
    const stats = await fs.stat(file, { bigint: true });
    await fs.writeFile(file, '# Second, longer\n');
    const source = { file, projectRoot: root, text: true, stats };
    const read = await readResourceContent({ content: { source }, mimeType: 'text/markdown' });
    expect(read).toMatchObject({ content: { text: '# Second, longer\n' } });
    expect('warning' in read ? read.warning : '').toMatch(/changed while the build ran.*build again/);
  });
});

describe('scratch files of a build killed before it saved its records', () => {
  it('are removed by the next build, and those of a running build are left alone', async () => {
    const folder = path.join(project, '.staticmcp');
    // 99999999 is past any pid_max: no process has it. Process 1 always runs.
    const dead = ['cache/documents.bin.new-99999999', 'resource-files.bin.new-99999999'];
    const running = 'cache/documents.bin.new-1';
    for (const name of [...dead, running]) await fs.writeFile(path.join(folder, name), '{"partial":');
    await buildProject({ projectRoot: project, outDir: path.join(project, 'tree') });
    for (const name of dead) await expect(fs.stat(path.join(folder, name)), name).rejects.toThrow(/ENOENT/);
    await expect(fs.stat(path.join(folder, running))).resolves.toBeDefined();
    await fs.rm(path.join(folder, running));
  });
});

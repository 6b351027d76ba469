// What discovery keeps per resource file (issue #39, "Memory"): a build holds every document it
// found from discovery to the manifest, so each must cost a few dozen bytes of heap, not
// the several hundred to ~1.7 KB a plain object per document with its own path, URI, name and
// stats strings took (file-resource-store.ts). Real files on disk, discovered by the compiled module in a plain node
// process (vitest's module runner keeps state per dynamic import, which would be measured too),
// the heap read after full collections. Also: what the compact holding gives back is what the
// files say.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLI } from '../helpers/paths.js';
import { temporaryFolderSync } from '../helpers/temp-folders.js';

const DOCUMENTS = 1_200;
const SECTION = 300;
// An object of two fields on the heap (its path, title and description are UTF-8 outside it):
// ~40 bytes, under this bound, which a relative path held as a string per document (~100
// bytes) passes, and plain objects per document by far.
const BOUND_BYTES_PER_DOCUMENT = 70;

const pageText = (index: number) =>
  `# Page ${index} — a title\n\nWhat page ${index} is about, in one line of its own.\n\nMore text ${index}.\n`;

function writeProject(): string {
  const root = temporaryFolderSync('resource-memory-');
  for (let index = 0; index < DOCUMENTS; index += 1) {
    const folder = path.join(root, 'resources', `section-${Math.floor(index / SECTION)}`);
    if (index % SECTION === 0) mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, `page-${index}.md`), pageText(index));
  }
  mkdirSync(path.join(root, 'warm-up'), { recursive: true });
  // The Markdown parser and the sidecar validator load here, once, before the heap is measured.
  writeFileSync(path.join(root, 'warm-up', 'first.md'), '# First\n\nLoads the Markdown parser.\n');
  writeFileSync(path.join(root, 'warm-up', 'first.md.meta.json'), JSON.stringify({ title: 'First' }));
  mkdirSync(path.join(root, 'resources', 'extra'), { recursive: true });
  writeFileSync(path.join(root, 'resources', 'extra', 'notes.txt'), 'plain notes\n');
  writeFileSync(
    path.join(root, 'resources', 'extra', 'notes.txt.meta.json'),
    JSON.stringify({ name: 'notes', title: 'Notes', uri: 'docs://notes' }),
  );
  return root;
}

// What three more discoveries of every file cost, all held, after one that compiled every path
// and was dropped: only the data a discovery keeps is left to grow. The child runs without V8's
// optimizing tiers, whose code lands in the same heap at moments of their own choosing (with them,
// one measure of the same code ranged from -60 to 540 B a document).
const MEASURE = `
const [modulePath, root] = process.argv.slice(1);
const { discoverResources } = await import(modulePath);
const path = await import('node:path');
const heap = () => { gc(); gc(); return process.memoryUsage().heapUsed; };
await discoverResources(path.join(root, 'warm-up'), undefined, root);
await discoverResources(path.join(root, 'resources'), undefined, root);
const start = heap();
const held = [];
for (let copy = 0; copy < 3; copy += 1) held.push(await discoverResources(path.join(root, 'resources'), undefined, root));
const all = held[0];
const pick = (relativePath) => {
  const found = all.resources.find((resource) => resource.relativePath === relativePath);
  const { source } = found.content;
  return { uri: found.uri, name: found.name, title: found.title, description: found.description,
    mimeType: found.mimeType, size: found.size, file: source.file, text: source.text,
    statsSize: Number(source.stats.size) };
};
console.log(JSON.stringify({
  count: all.resources.length,
  perDocument: (heap() - start) / (held.length * all.resources.length),
  page: pick('section-1/page-444.md'),
  notes: pick('extra/notes.txt'),
}));
`;

describe('resource discovery memory', () => {
  it('keeps a few dozen bytes of heap per document, and gives back what the files say', () => {
    const root = writeProject();
    const modulePath = pathToFileURL(path.join(path.dirname(CLI), '..', 'project', 'discover-resources.js')).href;
    const flags = ['--expose-gc', '--no-opt', '--no-sparkplug', '--no-maglev', '--input-type=module'];
    const run = spawnSync(process.execPath, [...flags, '-e', MEASURE, modulePath, root], {
      encoding: 'utf8',
      timeout: 50_000,
    });
    expect(run.stderr).toBe('');
    const measured = JSON.parse(run.stdout);
    expect(measured.count).toBe(DOCUMENTS + 1);
    expect(measured.perDocument).toBeLessThan(BOUND_BYTES_PER_DOCUMENT);
    expect(measured.page).toEqual({
      uri: 'resource://section-1/page-444.md',
      name: 'page-444.md',
      title: 'Page 444 — a title',
      description: 'What page 444 is about, in one line of its own.',
      mimeType: 'text/markdown',
      size: Buffer.byteLength(pageText(444)),
      file: path.join(root, 'resources', 'section-1', 'page-444.md'),
      text: true,
      statsSize: Buffer.byteLength(pageText(444)),
    });
    // A sidecar's fields win; the file's own path stays the file's.
    expect(measured.notes).toMatchObject({
      uri: 'docs://notes',
      name: 'notes',
      title: 'Notes',
      description: 'extra/notes.txt',
      mimeType: 'text/plain',
    });
  }, 60_000);
});

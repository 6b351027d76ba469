// llms.txt and llms-full.txt of a content tree (tree-writer/llms-txt.ts): sections by folder, links
// that open from the file's own place, documents in id order whatever order they came in, and
// llms-full.txt stopping at its byte cap with a last line saying how many were left out; a rebuild
// takes an unchanged document's llms-full.txt entry from the kept entries, never reading its text.
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { KeptLlmsEntries } from '../../src/tree-writer/llms-kept-entries.js';
import { LlmsTxtWriter } from '../../src/tree-writer/llms-txt.js';
import { temporaryFolderSync } from '../helpers/temp-folders.js';

const MANIFEST = { serverInfo: { name: 'lanterns', description: 'Notes on\nlanterns.' } };
const doc = (id: string, uri: string, title: string, text: string, url = `?doc=${id}`) => ({
  id,
  title,
  text,
  url,
  metadata: { uri },
});

describe('llms.txt', () => {
  it('groups documents by folder, escapes titles, and caps llms-full.txt', () => {
    const writer = new LlmsTxtWriter(MANIFEST, undefined, 120);
    writer.add(doc('resources/b.json', 'resource://guide/b.md', 'B [draft]', 'Bee text.'));
    writer.add(doc('resources/a.json', 'resource://a.md', 'A', 'Ay text.', 'https://example.org/a'));
    writer.add(doc('resources/c.json', 'resource://c.md', 'C', 'x'.repeat(200)));
    expect(writer.renderIndex()).toBe(
      [
        '# lanterns',
        '',
        '> Notes on lanterns.',
        '',
        '## Documents',
        '',
        '- [A](https://example.org/a)',
        '- [C](./?doc=resources/c.json)',
        '',
        '## guide',
        '',
        '- [B \\[draft\\]](./?doc=resources/b.json)',
        '',
      ].join('\n'),
    );
    const full = writer.renderFull();
    expect(full.indexOf('Ay text.')).toBeLessThan(full.indexOf('Bee text.'));
    expect(full).not.toContain('xxxx');
    expect(full).toMatch(/\(1 more documents are left out: this file stops at limits\.maxLlmsFullBytes, 120 bytes/);
    expect(writer.leftOutCount).toBe(1);
  });

  it('lists each document under the folder of its URI path, whatever else the URI holds', () => {
    const uris = [
      'resource://guide/b.md',
      'resource://guide/b2.md',
      'resource://guide/deep/c.md?v=2',
      'resource://guide/deep/d.md#top',
      'resource://guide/',
      'https://example.org/guide/e.md',
      'HTTPS://Example.org/Upper/f.md',
      'https://example.org',
      'https://example.org/',
      'file:///notes/g.md',
      'notes/h.md',
      'plain',
      'x-y.z://guide/i.md',
      'resource://a//b/j.md',
    ];
    const writer = new LlmsTxtWriter(MANIFEST, undefined);
    uris.forEach((uri, position) => {
      writer.add(doc(`resources/${position}.json`, uri, `T${position}`, 'text'));
    });
    const sections: Record<string, string[]> = {};
    let section = '';
    for (const line of writer.renderIndex().split('\n')) {
      if (line.startsWith('## ')) section = line.slice(3);
      else if (line.startsWith('- [')) {
        const titles = sections[section] ?? [];
        titles.push(line.slice(3, line.indexOf(']')));
        sections[section] = titles;
      }
    }
    expect(sections).toEqual({
      Documents: ['T11', 'T4', 'T7', 'T8'],
      'a/b': ['T13'],
      guide: ['T0', 'T12', 'T1', 'T5'],
      'guide/deep': ['T2', 'T3'],
      notes: ['T10', 'T9'],
      Upper: ['T6'],
    });
  });

  it('writes the same files with its entries waiting in a scratch folder, in the order a string sort gives', () => {
    const scratch = temporaryFolderSync('llms-scratch-');
    const inMemory = new LlmsTxtWriter(MANIFEST, undefined, 10_000);
    const spilled = new LlmsTxtWriter(MANIFEST, undefined, 10_000, scratch);
    // A title past U+FFFF against one in U+E000-U+FFFF: UTF-16 order and UTF-8 order part there.
    const titles = ['\u{1F600} smile', '\uFF21 wide', 'plain', 'Ünïcode', 'zeta'];
    titles.forEach((title, index) => {
      const document = doc(`resources/d${(index * 7) % 5}.json`, `resource://d${index}.md`, title, `Text ${index}.`);
      inMemory.add(document);
      spilled.add(document);
    });
    const index = spilled.renderIndex();
    expect(index).toBe(inMemory.renderIndex());
    const listed = index.split('\n').filter((line) => line.startsWith('- '));
    expect(listed).toEqual([...listed].sort());
    const file = path.join(scratch, 'llms-full.txt');
    const written = spilled.writeFullFile(file);
    const bytes = readFileSync(file);
    expect(bytes.equals(inMemory.renderFullBytes())).toBe(true);
    expect(written.sizeBytes).toBe(bytes.length);
    // Linked into the tree as it is: readable by a web server, as the tree's other files.
    expect(statSync(file).mode & 0o044).toBe(0o044);
  });

  it('writes the same llms.txt from a scratch folder when its sections interleave over many windows', () => {
    const scratch = temporaryFolderSync('llms-windows-');
    const inMemory = new LlmsTxtWriter(MANIFEST, undefined, 0);
    const spilled = new LlmsTxtWriter(MANIFEST, undefined, 0, scratch);
    // ~2.5 MiB of lines, each section's spread over the whole scratch file (read back through its
    // 1 MiB window, which moves back and forth between sections), one line longer than the window.
    for (let index = 0; index < 6000; index += 1) {
      const title = index === 4321 ? `long ${'x'.repeat(1_200_000)}` : `title ${index} ${'y'.repeat(400)}`;
      const document = doc(`resources/s${index % 7}/d${index}.md`, `resource://d${index}.md`, title, 'Text.');
      inMemory.add(document);
      spilled.add(document);
    }
    const index = spilled.renderIndex();
    expect(index).toBe(inMemory.renderIndex());
    expect(index).toContain('x'.repeat(1_200_000));
    expect(index.split('\n').filter((line) => line.startsWith('- '))).toHaveLength(6000);
  });

  it('writes each section whole when a larger section comes before a smaller one', () => {
    const scratch = temporaryFolderSync('llms-sections-');
    const spilled = new LlmsTxtWriter(MANIFEST, undefined, 0, scratch);
    // Sections are read and sorted one after another in the same arrays: the second, shorter one
    // must not carry the first one's lines or bytes.
    const big = ['delta', 'alpha', 'charlie', 'bravo'].map((word) => `${word} ${word.repeat(30)}`);
    big.forEach((title, index) => {
      spilled.add(doc(`resources/a/d${index}.md`, `resource://a/d${index}.md`, title, 'Text.'));
    });
    spilled.add(doc('resources/b/e.md', 'resource://b/e.md', 'echo', 'Text.'));
    const file = path.join(scratch, 'llms.txt');
    const written = spilled.writeIndexFile(file);
    const expected = [
      '# lanterns',
      '',
      '> Notes on lanterns.',
      '',
      '## a',
      '',
      ...[...big]
        .map((title, index) => ({ title, index }))
        .sort((left, right) => (left.title < right.title ? -1 : 1))
        .map(({ title, index }) => `- [${title}](./?doc=resources/a/d${index}.md)`),
      '',
      '## b',
      '',
      '- [echo](./?doc=resources/b/e.md)',
      '',
    ].join('\n');
    expect(readFileSync(file, 'utf8')).toBe(expected);
    expect(written.sizeBytes).toBe(Buffer.byteLength(expected));
  });

  it('takes a kept entry instead of the text on a rebuild, and reads the text when the kept file is damaged', () => {
    const folder = temporaryFolderSync('staticmcp-llms-kept-');
    const file = path.join(folder, 'llms-full-entries.bin');
    const keyed = (id: string, text: string | (() => string)) => {
      const document = {
        ...doc(`resources/${id}.json`, `resource://${id}.md`, id.toUpperCase(), ''),
        sourceKey: `key of ${id} ${typeof text === 'string' ? text : 'same'}`,
      };
      return Object.defineProperty(document, 'text', { get: typeof text === 'string' ? () => text : text });
    };
    const unread = () => {
      throw new Error('the text of a kept document was read');
    };
    const writeWith = (readPrevious: boolean, documents: ReturnType<typeof keyed>[]) => {
      const kept = new KeptLlmsEntries(file, 'writer', readPrevious);
      const writer = new LlmsTxtWriter(MANIFEST, undefined, 1000, undefined, kept);
      for (const document of documents) writer.add(document);
      kept.commit();
      return writer.renderFull();
    };
    const first = writeWith(false, [keyed('a', 'Ay text.'), keyed('b', () => 'Bee text.')]);
    expect(first).toContain('Bee text.');
    // b unchanged (same source key): its entry comes from the kept file; a edited: its new text.
    const second = writeWith(true, [keyed('a', 'Ay, edited.'), keyed('b', unread)]);
    expect(second).toBe(first.replace('Ay text.', 'Ay, edited.'));
    // A flipped byte: the whole kept file is ignored and the text read again.
    const bytes = readFileSync(file);
    bytes[bytes.length - 40]! ^= 0xff;
    writeFileSync(file, bytes);
    expect(() => writeWith(true, [keyed('a', 'Ay, edited.'), keyed('b', unread)])).toThrow(/kept document was read/);
  });

  it('finds a kept entry by the source digest it is given, and ignores a kept file of the older key form', () => {
    const folder = temporaryFolderSync('staticmcp-llms-digest-');
    const file = path.join(folder, 'llms-full-entries.bin');
    const asked: string[] = [];
    const digestOf = (salt: string) => (sourceKey: string) => {
      asked.push(sourceKey);
      return createHash('sha256').update(`${salt}\0${sourceKey}`).digest();
    };
    const keyed = (id: string, text: () => string) =>
      Object.defineProperty(
        { ...doc(`resources/${id}.json`, `resource://${id}.md`, id, ''), sourceKey: `key of ${id}` },
        'text',
        { get: text },
      );
    const unread = () => {
      throw new Error('the text of a kept document was read');
    };
    const writeWith = (readPrevious: boolean, salt: string, text: () => string) => {
      const kept = new KeptLlmsEntries(file, 'writer', readPrevious, digestOf(salt));
      const writer = new LlmsTxtWriter(MANIFEST, undefined, 1000, undefined, kept);
      writer.add(keyed('a', text));
      kept.commit();
      return writer.renderFull();
    };
    const first = writeWith(false, 'porter', () => 'Ay text.');
    expect(asked).toEqual(['key of a']);
    expect(writeWith(true, 'porter', unread)).toBe(first);
    // Another digest of the same key (the index's stemming changed): the text is read.
    expect(writeWith(true, 'none', () => 'Ay text.')).toBe(first);
    // A kept file of the previous form (keys made of the source key itself) is not read.
    const bytes = readFileSync(file);
    bytes.write('SMCPLF02', 0, 'latin1');
    writeFileSync(file, bytes);
    expect(() => writeWith(true, 'none', unread)).toThrow(/kept document was read/);
    expect(writeWith(true, 'none', () => 'Ay text.')).toBe(first);
  });

  it('writes the same llms-full.txt from kept parts and scratch entries as from memory, in id order', () => {
    const folder = temporaryFolderSync('staticmcp-llms-runs-');
    const file = path.join(folder, 'llms-full-entries.bin');
    const documents = (edited: number) =>
      Array.from({ length: 3000 }, (_, index) => ({
        ...doc(
          `resources/d${index}.json`,
          `resource://d${index}.md`,
          `D ${index}`,
          `Text ${index} ${'z'.repeat(600)}.`,
        ),
        sourceKey: `key ${index} ${index === edited ? 'edited' : ''}`,
        ...(index === edited ? { text: `Edited ${index}.` } : {}),
      }));
    // Each build's documents come in an order other than their ids' (a run of entries that lie end
    // to end in one file breaks where the order jumps), one entry longer than a run is read at once.
    const order = (list: ReturnType<typeof documents>) => [...list.slice(1500).reverse(), ...list.slice(0, 1500)];
    const build = (edited: number, readPrevious: boolean) => {
      const scratch = temporaryFolderSync('staticmcp-llms-runs-scratch-');
      const kept = new KeptLlmsEntries(file, 'writer', readPrevious);
      const spilled = new LlmsTxtWriter(MANIFEST, undefined, 4_000_000, scratch, kept);
      const inMemory = new LlmsTxtWriter(MANIFEST, undefined, 4_000_000);
      const list = order(documents(edited));
      list[2000] = { ...list[2000]!, text: 'y'.repeat(1_200_000), sourceKey: 'long' };
      for (const document of list) {
        spilled.add(document);
        inMemory.add(document);
      }
      const written = path.join(scratch, 'llms-full.txt');
      spilled.writeFullFile(written);
      kept.commit();
      const expected = inMemory.renderFullBytes();
      expect(readFileSync(written).equals(expected)).toBe(true);
      return expected.toString('utf8');
    };
    const first = build(-1, false);
    expect(first.indexOf('Text 10 ')).toBeLessThan(first.indexOf('Text 2999 '));
    const second = build(1234, true);
    expect(second).toContain('Edited 1234.');
    expect(second).not.toContain('Text 1234 ');
    expect(second.length).toBe(first.length - 'Text 1234 .'.length - 600 + 'Edited 1234.'.length);
  });

  it('gives renderFullBytes whole entries when they wait in a scratch folder', () => {
    const scratch = temporaryFolderSync('staticmcp-llms-render-');
    const spilled = new LlmsTxtWriter(MANIFEST, undefined, 10_000_000, scratch);
    const inMemory = new LlmsTxtWriter(MANIFEST, undefined, 10_000_000);
    for (let index = 0; index < 4000; index += 1) {
      const document = doc(
        `resources/r${(index * 37) % 4000}.json`,
        `resource://r${index}.md`,
        `R ${index}`,
        `${index} ${'w'.repeat(500)}`,
      );
      spilled.add(document);
      inMemory.add(document);
    }
    expect(spilled.renderFullBytes().equals(inMemory.renderFullBytes())).toBe(true);
  });
});

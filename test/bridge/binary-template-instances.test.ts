// A resource template whose provider prints binary data (issue 21, item 10): the instance is
// published as a base64 `blob` holding exactly the bytes printed, both from the tree (built) and
// read live, over the stdio bridge; on 050d520 both were UTF-8-decoded `text` (0x89, NUL and 0xFF
// turned into replacement characters). A text template next to it stays `text`.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_SCRIPTS } from '../helpers/paths.js';
import { writeProject } from '../helpers/projects.js';
import { RawBridge } from '../helpers/raw-bridge.js';
import { buildTreeInProcess } from '../helpers/in-process-build.js';

const PROVIDER = readFileSync(path.join(FIXTURE_SCRIPTS, 'print-png-bytes'), 'utf8');

/** What print-png-bytes prints for `name`. */
function pngBytesFor(name: string): Buffer {
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff]), Buffer.from(name)]);
}

let project: string;
let bridge: RawBridge;

beforeAll(async () => {
  project = await writeProject({
    'resources/images.meta.json': JSON.stringify({
      name: 'images',
      uriTemplate: 'image://{name}.png',
      mimeType: 'image/png',
      provider: 'providers/print-png-bytes',
      values: { name: ['dot'] },
    }),
    // The same bytes under a text type: not valid UTF-8, so still a blob, never mangled text.
    'resources/raw.meta.json': JSON.stringify({
      name: 'raw',
      uriTemplate: 'raw://{name}',
      mimeType: 'text/plain',
      provider: 'providers/print-png-bytes',
      values: { name: ['dot'] },
    }),
    'resources/notes.meta.json': JSON.stringify({
      name: 'notes',
      uriTemplate: 'notes://{name}',
      mimeType: 'text/plain',
      provider: 'providers/print-name',
      values: { name: ['first'] },
    }),
    'providers/print-png-bytes': { script: PROVIDER },
    'providers/print-name': { script: '#!/bin/sh\nprintf "note %s\\n" "$name"\n' },
  });
  await buildTreeInProcess(project);
  bridge = new RawBridge([path.join(project, 'dist'), '--live', project]);
  await bridge.initialize();
});

afterAll(async () => {
  await bridge?.close();
});

async function readContents(uri: string): Promise<Record<string, unknown>> {
  const answer = await bridge.request('resources/read', { uri });
  const contents = (answer.result as { contents?: Record<string, unknown>[] } | undefined)?.contents;
  expect(contents, JSON.stringify(answer)).toHaveLength(1);
  return contents![0]!;
}

describe('binary template instances', () => {
  it('are written to the tree as a blob of the exact bytes', () => {
    const file = JSON.parse(readFileSync(path.join(project, 'dist', 'resources', 'dot_png.json'), 'utf8'));
    expect(file).toMatchObject({ uri: 'image://dot.png', mimeType: 'image/png' });
    expect(Buffer.from(file.blob, 'base64')).toEqual(pngBytesFor('dot'));
  });

  it('are served from the tree and read live as a blob of the exact bytes', async () => {
    const built = await readContents('image://dot.png');
    expect(built).toMatchObject({ uri: 'image://dot.png', mimeType: 'image/png' });
    expect(built).not.toHaveProperty('text');
    expect(Buffer.from(built.blob as string, 'base64')).toEqual(pngBytesFor('dot'));

    const live = await readContents('image://live.png');
    expect(live).toEqual({
      uri: 'image://live.png',
      mimeType: 'image/png',
      blob: pngBytesFor('live').toString('base64'),
    });
  });

  it('bytes that are not UTF-8 stay a blob under a text type, alike from the tree and live; text stays text', async () => {
    const built = await readContents('raw://dot');
    expect(Buffer.from(built.blob as string, 'base64')).toEqual(pngBytesFor('dot'));
    const live = await readContents('raw://other');
    expect(live).toEqual({ uri: 'raw://other', mimeType: 'text/plain', blob: pngBytesFor('other').toString('base64') });

    expect(await readContents('notes://first')).toEqual({
      uri: 'notes://first',
      mimeType: 'text/plain',
      text: 'note first\n',
    });
    expect(await readContents('notes://second')).toEqual({
      uri: 'notes://second',
      mimeType: 'text/plain',
      text: 'note second\n',
    });
  });
});

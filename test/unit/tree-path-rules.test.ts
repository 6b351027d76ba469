// A resource's tree path (resourceFilePath, rawResourceFilePath, encodedTwinOf) and the plain tree
// path rule (findTreePathProblem) are walked segment by segment without splitting (a build runs
// them several times a document): on generated URIs and paths — dots, `.git` in any case, empty
// segments, slashes, non-ASCII letters, over-long segments — they answer what the rules written
// with split/map/join answer.
import { describe, expect, it } from 'vitest';
import { encodeKeySegment } from '../../src/core/tree/encode-filename.js';
import { encodedTwinOf, rawResourceFilePath, resourceFilePath } from '../../src/core/tree/resource-key.js';
import { findTreePathProblem } from '../../src/core/tree/tree-path.js';
import { pick, random } from '../helpers/random.js';

const PIECES = [
  'a',
  'Z',
  '0',
  '-',
  '_',
  '.',
  '..',
  '/',
  '//',
  '.git',
  '.GiT',
  'é',
  'e\u0301',
  'İ',
  ' ',
  '~',
  '😀',
  '\\',
];
const LONG_PIECES = ['x'.repeat(199), 'y'.repeat(201)];

function generated(count: number): string[] {
  const next = random(39);
  return Array.from({ length: count }, () => {
    const pieces = Array.from({ length: Math.floor(next() * 7) }, () =>
      next() < 0.02 ? pick(next, LONG_PIECES) : pick(next, PIECES),
    );
    return pieces.join('');
  });
}

/** The rules as they were written with split, map and join. */
function splitEncodedPath(afterScheme: string): string {
  const segments = afterScheme.replace(/^\/+/, '').split('/').map(encodeKeySegment);
  const last = segments.pop()!;
  return [...segments, `${last}.json`].join('/');
}

/** rawResourceFilePath as it was written with replace, split, every and join. */
function splitRawResourceFilePath(uri: string): string | undefined {
  const schemeEnd = uri.indexOf('://');
  if (schemeEnd < 0 || uri.startsWith('skill://')) return undefined;
  const segments = uri
    .slice(schemeEnd + 3)
    .replace(/^\/+/, '')
    .split('/');
  if (!segments.every((segment) => /^[A-Za-z0-9._~-]+$/.test(segment) && segment !== '.' && segment !== '..'))
    return undefined;
  const raw = `resources/${segments.join('/')}.json`;
  return raw === resourceFilePath(uri) ? undefined : raw;
}

function splitPathProblem(candidate: string): string | undefined {
  if (candidate === '') return 'it is empty';
  if (candidate.includes('\0')) return 'it holds a NUL character';
  if (candidate.includes('\\')) return 'it holds a backslash';
  if (candidate.startsWith('/')) return 'it is absolute';
  for (const segment of candidate.split('/')) {
    if (segment === '') return 'it has an empty segment';
    if (segment === '.' || segment === '..') return `it has a "${segment}" segment`;
    if (segment.toLowerCase() === '.git') return 'it has a ".git" segment';
  }
  return undefined;
}

describe('tree path rules walked without split', () => {
  it('names every resource file as the split rule does', () => {
    const differing: string[] = [];
    for (const value of generated(5_000)) {
      const twin = `resources/${splitEncodedPath(value)}`;
      const raw = rawResourceFilePath(`res://${value}`);
      if (
        resourceFilePath(`res://${value}`) !== twin ||
        encodedTwinOf(`resources/${value}.json`) !== (twin === `resources/${value}.json` ? undefined : twin) ||
        (raw !== undefined && raw !== `resources/${value.replace(/^\/+/, '')}.json`)
      )
        differing.push(value);
    }
    expect(differing).toEqual([]);
  });

  it('gives a resource the raw name the split rule gives it, and none where that rule gives none', () => {
    const uris = [...generated(5_000), 'a.b', 'A', 'a/b.c', 'a~b', '.a', 'a/../b', '...', 'abc', 'a/b'].flatMap(
      (value) => [`res://${value}`, `file:///${value}`, `skill://${value}`, value],
    );
    expect(uris.map(rawResourceFilePath)).toEqual(uris.map(splitRawResourceFilePath));
    expect(uris.filter((uri) => rawResourceFilePath(uri) !== undefined).length).toBeGreaterThan(100);
  });

  it('gives two URIs one raw name only when it gives them one encoded name too', () => {
    // The assembly writes each raw-name copy unchecked for a second claim (raw-resource-copies.ts):
    // two resources of one raw name must have been refused already for sharing their encoded name.
    const values = [...generated(3_000), 'a.b', 'A', 'a/b.c', 'a~b', 'abc', 'a/b', 'a_b', 'a-b'];
    const uris = values.flatMap((value) => [`res://${value}`, `file:///${value}`, `doc://${value}`, `x:///${value}`]);
    const encodedByRaw = new Map<string, Set<string>>();
    for (const uri of uris) {
      const raw = rawResourceFilePath(uri);
      if (raw === undefined) continue;
      const encoded = encodedByRaw.get(raw) ?? new Set<string>();
      encoded.add(resourceFilePath(uri));
      encodedByRaw.set(raw, encoded);
    }
    const sharedRaw = [...encodedByRaw.values()].filter((encoded) => encoded.size > 1);
    expect(sharedRaw).toEqual([]);
    // Each raw name was reached from several URIs (schemes and leading slashes), so the check has teeth.
    expect(encodedByRaw.size).toBeGreaterThan(100);
  });

  it('refuses exactly the paths the split rule refuses, for the same reason', () => {
    const values = [...generated(5_000), 'a/.git', 'a/.GIT/b', '.gitx/a', 'a/..', './a', 'a//b', 'a/', 'a/b'];
    expect(values.map(findTreePathProblem)).toEqual(values.map(splitPathProblem));
    expect(values.filter((value) => findTreePathProblem(value) === undefined).length).toBeGreaterThan(100);
  });
});

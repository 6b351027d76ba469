// Matching a URI back to a resource template's variables (issue 21, item 4): the linear matcher
// answers exactly what the backtracking RegExp it replaced answered (that RegExp is kept here as
// the specification and compared on seeded random templates and URIs), and the URI shapes that
// made the RegExp quadratic are answered correctly.
import { describe, expect, it } from 'vitest';
import { matchUriTemplate, parseUriTemplate } from '../../src/core/tree/uri-template.js';
import { pick, random } from '../helpers/random.js';

/** The matcher of 050d520, verbatim in behaviour: the reference for every answer. */
function matchLikeTheRegExp(template: string, uri: string): Record<string, string> | null {
  let parts: ReturnType<typeof parseUriTemplate>;
  try {
    parts = parseUriTemplate(template);
  } catch {
    return null;
  }
  const names: string[] = [];
  const pattern = parts
    .map((part) => {
      if (part.literal !== undefined) return part.literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(part.variable!);
      if (part.operator === '#') return '(?:#(.*))?';
      return part.operator === '+' ? '(.*?)' : '([^/?#]*)';
    })
    .join('');
  const match = new RegExp(`^${pattern}$`, 's').exec(uri);
  if (!match) return null;
  const values: Record<string, string> = {};
  for (const [index, name] of names.entries()) {
    try {
      values[name] = decodeURIComponent(match[index + 1] ?? '');
    } catch {
      return null;
    }
  }
  return values;
}

describe('matchUriTemplate', () => {
  it('reads the variables of an instance: segments, reserved expansions and fragments', () => {
    expect(matchUriTemplate('example://planets/{planet}', 'example://planets/mars')).toEqual({ planet: 'mars' });
    expect(matchUriTemplate('example://planets/{planet}', 'example://planets/mars/moons')).toBeNull();
    expect(matchUriTemplate('file://{name}.{ext}', 'file://archive.tar.gz')).toEqual({
      name: 'archive.tar',
      ext: 'gz',
    });
    expect(matchUriTemplate('repo://{+path}/README', 'repo://a/b/README/README')).toEqual({ path: 'a/b/README' });
    expect(matchUriTemplate('doc://{id}{#section}', 'doc://intro#part%202')).toEqual({
      id: 'intro',
      section: 'part 2',
    });
    expect(matchUriTemplate('doc://{id}{#section}', 'doc://intro')).toEqual({ id: 'intro', section: '' });
    expect(matchUriTemplate('city://{name}', 'city://S%C3%A3o%20Paulo')).toEqual({ name: 'São Paulo' });
    expect(matchUriTemplate('city://{name}', 'city://%E0%A4%A')).toBeNull();
    expect(matchUriTemplate('a://{x}/{x}', 'a://1/2')).toEqual({ x: '2' });
    expect(matchUriTemplate('not a template', 'not a template')).toBeNull();
  });

  it('answers the shapes that made the RegExp quadratic, with the same answer', () => {
    // The RegExp needs seconds at 40 KB, so it is compared at 2 KB; the answers do not depend on length.
    const few = '.'.repeat(2_000);
    for (const uri of [`file://${few}`, `file://${few}/`, `file://${few}?`, `file://x${few}#`, `file://${few}x`]) {
      expect(matchUriTemplate('file://{name}.{ext}', uri)).toEqual(matchLikeTheRegExp('file://{name}.{ext}', uri));
    }
    const dots = '.'.repeat(40_000);
    expect(matchUriTemplate('file://{name}.{ext}', `file://${dots}/`)).toBeNull();
    expect(matchUriTemplate('file://{name}.{ext}', `file://${dots}`)).toEqual({ name: '.'.repeat(39_999), ext: '' });
  });

  it('agrees with the RegExp on 5,000 seeded random templates and URIs', () => {
    const next = random(21_4);
    const pieces = ['a', '.', '/', '?', '#', '%41', '%', '-', 'ab', '://'];
    const expressions = ['{x}', '{y}', '{+x}', '{+z}', '{#f}', '{x}'];
    for (let round = 0; round < 5_000; round++) {
      let template = pick(next, ['s://', '', 'file://']);
      const partCount = 1 + Math.floor(next() * 4);
      for (let index = 0; index < partCount; index++) {
        template += next() < 0.5 ? pick(next, expressions) : pick(next, pieces);
      }
      let uri = template.startsWith('s://') ? 's://' : template.startsWith('file://') ? 'file://' : '';
      const length = Math.floor(next() * 9);
      for (let index = 0; index < length; index++) uri += pick(next, pieces);
      expect({ template, uri, found: matchUriTemplate(template, uri) }).toEqual({
        template,
        uri,
        found: matchLikeTheRegExp(template, uri),
      });
    }
  });
});

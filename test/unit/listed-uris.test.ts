// The document lister's memory of the URIs it listed (src/core/search/listed-uris.ts): it answers
// as a Set of every URI would, whether the list ascends (the build's and merge's lists, where it
// keeps only the last) or not (any other tree's, where it reads the lists again once), so a
// repeated resource is skipped and no other one is.
import { describe, expect, it } from 'vitest';
import { ListedUris } from '../../src/core/search/listed-uris.js';

/** Adds `uris` in order, as the lister does, beside a Set; returns what each add said and how many relists ran. */
async function addAll(lists: readonly (readonly unknown[])[]) {
  let relists = 0;
  const listed = new ListedUris(async function* () {
    relists += 1;
    yield* lists;
  });
  const reference = new Set<string>();
  const answers: boolean[] = [];
  const expected: boolean[] = [];
  for (const entries of lists)
    for (const entry of entries) {
      const uri = (entry as { uri?: unknown }).uri;
      if (typeof uri !== 'string') continue;
      answers.push(await listed.add(uri));
      expected.push(!reference.has(uri));
      reference.add(uri);
    }
  return { answers, expected, relists };
}

const entry = (uri: string) => ({ uri, name: uri });

describe('ListedUris', () => {
  it('takes every URI of an ascending list without reading the lists again', async () => {
    const lists = [
      ['a', 'b'].map(entry),
      Array.from({ length: 5000 }, (_, index) => entry(`resource://docs/${String(index).padStart(5, '0')}.md`)),
    ];
    const { answers, expected, relists } = await addAll(lists);
    expect(answers).toEqual(expected);
    expect(answers.every(Boolean)).toBe(true);
    expect(relists).toBe(0);
  });

  it('skips a repeat right after its first, one from parts before, and takes a new URI out of order', async () => {
    const lists = [
      [entry('resource://b'), { name: 'no uri' }, entry('resource://c'), entry('resource://c')],
      [entry('resource://d'), 42, entry('resource://a'), entry('resource://b'), entry('resource://é😀')],
      [entry('resource://e'), entry('resource://d'), entry('resource://a'), entry('resource://0')],
    ];
    const { answers, expected, relists } = await addAll(lists);
    expect(answers).toEqual([true, true, false, true, true, false, true, true, false, false, true]);
    expect(answers).toEqual(expected);
    // Once, at the first URI that did not ascend; every later one goes to the set.
    expect(relists).toBe(1);
  });
});

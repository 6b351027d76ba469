// What a build keeps per document (a Markdown title and description, the stem caches' terms, a
// posting run's dictionary) must not keep the whole document alive: V8 makes a long substring a
// view into its parent string, which once held every document of a 6,000-page build in memory
// (detached-string.ts). Each case cuts what is kept from 512 KiB documents and checks the heap
// after a full collection grows by far less than the documents.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { stemKeyOf, stemOf } from '../../src/core/search/stem.js';
import { tokenize } from '../../src/core/search/tokenize.js';
import { summarizeMarkdown } from '../../src/project/markdown-summary.js';

setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

const DOCUMENTS = 20;
const DOCUMENT_CHARS = 512 * 1024;

/** A document unlike every other (so no two share a parent string), `DOCUMENT_CHARS` long. */
function documentText(index: number): string {
  // One-word title and description: a title with no white space to fold came back as a view.
  const heading = `# Heading-number-${index}-of-a-long-document\n\nThe-description-of-document-${index}\n\n`;
  return `${heading}${`body${index}word body${index}word\n\n`.repeat(DOCUMENT_CHARS / 24)}`;
}

/** Heap growth, in bytes, of keeping `keep(i)` for DOCUMENTS documents made and dropped one by one. */
function retainedBytes(keep: (text: string, index: number) => unknown): number {
  collect();
  const before = process.memoryUsage().heapUsed;
  const kept: unknown[] = [];
  for (let index = 0; index < DOCUMENTS; index += 1) kept.push(keep(documentText(index), index));
  collect();
  const grown = process.memoryUsage().heapUsed - before;
  expect(kept).toHaveLength(DOCUMENTS);
  return grown;
}

// The documents together are 20 × 512 Ki characters (10 MiB); what is kept is a few hundred bytes each.
const BOUND_BYTES = 3 * 1024 * 1024;

describe('what a build keeps of a document', () => {
  it('a Markdown title and description do not hold the document', () => {
    const grown = retainedBytes((text) => summarizeMarkdown(text));
    expect(grown).toBeLessThan(BOUND_BYTES);
  });

  it('the stem caches do not hold the documents their terms came from', () => {
    const grown = retainedBytes((text, index) => {
      // A long term of its own per document, cut from the whole text as the index cuts terms.
      const terms = tokenize(`${text} uniquelongword${'q'.repeat(index + 1)}`);
      const term = terms.find((each) => each.startsWith('uniquelongword'))!;
      return [stemOf(term).length, stemKeyOf(term).length];
    });
    expect(grown).toBeLessThan(BOUND_BYTES);
  });
});

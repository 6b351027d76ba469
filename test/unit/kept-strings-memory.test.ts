// What a build keeps per document (a Markdown title and description, the stem cache's terms, a
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
import { ownString } from '../../src/project/own-string.js';

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

  it('stem keys of many distinct words keep none of them', () => {
    // A content build asks the stem key of each word its key counter holds: most are the
    // documents' own numbers and names, a new one per document.
    const count = 50_000;
    let length = 0;
    collect();
    const before = process.memoryUsage().heapUsed;
    for (let index = 0; index < count; index += 1) length += stemKeyOf(`page${index}name`).length;
    collect();
    const grown = process.memoryUsage().heapUsed - before;
    expect(length).toBeGreaterThan(count * 10);
    // Remembering each word and its key took ~100 bytes a word.
    expect(grown).toBeLessThan(count * 10);
  });

  it('a kept path costs its own characters, not a view of a copy', () => {
    // Discovery keeps a path like these for every document it walks (walk-folder.ts).
    const count = 50_000;
    collect();
    const before = process.memoryUsage().heapUsed;
    const kept: string[] = [];
    for (let index = 0; index < count; index += 1) {
      const line = `man1/gcloud_beta_auth_application-default-${index}.1.md and the rest of the line`;
      kept.push(ownString(line.slice(0, line.indexOf(' '))));
    }
    collect();
    const perPathBytes = (process.memoryUsage().heapUsed - before) / count;
    expect(kept[7]).toBe('man1/gcloud_beta_auth_application-default-7.1.md');
    // A flat string of ~50 one-byte characters is ~72 bytes and its array slot 8: a view (32 bytes)
    // of a copy one character longer made it ~115.
    expect(perPathBytes).toBeLessThan(96);
  });
});

// A document whose plain front matter gives its title and description (or one of them, and its
// plain head the other) is summarized without the parser (plain-summary.ts), and must give exactly
// what the parser's reading gives; every front matter YAML could read as anything but those
// strings, and every head after it that is not plain, must go to the parser. Each case is
// compared with summarizeByParse.
import { describe, expect, it } from 'vitest';
import { summarizeByParse, summarizeMarkdown } from '../../src/project/markdown-summary.js';
import { plainSummaryOf } from '../../src/project/plain-summary.js';

const body = '\n# Heading of the body\n\nThe first paragraph of the body.\n';

const PLAIN: string[] = [
  `---\ntitle: Document 7\ndescription: static content server tree pack index\n---\n${body}`,
  `---\ntitle:   Spaced   words  \ndescription: It's a "quoted" word, a; b! (c) d/e_f+g=h&i%j*k~l$m^n-o?\n---\n${body}`,
  `---\ntitle: Ünïcödé Τίτλος\ndescription: Snake_case and a:b and c#d stay text\nurl: https://example.com/a?b=c#d\n---\n${body}`,
  `---\ntitle: T\ndescription: D\ncanonical: https://example.com/page\ntags: one, two\nlast-modified: soon\n---\n`,
  `---\ntitle: Long\ndescription: ${'word '.repeat(100).trim()}\n---\n${body}`,
  `---\ntitle: Title only ends the file\ndescription: no newline after the fence\n---`,
  // One field from the front matter, the other from the body's plain head.
  `---\ntitle: From the front matter\n---\n${body}`,
  `---\ndescription: From the front matter\n---\n${body}`,
  `---\ntitle: A title\n---\n\nA first paragraph after a blank line,\nover two lines.\n`,
  `---\ntags: none of the two\n---\n# Heading only\n`,
  `---\ntitle: Nothing after the fence\n---\n`,
];

const PARSED: string[] = [
  // Not both fields, and a body whose head is not plain: the parser reads it.
  `---\ntitle: Only a title\n---\n# Heading\n\nA *marked* paragraph.\n`,
  `---\ndescription: Only a description\n---\n- a list first\n\n# Heading\n`,
  `---\ntitle: t\n---\n---\nsecond: fence\n---\nText.\n`,
  // Values YAML reads as something else, or reads otherwise.
  `---\ntitle: true\ndescription: d\n---\n${body}`,
  `---\ntitle: Null\ndescription: d\n---\n${body}`,
  `---\ntitle: 2024 roadmap\ndescription: d\n---\n${body}`,
  `---\ntitle: "quoted"\ndescription: d\n---\n${body}`,
  `---\ntitle: a: b\ndescription: d\n---\n${body}`,
  `---\ntitle: ends with a colon:\ndescription: d\n---\n${body}`,
  `---\ntitle: a comment # here\ndescription: d\n---\n${body}`,
  `---\ntitle: [a, b]\ndescription: d\n---\n${body}`,
  `---\ntitle: &anchor a\ndescription: *anchor\n---\n${body}`,
  `---\ntitle: a\ttab\ndescription: d\n---\n${body}`,
  `---\ntitle:\ndescription: d\n---\n${body}`,
  `---\ntitle: >\n  folded\ndescription: d\n---\n${body}`,
  // Keys twice (a YAML error), keys YAML reads otherwise, lines that are no field.
  `---\ntitle: a\ntitle: b\ndescription: d\n---\n${body}`,
  `---\ntrue: a\ntitle: t\ndescription: d\n---\n${body}`,
  `---\ntitle: t\n\ndescription: d\n---\n${body}`,
  `---\n# a comment\ntitle: t\ndescription: d\n---\n${body}`,
  `---\ntitle: t\ndescription: d\n  more: indented\n---\n${body}`,
  // Fences other than plain `---` lines, Windows line ends, no closing fence.
  `---  \ntitle: t\ndescription: d\n---\n${body}`,
  `---\ntitle: t\ndescription: d\n---  \n${body}`,
  `---\r\ntitle: t\r\ndescription: d\r\n---\r\n${body}`,
  `---\ntitle: t\ndescription: d\n${body}`,
  `\uFEFF---\ntitle: t\ndescription: d\n---\n${body}`,
];

describe('plainSummaryOf (front matter)', () => {
  it('reads a plain front matter as the parser does', () => {
    for (const markdown of PLAIN) {
      expect(plainSummaryOf(markdown), JSON.stringify(markdown)).toBeDefined();
      expect(plainSummaryOf(markdown), JSON.stringify(markdown)).toEqual(summarizeByParse(markdown));
    }
  });

  it('leaves every other front matter to the parser', () => {
    for (const markdown of PARSED) {
      expect(plainSummaryOf(markdown), JSON.stringify(markdown)).toBeUndefined();
      expect(summarizeMarkdown(markdown), JSON.stringify(markdown)).toEqual(summarizeByParse(markdown));
    }
  });

  it('leaves a front matter over the bound to the parser, which does not read it', () => {
    const markdown = `---\ntitle: t\ndescription: d\n---\n${body}`;
    const previous = process.env.STATICMCP_MAX_FRONT_MATTER_BYTES;
    process.env.STATICMCP_MAX_FRONT_MATTER_BYTES = '16';
    try {
      expect(plainSummaryOf(markdown)).toBeUndefined();
      expect(summarizeMarkdown(markdown)).toEqual(summarizeByParse(markdown));
      expect(summarizeMarkdown(markdown).title).toBe('Heading of the body');
    } finally {
      if (previous === undefined) delete process.env.STATICMCP_MAX_FRONT_MATTER_BYTES;
      else process.env.STATICMCP_MAX_FRONT_MATTER_BYTES = previous;
    }
  });
});

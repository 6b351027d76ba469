// A plain document head is summarized without remark (plain-markdown-head.ts), and must give
// exactly what remark's reading gives; every head where CommonMark could read something else must
// go to the parser. Each case is compared with summarizeByParse.
import { describe, expect, it } from 'vitest';
import { summarizeByParse, summarizeMarkdown } from '../../src/project/markdown-summary.js';
import { plainHeadOf } from '../../src/project/plain-markdown-head.js';

const PLAIN: string[] = [
  '# ls(1)\n\n## NAME\n\nls - list directory contents\n\n## SYNOPSIS\n\nls [OPTION]... [FILE]...\n',
  '# Title\nA paragraph right under it,\nover two lines.\n\nMore.\n',
  'A paragraph first,\nthen more of it.\n\n## Heading after\n\ntext\n',
  '#\tTabbed heading \n\nTrailing space \nand a break that is not one.\n',
  '# Authen::SASL::Perl::CRAM_MD5(3pm)\n\nsnake_case and double__underscored words stay words.\n',
  '# Only a heading\n',
  '# Title\n\nParagraph,\n \t \nthen a line of spaces and a tab, which is blank.\n',
  'Only a paragraph, no heading at all: 1.5 GB (x) "quoted" — dashes.\n',
  '',
  '# Ünïcödé  heading\n\nΤο κείμενο   με   κενά.\n',
  `# Long\n\n${'word '.repeat(200)}\n`,
];

const PARSED: string[] = [
  '---\ntitle: From front matter\n---\n# Heading\n\nText.\n',
  '# Title with *emphasis*\n\nText.\n',
  '# Title\n\nA [link](https://example.com) here.\n',
  '# Title\n\nA hard break  \nhere.\n',
  '# Title\n\nAn &amp; entity.\n',
  '# Title\n\n<div>html</div>\n',
  '# Title\n\n- a list item\n',
  '# Title\n\n    indented code\n\nText.\n',
  '# Title\n\n> a quote\n',
  'Setext heading\n===\n\nText.\n',
  'Paragraph\n---\n\nText.\n',
  '# Closed heading #\n\nText.\n',
  '#NoSpace\n\nText.\n',
  '####### seven\n\nText.\n',
  '# Title\n\n1. ordered\n',
  '# Title\n\n_emphasis_ at the start\n',
  '# Title\r\n\r\nWindows line ends.\r\n',
  '\uFEFF# BOM\n\nText.\n',
  '# Title\n\nA `code` span.\n',
  '# Title\n\nAn escaped \\* star.\n',
  '#\n\nEmpty heading.\n',
  // A line of only a no-break space is no blank line: the paragraph goes on past it.
  '# Title\n\nPara one\n\u00a0\nPara two\n\nMore.\n',
];

describe('plainHeadOf', () => {
  it('reads plain heads as remark does', () => {
    for (const markdown of PLAIN) {
      expect(plainHeadOf(markdown), JSON.stringify(markdown)).toBeDefined();
      expect(summarizeMarkdown(markdown), JSON.stringify(markdown)).toEqual(summarizeByParse(markdown));
    }
  });

  it('leaves every head with markup, front matter or another block to the parser', () => {
    for (const markdown of PARSED) {
      expect(plainHeadOf(markdown), JSON.stringify(markdown)).toBeUndefined();
      expect(summarizeMarkdown(markdown), JSON.stringify(markdown)).toEqual(summarizeByParse(markdown));
    }
  });

  it('only reads as far as the first heading and paragraph', () => {
    // What comes after both (markup, a list) does not send the document to the parser.
    const markdown = '# Title\n\nFirst paragraph.\n\n- a *list* with [links](x)\n\n```\ncode\n```\n';
    expect(plainHeadOf(markdown)).toEqual({ heading: 'Title', paragraph: 'First paragraph.' });
    expect(summarizeMarkdown(markdown)).toEqual(summarizeByParse(markdown));
  });
});

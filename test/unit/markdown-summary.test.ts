// A Markdown document's title and description come from the head of the document when the head
// holds them (markdown-summary.ts), and read exactly as a whole parse reads them: a link defined
// at the end, a front matter with blank lines, a heading far down, a code fence or comment that
// spans the first cut, and a Windows line ending. A front matter over its bound is not parsed.
import { describe, expect, it } from 'vitest';
import { summarizeMarkdown, summaryPrefixOf } from '../../src/project/markdown-summary.js';
import { cpuMsSince } from '../helpers/cpu-time.js';

const filler = (words: number) => `${'filler '.repeat(words).trim()}.`;
const long = filler(500);

describe('summarizeMarkdown', () => {
  it('reads the title and description from the head of a long document', () => {
    const markdown = `# The title\n\nThe first paragraph.\n\n${`${long}\n\n`.repeat(20)}`;
    expect(summaryPrefixOf(markdown, 512)?.length).toBeLessThan(markdown.length / 4);
    expect(summarizeMarkdown(markdown)).toEqual({ title: 'The title', description: 'The first paragraph.' });
  });

  it('reads a link whose definition is past the head as a whole parse does', () => {
    const markdown = `# See [the guide]\n\n[the guide] explains it.\n\n${long}\n\n${long}\n\n[the guide]: https://example.com/guide\n`;
    expect(summarizeMarkdown(markdown)).toEqual({ title: 'See the guide', description: 'the guide explains it.' });
  });

  it('never cuts inside a front matter that has blank lines', () => {
    const markdown = `---\ntitle: From front matter\n${'# a comment\n\n'.repeat(200)}url: https://example.com/page\n---\n\n# Heading\n\nBody.\n\n${long}\n`;
    expect(summarizeMarkdown(markdown)).toEqual({
      title: 'From front matter',
      description: 'Body.',
      pageUrl: 'https://example.com/page',
    });
  });

  it('finds a heading and paragraph far down, past a fence and a comment that span the first cut', () => {
    const fence = `\`\`\`\n${long}\n\n# not a heading\n\n${long}\n\`\`\``;
    const comment = `<!--\n${long}\n\nnot a paragraph\n\n-->`;
    const markdown = `${fence}\n\n${comment}\n\n${`${long}\n\n`.repeat(4).replace(/filler/g, '- item')}## Late heading\n\nLate paragraph.\n`;
    expect(summarizeMarkdown(markdown)).toEqual({ title: 'Late heading', description: 'Late paragraph.' });
  });

  it('reads a document with Windows line endings and one without a heading', () => {
    const windows = `# Title\r\n\r\nFirst paragraph.\r\n\r\n${long}\r\n\r\n${long}\r\n`;
    expect(summarizeMarkdown(windows)).toEqual({ title: 'Title', description: 'First paragraph.' });
    expect(summarizeMarkdown(`Only a paragraph.\n\n${long}\n\n${long}\n`)).toEqual({
      description: 'Only a paragraph.',
    });
  });

  it('does not parse a front matter over the bound: headings give the title, with a warning', () => {
    // Ten thousand keys take the YAML parser seconds; past 64 KiB the page is summarized without it.
    const keys = Array.from({ length: 10_000 }, (_, at) => `key${at}: value ${at}`).join('\n');
    const start = process.cpuUsage();
    const summary = summarizeMarkdown(`---\ntitle: Never read\n${keys}\n---\n\n# Huge front matter\n\nIts body.\n`);
    expect(cpuMsSince(start)).toBeLessThan(2000);
    expect(summary).toMatchObject({ title: 'Huge front matter', description: 'Its body.' });
    expect(summary.frontMatterProblem).toMatch(
      /^has \d+ bytes of front matter, over STATICMCP_MAX_FRONT_MATTER_BYTES \(65536\)/,
    );
  });
});

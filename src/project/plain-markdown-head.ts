// The first heading and first paragraph of a Markdown document whose head is plain text, read
// line by line without a parser (markdown-summary.ts): a remark parse per document, even of its
// head, was the largest share of a content build after the search index, most of it the
// parser's setup per call. Only heads where CommonMark could not read anything else qualify: no
// front matter, no character that starts inline markup, an entity, HTML or a hard break, no line
// that could open another block (indented, a list item, a quote, a fence, a setext underline, a
// thematic break). Anything else returns undefined and goes to the parser, so the summary is
// always what remark gives (test/unit/plain-markdown-head.test.ts compares the two).

/** Characters that may start inline markup, an entity, an escape or HTML anywhere in a line. */
const INLINE_MARKUP = /[\\`*_[\]<>&!\0\r~]/;
/** A line that may start a block other than a paragraph or an ATX heading (or continue one oddly). */
const OTHER_BLOCK_START = /^(?:\s|[-+=>|#]|\d{1,9}[.)])/;
/** An ATX heading as this reads one: one to six `#`, white space, text with no `#`. */
const PLAIN_HEADING = /^#{1,6}[ \t]+([^#]*?)[ \t]*$/;
/**
 * Underscores with a letter or digit on both sides (`CRAM_MD5`): both left- and right-flanking, so
 * CommonMark never opens or closes emphasis with them.
 */
const INERT_UNDERSCORES = /(?<=[\p{L}\p{N}])_+(?=[\p{L}\p{N}])/gu;
/**
 * CommonMark's blank line: spaces and tabs only. A line of other white space (a no-break space)
 * continues a paragraph, so it is not blank here either (it then goes to the parser).
 */
const BLANK_LINE = /^[ \t]*$/;
/** Two or more spaces before the line's end: a hard break, which to-string reads as nothing. */
const HARD_BREAK = / {2,}$/;

export interface PlainHead {
  /** The first heading's text, as mdast-util-to-string gives it up to white space. */
  heading?: string;
  /** The first paragraph's lines, joined with line breaks. */
  paragraph?: string;
}

/** The head's first heading and first paragraph, or undefined when the head is not plain (parse it). */
export function plainHeadOf(markdown: string): PlainHead | undefined {
  if (markdown.startsWith('---') || markdown.charCodeAt(0) === 0xfeff) return undefined;
  let heading: string | undefined;
  let paragraph: string[] | undefined;
  let open: string[] | undefined;
  let start = 0;
  while (start <= markdown.length) {
    const newline = markdown.indexOf('\n', start);
    const end = newline === -1 ? markdown.length : newline;
    const line = markdown.slice(start, end);
    start = end + 1;
    if (BLANK_LINE.test(line)) {
      // A blank line ends the open paragraph.
      if (open !== undefined && paragraph === undefined) paragraph = open;
      open = undefined;
    } else {
      if (INLINE_MARKUP.test(line.replace(INERT_UNDERSCORES, '')) || HARD_BREAK.test(line)) return undefined;
      if (line.startsWith('#')) {
        const text = PLAIN_HEADING.exec(line)?.[1];
        if (text === undefined || text === '') return undefined;
        // A heading ends the open paragraph too.
        if (open !== undefined && paragraph === undefined) paragraph = open;
        open = undefined;
        heading ??= text;
      } else if (OTHER_BLOCK_START.test(line)) {
        return undefined;
      } else {
        open ??= [];
        open.push(line);
      }
    }
    if (heading !== undefined && paragraph !== undefined) break;
    if (newline === -1) break;
  }
  if (open !== undefined && paragraph === undefined) paragraph = open;
  return {
    ...(heading !== undefined ? { heading } : {}),
    ...(paragraph !== undefined ? { paragraph: paragraph.join('\n') } : {}),
  };
}

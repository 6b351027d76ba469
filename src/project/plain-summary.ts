// A Markdown document's summary when it can be read without the parser (markdown-summary.ts, the
// one module that loads remark and yaml): a plain head (plain-markdown-head.ts), or a plain front
// matter with the title and the description, or with one of them and a plain head after it for
// the other. Loading remark and yaml was most of the discovery of a one-document edit, for the
// one document parsed. A plain front matter is one where YAML could read nothing but strings: an
// opening line `---`, then only `key: value` lines (a plain key, no key twice, a value that starts
// with a letter and holds no comment, no mapping indicator, no tab and none of the characters
// that open a quoted, flow, anchor, alias or tag scalar, and is not a boolean or null), then a
// closing line `---`. Anything else returns undefined and goes to the parser, so the summary is
// always what the parser gives (test/unit/plain-summary.test.ts compares the two).
import { detachedString } from '../core/search/detached-string.js';
import { maxFrontMatterBytes } from './front-matter-limit.js';
import { plainHeadOf } from './plain-markdown-head.js';

export interface MarkdownSummary {
  title?: string;
  description?: string;
  /** Front matter `url`, else `canonical`, as written (the caller checks it is an http(s) URL). */
  pageUrl?: string;
  /** Why the front matter was not used (its YAML is broken): the build warns, naming the file. */
  frontMatterProblem?: string;
}

const MAX_DESCRIPTION_LENGTH = 300;
/** A field line of a plain front matter: its key, then its value up to its trailing spaces. */
const FIELD_LINE = /^([A-Za-z_][A-Za-z0-9_-]*): +(.*?) *$/;
/** A value YAML reads as the same string: a letter first, then letters, digits and inert punctuation. */
const PLAIN_VALUE = /^\p{L}[\p{L}\p{N} .,;!?()'"/_+=&%*~$^:#-]*$/u;
/** What makes a colon or a hash sign mean something in a plain scalar: `: `, a final `:`, ` #`. */
const MEANINGFUL_COLON_OR_HASH = /: |:$| #/;
/** Plain scalars YAML's core schema reads as a boolean or null, not a string. */
const NOT_A_STRING = /^(?:true|True|TRUE|false|False|FALSE|null|Null|NULL)$/;

/** One line of text: white space runs made one space, and cut at MAX_DESCRIPTION_LENGTH. */
export function shorten(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  // Kept for the whole build (and in the document cache): a copy, not a view into the document.
  return detachedString(
    oneLine.length > MAX_DESCRIPTION_LENGTH ? `${oneLine.slice(0, MAX_DESCRIPTION_LENGTH - 1)}…` : oneLine,
  );
}

/**
 * The fields of a plain front matter at the start of `markdown`, and where the document after it
 * starts; undefined when it has none or another.
 */
function plainFrontMatter(markdown: string): { fields: Map<string, string>; end: number } | undefined {
  if (!markdown.startsWith('---\n') || markdown.includes('\r')) return undefined;
  const fields = new Map<string, string>();
  let at = 4;
  for (;;) {
    const newline = markdown.indexOf('\n', at);
    const line = markdown.slice(at, newline < 0 ? markdown.length : newline);
    if (line === '---') {
      const end = newline < 0 ? markdown.length : newline + 1;
      // A front matter over the bound is not read by the parser's path either: it goes there.
      return Buffer.byteLength(markdown.slice(0, end), 'utf8') <= maxFrontMatterBytes(process.env)
        ? { fields, end }
        : undefined;
    }
    if (newline < 0) return undefined;
    const field = FIELD_LINE.exec(line);
    if (field === null) return undefined;
    const [, key, value] = field as unknown as [string, string, string];
    if (fields.has(key) || NOT_A_STRING.test(key) || key === '__proto__') return undefined;
    if (!PLAIN_VALUE.test(value) || MEANINGFUL_COLON_OR_HASH.test(value) || NOT_A_STRING.test(value)) return undefined;
    fields.set(key, value);
    at = newline + 1;
  }
}

/**
 * The summary of a document with a plain front matter: its title and description, and the body's
 * first heading or paragraph for one it lacks, where the body's head is plain too.
 */
function plainFrontMatterSummary(markdown: string): MarkdownSummary | undefined {
  const matter = plainFrontMatter(markdown);
  if (matter === undefined) return undefined;
  const { fields } = matter;
  let title = fields.get('title');
  let description = fields.get('description');
  if (title === undefined || description === undefined) {
    // The body is read from the line after the closing fence on, as a document of its own.
    const head = plainHeadOf(markdown.slice(matter.end));
    if (head === undefined) return undefined;
    title ??= head.heading;
    description ??= head.paragraph;
  }
  const pageUrl = fields.get('url') ?? fields.get('canonical');
  return {
    ...(title ? { title: shorten(title) } : {}),
    ...(description ? { description: shorten(description) } : {}),
    ...(pageUrl !== undefined ? { pageUrl: detachedString(pageUrl) } : {}),
  };
}

/** The summary the parser would give, when it can be had without it; else undefined. */
export function plainSummaryOf(markdown: string): MarkdownSummary | undefined {
  // Most documents open with plain text: their summary needs no parse (plain-markdown-head.ts).
  const plain = plainHeadOf(markdown);
  if (plain !== undefined)
    return {
      ...(plain.heading ? { title: shorten(plain.heading) } : {}),
      ...(plain.paragraph ? { description: shorten(plain.paragraph) } : {}),
    };
  return plainFrontMatterSummary(markdown);
}

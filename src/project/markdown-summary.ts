// Title and description of a Markdown resource (the one module that imports unified/remark):
// front matter `title`/`description` first, else the first heading and the first paragraph; and
// the document's own page, front matter `url` or `canonical`. A plain head or front matter is read
// without a parse (plain-summary.ts, which discovery asks first); otherwise only the document's head is parsed
// when it holds all of that (summaryPrefixOf): a whole mdast per document was most of a content
// build's CPU and garbage, for two nodes near the top.
import { unified } from 'unified';
import remarkParse from 'remark-parse';
import remarkFrontmatter from 'remark-frontmatter';
import { toString as textOf } from 'mdast-util-to-string';
import { parseYamlText as parseYaml } from './yaml-front-matter.js';
import { MAX_FRONT_MATTER_BYTES_VARIABLE, maxFrontMatterBytes } from './front-matter-limit.js';
import type { Root, RootContent } from 'mdast';
import { isObject } from '../core/tree/json-object.js';
import { detachedString } from '../core/search/detached-string.js';
import { type MarkdownSummary, plainSummaryOf, shorten } from './plain-summary.js';

export type { MarkdownSummary } from './plain-summary.js';

function readFrontMatter(node: RootContent | undefined): { fields: Record<string, unknown>; problem?: string } {
  if (node?.type !== 'yaml') return { fields: {} };
  try {
    const data: unknown = parseYaml(node.value);
    return { fields: isObject(data) ? data : {} };
  } catch (error) {
    // Broken front matter is the author's text, not ours to reject: fall back to the headings.
    const reason = ((error as Error).message.split('\n')[0] ?? '').slice(0, 200);
    return {
      fields: {},
      problem: `has front matter that is not valid YAML (${reason}); its title and description come from its headings and first paragraph instead`,
    };
  }
}

/** Where the head parse starts looking for a blank line to end at (it grows fourfold from there). */
const FIRST_PREFIX_CHARS = 256;
const BLANK_LINE = /\r?\n[ \t]*\r?\n/g;
/** A front matter block as remark-frontmatter reads it (`---` lines); its end is where a prefix may start. */
const FRONT_MATTER = /^---[ \t]*\r?\n(?:[\s\S]*?\r?\n)?---[ \t]*(?:\r?\n|$)/;

/**
 * The document up to the first blank line at or past `minChars`, or undefined when there is none.
 * Block structure is decided line by line, so every top-level block that ends before a blank line
 * is the block a whole parse makes; only a link definition later in the document (`[label]: url`)
 * changes how earlier text reads (summaryNodes checks for one).
 */
export function summaryPrefixOf(markdown: string, minChars: number): string | undefined {
  const frontMatterEnd = markdown.startsWith('---') ? FRONT_MATTER.exec(markdown)?.[0].length : 0;
  // A front matter this reading does not see the end of could be cut inside: parse it all.
  if (frontMatterEnd === undefined) return undefined;
  BLANK_LINE.lastIndex = Math.max(minChars, frontMatterEnd);
  const blank = BLANK_LINE.exec(markdown);
  if (blank === null) return undefined;
  const end = blank.index + blank[0].length;
  if (end >= markdown.length) return undefined;
  return markdown.slice(0, end);
}

function parseMarkdown(markdown: string): Root {
  return unified().use(remarkParse).use(remarkFrontmatter, ['yaml']).parse(markdown) as Root;
}

function summaryNodesOf(tree: Root) {
  return {
    frontMatter: readFrontMatter(tree.children[0]),
    heading: tree.children.find((node) => node.type === 'heading'),
    paragraph: tree.children.find((node) => node.type === 'paragraph'),
  };
}

/** The top-level nodes the summary reads: from the shortest head that has them, else the whole document. */
function summaryNodes(markdown: string) {
  for (let minChars = FIRST_PREFIX_CHARS; ; minChars *= 4) {
    const prefix = summaryPrefixOf(markdown, minChars);
    if (prefix === undefined) return summaryNodesOf(parseMarkdown(markdown));
    const nodes = summaryNodesOf(parseMarkdown(prefix));
    const { fields } = nodes.frontMatter;
    const complete =
      (nodes.heading !== undefined || typeof fields.title === 'string') &&
      (nodes.paragraph !== undefined || typeof fields.description === 'string');
    if (!complete) continue;
    // `[text]` in the head reads as a link only when the rest defines it: then the whole is parsed.
    const hasBracket = (node: RootContent | undefined) =>
      node?.position?.end.offset !== undefined &&
      prefix.slice(node.position.start.offset, node.position.end.offset).includes('[');
    if ((hasBracket(nodes.heading) || hasBracket(nodes.paragraph)) && markdown.includes(']:', prefix.length))
      return summaryNodesOf(parseMarkdown(markdown));
    return nodes;
  }
}

/**
 * The front matter's size when it is over the bound, else undefined. Both the Markdown parser and
 * the YAML parser take seconds over a front matter of thousands of lines, so an oversized one is
 * cut off before either sees it.
 */
function oversizedFrontMatter(markdown: string, maxBytes: number): { bytes: number; end: number } | undefined {
  if (!markdown.startsWith('---')) return undefined;
  const end = FRONT_MATTER.exec(markdown)?.[0].length;
  // UTF-8 takes at least a byte per UTF-16 unit: a shorter front matter is within the bound.
  if (end === undefined || end <= maxBytes) return undefined;
  const bytes = Buffer.byteLength(markdown.slice(0, end), 'utf8');
  return bytes > maxBytes ? { bytes, end } : undefined;
}

/** The summary of a Markdown document: read without a parse where it can be (plain-summary.ts). */
export function summarizeMarkdown(markdown: string): MarkdownSummary {
  return plainSummaryOf(markdown) ?? summarizeByParse(markdown);
}

/** The summary from remark's reading of the document (what a plain head's reading must equal). */
export function summarizeByParse(markdown: string): MarkdownSummary {
  const maxBytes = maxFrontMatterBytes(process.env);
  const oversized = oversizedFrontMatter(markdown, maxBytes);
  const nodes = summaryNodes(oversized === undefined ? markdown : markdown.slice(oversized.end));
  const {
    frontMatter: { fields: frontMatter },
    heading,
    paragraph,
  } = nodes;
  const problem =
    oversized === undefined
      ? nodes.frontMatter.problem
      : `has ${oversized.bytes} bytes of front matter, over ${MAX_FRONT_MATTER_BYTES_VARIABLE} (${maxBytes}), so it is not read; its title and description come from its headings and first paragraph instead (keep the fields short, or raise the bound)`;
  const title = typeof frontMatter.title === 'string' ? frontMatter.title : heading ? textOf(heading) : undefined;
  const description =
    typeof frontMatter.description === 'string' ? frontMatter.description : paragraph ? textOf(paragraph) : undefined;
  const pageUrl = [frontMatter.url, frontMatter.canonical].find((value) => typeof value === 'string' && value !== '');
  return {
    ...(title ? { title: shorten(title) } : {}),
    ...(description ? { description: shorten(description) } : {}),
    ...(typeof pageUrl === 'string' ? { pageUrl: detachedString(pageUrl.trim()) } : {}),
    ...(problem !== undefined ? { frontMatterProblem: problem } : {}),
  };
}

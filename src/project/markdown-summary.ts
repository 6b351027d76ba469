// Title and description of a Markdown resource (the one module that imports unified/remark):
// front matter `title`/`description` first, else the first heading and the first paragraph; and
// the document's own page, front matter `url` or `canonical`.
import { unified } from 'unified';
import remarkParse from 'remark-parse';
import remarkFrontmatter from 'remark-frontmatter';
import { toString as textOf } from 'mdast-util-to-string';
import { parseYamlText as parseYaml } from './yaml-front-matter.js';
import type { Root, RootContent } from 'mdast';
import { isObject } from '../core/tree/json-object.js';

export interface MarkdownSummary {
  title?: string;
  description?: string;
  /** Front matter `url`, else `canonical`, as written (the caller checks it is an http(s) URL). */
  pageUrl?: string;
  /** Why the front matter was not used (its YAML is broken): the build warns, naming the file. */
  frontMatterProblem?: string;
}

const MAX_DESCRIPTION_LENGTH = 300;

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

function shorten(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > MAX_DESCRIPTION_LENGTH ? `${oneLine.slice(0, MAX_DESCRIPTION_LENGTH - 1)}…` : oneLine;
}

export function summarizeMarkdown(markdown: string): MarkdownSummary {
  const tree = unified().use(remarkParse).use(remarkFrontmatter, ['yaml']).parse(markdown) as Root;
  const { fields: frontMatter, problem } = readFrontMatter(tree.children[0]);
  const heading = tree.children.find((node) => node.type === 'heading');
  const paragraph = tree.children.find((node) => node.type === 'paragraph');
  const title = typeof frontMatter.title === 'string' ? frontMatter.title : heading ? textOf(heading) : undefined;
  const description =
    typeof frontMatter.description === 'string' ? frontMatter.description : paragraph ? textOf(paragraph) : undefined;
  const pageUrl = [frontMatter.url, frontMatter.canonical].find((value) => typeof value === 'string' && value !== '');
  return {
    ...(title ? { title: shorten(title) } : {}),
    ...(description ? { description: shorten(description) } : {}),
    ...(typeof pageUrl === 'string' ? { pageUrl: pageUrl.trim() } : {}),
    ...(problem !== undefined ? { frontMatterProblem: problem } : {}),
  };
}

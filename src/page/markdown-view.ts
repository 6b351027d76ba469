// A document's Markdown shown as a page, safely: headings, paragraphs, lists, quotes, code blocks
// and tables' lines, emphasis, inline code and links, each built as DOM nodes from text (dom.ts).
// Raw HTML in the Markdown stays visible text, never markup, and a link is made only from an
// http(s) or same-site address, so a document from someone else's tree cannot run anything.
import { append, type Child, element, safeLinkUrl } from './dom.js';

/** Text longer than this is cut (the whole document is one fetch away from any MCP client). */
const MARKDOWN_LIMIT = 500_000;

const INLINE =
  /(`+)([\s\S]*?)\1|\*\*(.+?)\*\*|__(.+?)__|\*([^*\s](?:[^*]*[^*\s])?)\*|\b_([^_\s](?:[^_]*[^_\s])?)_\b|\[([^\]]*)\]\(([^)\s]+)(?:\s+"[^"]*")?\)|<(https?:\/\/[^>\s]+)>/g;

/** Inline Markdown as nodes: code, strong, emphasis, links (safe addresses only; else the text). */
function inlineNodes(text: string): Child[] {
  const nodes: Child[] = [];
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    const start = match.index ?? 0;
    if (start > last) nodes.push(text.slice(last, start));
    last = start + match[0].length;
    const [, ticks, code, strong1, strong2, em1, em2, linkText, href, auto] = match;
    if (ticks !== undefined) nodes.push(element('code', {}, (code ?? '').trim()));
    else if (strong1 !== undefined || strong2 !== undefined)
      nodes.push(element('strong', {}, ...inlineNodes(strong1 ?? strong2 ?? '')));
    else if (em1 !== undefined || em2 !== undefined) nodes.push(element('em', {}, ...inlineNodes(em1 ?? em2 ?? '')));
    else {
      const target = safeLinkUrl(auto ?? href);
      const label = auto ?? linkText ?? '';
      nodes.push(target ? element('a', { href: target, rel: 'noopener noreferrer' }, ...inlineNodes(label)) : match[0]);
    }
  }
  if (last < text.length) nodes.push(text.slice(last));
  return nodes;
}

const LIST_ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;

/** The Markdown `text` as an element holding its blocks. */
export function renderMarkdown(text: string): HTMLElement {
  const root = element('div', { class: 'markdown' });
  const lines = text.slice(0, MARKDOWN_LIMIT).replace(/\r\n?/g, '\n').split('\n');
  let index = 0;
  // A leading front-matter block is the document's metadata, not its text.
  if (lines[0] === '---') {
    const end = lines.indexOf('---', 1);
    if (end > 0) index = end + 1;
  }
  let paragraph: string[] = [];
  const flush = (): void => {
    if (paragraph.length) root.append(element('p', {}, ...inlineNodes(paragraph.join(' '))));
    paragraph = [];
  };
  while (index < lines.length) {
    const line = lines[index] ?? '';
    const fence = /^\s*(```|~~~)/.exec(line);
    if (fence) {
      flush();
      const body: string[] = [];
      index += 1;
      while (index < lines.length && !(lines[index] ?? '').trimStart().startsWith(fence[1] ?? '```')) {
        body.push(lines[index] ?? '');
        index += 1;
      }
      root.append(element('pre', { class: 'output', tabindex: '0' }, body.join('\n')));
      index += 1;
      continue;
    }
    const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      flush();
      // The document's title is the view's h2: its own headings start one level below.
      const level = Math.min(6, (heading[1] ?? '#').length + 2) as 3 | 4 | 5 | 6;
      root.append(element(`h${level}`, {}, ...inlineNodes(heading[2] ?? '')));
    } else if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      flush();
      root.append(element('hr'));
    } else if (/^\s*>/.test(line)) {
      flush();
      const quoted: string[] = [];
      while (index < lines.length && /^\s*>/.test(lines[index] ?? '')) {
        quoted.push((lines[index] ?? '').replace(/^\s*>\s?/, ''));
        index += 1;
      }
      root.append(element('blockquote', {}, renderMarkdown(quoted.join('\n'))));
      continue;
    } else if (LIST_ITEM.test(line)) {
      flush();
      const ordered = /^\s*\d/.test(line);
      const list = element(ordered ? 'ol' : 'ul');
      while (index < lines.length) {
        const item = LIST_ITEM.exec(lines[index] ?? '');
        if (item) list.append(element('li', {}, ...inlineNodes(item[3] ?? '')));
        else if (/^\s+\S/.test(lines[index] ?? '') && list.lastElementChild)
          append(list.lastElementChild, ' ', ...inlineNodes((lines[index] ?? '').trim()));
        else break;
        index += 1;
      }
      root.append(list);
      continue;
    } else if (/^\s*\|/.test(line)) {
      flush();
      // A table keeps its lines as they are: readable, and never wider than the page (it wraps).
      const rows: string[] = [];
      while (index < lines.length && /^\s*\|/.test(lines[index] ?? '')) {
        rows.push(lines[index] ?? '');
        index += 1;
      }
      root.append(element('pre', { class: 'output', tabindex: '0' }, rows.join('\n')));
      continue;
    } else if (line.trim() === '') flush();
    else paragraph.push(line.trim());
    index += 1;
  }
  flush();
  return root;
}

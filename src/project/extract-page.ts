// One HTML page of a built website → the document it becomes: its title, its main content as
// Markdown-style text (headings kept as `#` lines, list items, code blocks, table rows) and the
// canonical link it declares. The only module that uses parse5 and hast-util-from-parse5 (what
// rehype-parse runs, without a unified processor or the source positions nothing here reads, which
// cost half of the parse), hast-util-select (only for a site's own selector: the fixed landmarks
// are found in one walk) and hast-util-to-text. Bad pages never
// throw: a wrong encoding, a huge page or absurd nesting each become a warning beside a
// best-effort document.
import type { Element, Nodes, Root } from 'hast';
import { fromParse5 } from 'hast-util-from-parse5';
import { parse } from 'parse5';
import { selectAll } from 'hast-util-select';
import { toText } from 'hast-util-to-text';

export interface ExtractOptions {
  /** A CSS selector for the main content (staticmcp.json `site.selector`), tried first. */
  selector?: string;
  /** Bytes of the page that are parsed; the rest is left out, with a warning. */
  maxPageBytes: number;
}

export interface ExtractedPage {
  title?: string;
  /** The main content, Markdown-style. */
  text: string;
  /** `<link rel="canonical">`'s href as written (the caller resolves it and checks its scheme). */
  canonicalHref?: string;
  warnings: string[];
}

/**
 * Elements nested deeper than this are unwrapped (their text kept) before parsing: the parser and
 * the hast utilities recurse once per level, and Blink's own parser stops nesting at 512 too.
 */
export const MAX_NESTING_DEPTH = 512;

/** Never content, wherever they are (as are elements with `hidden` or `data-pagefind-ignore`). */
const ALWAYS_DROPPED = new Set(['script', 'style', 'svg', 'noscript', 'template', 'iframe', 'nav']);
/** Page chrome, dropped when the content is the whole body. */
const BODY_CHROME = new Set(['header', 'footer', 'aside']);

function isDropped(element: Element, wholeBody: boolean): boolean {
  const { properties } = element;
  return (
    ALWAYS_DROPPED.has(element.tagName) ||
    (wholeBody && BODY_CHROME.has(element.tagName)) ||
    (properties.hidden !== undefined && properties.hidden !== false) ||
    properties.dataPagefindIgnore !== undefined
  );
}

/** The page's text: by its BOM, else its `<meta charset>`, else UTF-8, else latin1 (said in a warning). */
export function decodePage(bytes: Uint8Array, warnings: string[]): string {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return new TextDecoder('utf-8').decode(bytes);
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))
    return new TextDecoder(bytes[0] === 0xff ? 'utf-16le' : 'utf-16be').decode(bytes);
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 2048));
  const declared = /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head)?.[1]?.toLowerCase();
  if (declared && declared !== 'utf-8' && declared !== 'utf8') {
    try {
      return new TextDecoder(declared).decode(bytes);
    } catch {
      warnings.push(`declares charset ${declared}, which this runtime cannot decode; read as latin1`);
      return new TextDecoder('latin1').decode(bytes);
    }
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    // A page cut at maxPageBytes may end inside a character: only its last bytes are not UTF-8.
    const lenient = new TextDecoder('utf-8').decode(bytes);
    if (!lenient.slice(0, -1).includes('\uFFFD')) return lenient.replace(/\uFFFD$/, '');
    warnings.push(
      `is not valid UTF-8 and declares no charset; read as latin1 (add <meta charset="…"> to the page to say which)`,
    );
    return new TextDecoder('latin1').decode(bytes);
  }
}

const VOID = new Set('area base br col embed hr img input link meta param source track wbr'.split(' '));
/** Elements the parser closes by itself when a sibling opens: they never nest deeply, so are not counted. */
const SELF_CLOSING = new Set(
  'p li dt dd tr td th option optgroup thead tbody tfoot colgroup rb rt rp html head body'.split(' '),
);
const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'plaintext']);

/**
 * The HTML with tags nested past `maxDepth` left out (their text stays). A tag scan, not a parse:
 * it only decides which tags to drop, and only on pages nested deeper than any real page is.
 */
export function capNesting(html: string, maxDepth: number): { html: string; capped: boolean } {
  const tag = /<!--[\s\S]*?(?:-->|$)|<(\/?)([a-zA-Z][a-zA-Z0-9-]*)\b(?:[^>"']|"[^"]*"|'[^']*')*>/g;
  const pieces: string[] = [];
  let kept = 0;
  let depth = 0;
  let capped = false;
  let lowered: string | undefined;
  for (let match = tag.exec(html); match !== null; match = tag.exec(html)) {
    const name = match[2]?.toLowerCase();
    if (name === undefined) continue;
    const closing = match[1] === '/';
    if (!closing && RAW_TEXT.has(name)) {
      lowered ??= html.toLowerCase();
      const end = lowered.indexOf(`</${name}`, tag.lastIndex);
      tag.lastIndex = end === -1 ? html.length : end;
      continue;
    }
    if (VOID.has(name) || SELF_CLOSING.has(name) || match[0].endsWith('/>')) continue;
    const tooDeep = closing ? depth > maxDepth : depth + 1 > maxDepth;
    depth = closing ? Math.max(0, depth - 1) : depth + 1;
    if (!tooDeep) continue;
    capped = true;
    pieces.push(html.slice(kept, match.index));
    kept = tag.lastIndex;
  }
  if (!capped) return { html, capped };
  pieces.push(html.slice(kept));
  return { html: pieces.join(''), capped };
}

/** What the page's fixed landmarks are, found in one walk of the tree (first of each, in document order). */
interface Landmarks {
  headTitle?: Element;
  firstH1?: Element;
  canonical?: Element;
  pagefindBodies: Element[];
  main?: Element;
  article?: Element;
  body?: Element;
}

function isCanonicalLink(element: Element): boolean {
  const { rel, href } = element.properties;
  return Array.isArray(rel) && rel.some((value) => String(value).toLowerCase() === 'canonical') && href !== undefined;
}

function findLandmarks(tree: Root): Landmarks {
  const found: Landmarks = { pagefindBodies: [] };
  const stack: { node: Nodes; inHead: boolean }[] = [{ node: tree, inHead: false }];
  while (stack.length > 0) {
    const { node, inHead } = stack.pop()!;
    if (node.type !== 'element' && node.type !== 'root') continue;
    let childrenInHead = inHead;
    if (node.type === 'element') {
      const name = node.tagName;
      if (name === 'head') childrenInHead = true;
      else if (name === 'title' && inHead) found.headTitle ??= node;
      else if (name === 'h1') found.firstH1 ??= node;
      else if (name === 'link' && found.canonical === undefined && isCanonicalLink(node)) found.canonical = node;
      else if (name === 'main') found.main ??= node;
      else if (name === 'article') found.article ??= node;
      else if (name === 'body') found.body ??= node;
      if (node.properties.dataPagefindBody !== undefined) found.pagefindBodies.push(node);
    }
    for (let index = node.children.length - 1; index >= 0; index--)
      stack.push({ node: node.children[index] as Nodes, inHead: childrenInHead });
  }
  return found;
}

/** The elements whose text is the page's content, and whether they are the whole body. */
function findMainContent(
  tree: Root,
  landmarks: Landmarks,
  selector: string | undefined,
): { roots: Nodes[]; wholeBody: boolean } {
  if (selector) {
    const found = selectAll(selector, tree);
    if (found.length > 0) return { roots: found, wholeBody: false };
  }
  if (landmarks.pagefindBodies.length > 0) return { roots: landmarks.pagefindBodies, wholeBody: false };
  const single = landmarks.main ?? landmarks.article;
  if (single) return { roots: [single], wholeBody: false };
  return { roots: [landmarks.body ?? tree], wholeBody: true };
}

const BLOCKS = new Set(
  'address article blockquote dd details dialog div dl dt fieldset figcaption figure form h1 h2 h3 h4 h5 h6 hr li main ol p section summary table tbody thead tfoot tr ul'.split(
    ' ',
  ),
);

/** Markdown-style text of the content, built without recursion (pre blocks aside, which are shallow). */
function renderText(roots: readonly Nodes[], wholeBody: boolean): string {
  const blocks: string[] = [];
  let line = '';
  const flush = () => {
    const text = line.replace(/[ \t]+/g, ' ').trim();
    if (text !== '' && !/^(#+|-)$/.test(text)) blocks.push(text);
    line = '';
  };
  const stack: (Nodes | 'end-block')[] = [...roots].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node === 'end-block') {
      flush();
      continue;
    }
    if (node.type === 'text') {
      line += node.value.replace(/\s+/g, ' ');
      continue;
    }
    if (node.type !== 'element' && node.type !== 'root') continue;
    if (node.type === 'element') {
      if (isDropped(node, wholeBody)) continue;
      const name = node.tagName;
      if (name === 'pre') {
        flush();
        blocks.push(`\`\`\`\n${toText(node, { whitespace: 'pre' }).replace(/\n+$/, '')}\n\`\`\``);
        continue;
      }
      if (name === 'br') {
        flush();
        continue;
      }
      if ((name === 'td' || name === 'th') && line.trim() !== '') line += ' | ';
      if (BLOCKS.has(name)) {
        flush();
        const level = /^h([1-6])$/.exec(name)?.[1];
        if (level) line = `${'#'.repeat(Number(level))} `;
        else if (name === 'li') line = '- ';
        stack.push('end-block');
      }
    }
    for (let index = node.children.length - 1; index >= 0; index--) stack.push(node.children[index] as Nodes);
  }
  flush();
  return blocks.join('\n\n');
}

/** Throws when `selector` is not a CSS selector hast-util-select understands (say so once, at the start). */
export function checkSelector(selector: string): void {
  selectAll(selector, { type: 'root', children: [] });
}

export function extractPage(bytes: Uint8Array, options: ExtractOptions): ExtractedPage {
  const warnings: string[] = [];
  let parsedBytes = bytes;
  if (bytes.length > options.maxPageBytes) {
    parsedBytes = bytes.subarray(0, options.maxPageBytes);
    warnings.push(
      `is ${bytes.length} bytes; only its first ${options.maxPageBytes} are indexed (truncated; raise limits.maxPageBytes in staticmcp.json to index more)`,
    );
  }
  const nested = capNesting(decodePage(parsedBytes, warnings), MAX_NESTING_DEPTH);
  if (nested.capped)
    warnings.push(
      `nests elements deeper than ${MAX_NESTING_DEPTH} levels; the deeper tags were left out, their text kept`,
    );
  const tree = fromParse5(parse(nested.html, { scriptingEnabled: false })) as Root;
  const landmarks = findLandmarks(tree);
  const titleElement = landmarks.headTitle ?? landmarks.firstH1;
  const title = titleElement ? toText(titleElement).replace(/\s+/g, ' ').trim() : '';
  const href = landmarks.canonical?.properties.href;
  const { roots, wholeBody } = findMainContent(tree, landmarks, options.selector);
  return {
    ...(title !== '' ? { title } : {}),
    text: renderText(roots, wholeBody),
    ...(typeof href === 'string' && href.trim() !== '' ? { canonicalHref: href.trim() } : {}),
    warnings,
  };
}

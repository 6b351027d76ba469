// The man pages this machine has (/usr/share/man/man1..8, gzipped roff), turned into Markdown by
// a crude roff strip (titles, section headings, paragraphs; requests and font escapes dropped):
// real documentation text of real sizes, generated here and never kept in the repository.
// Aliases (a page that is only `.so other`) are skipped. Cached as JSON in the temp folder.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';

const MAN_ROOT = '/usr/share/man';
const CACHE = path.join(os.tmpdir(), 'staticmcp-bench-man-corpus-v1.json');

const NAMED_GLYPHS = { em: '—', en: '–', bu: '•', aq: "'", dq: '"', lq: '“', rq: '”', oq: '‘', cq: '’', hy: '-' };

/** Roff inline escapes → plain text. */
function stripEscapes(line) {
  return line
    .replace(/\\f(\[[^\]]*\]|\(..|.)/g, '')
    .replace(/\\s[+-]?\d/g, '')
    .replace(/\\\((..)/g, (_, name) => NAMED_GLYPHS[name] ?? '')
    .replace(/\\\[([^\]]*)\]/g, (_, name) => NAMED_GLYPHS[name] ?? '')
    .replace(/\\\*(\(..|\[[^\]]*\]|.)/g, '')
    .replace(/\\[-]/g, '-')
    .replace(/\\[e\\]/g, '\\')
    .replace(/\\[&|^%:c]/g, '')
    .replace(/\\ /g, ' ')
    .replace(/\\[hvwnkz](?:'[^']*'|\S)?/g, '')
    .replace(/\\"/g, '');
}

const unquote = (text) => stripEscapes(text.trim().replace(/^"|"$/g, '').replace(/" "/g, ' '));

/** One man page's roff as Markdown, or undefined for an alias or an empty page. */
export function roffToMarkdown(roff, fallbackTitle) {
  const lines = roff.split('\n');
  if (lines.filter((line) => line.trim() && !line.startsWith('.\\"')).every((line) => line.startsWith('.so ')))
    return undefined;
  const out = [];
  let title = fallbackTitle;
  let paragraph = [];
  let literal = false;
  const flush = () => {
    if (paragraph.length) out.push(paragraph.join(literal ? '\n' : ' '), '');
    paragraph = [];
  };
  for (const line of lines) {
    if (line.startsWith('.\\"') || line.startsWith('\'\\"')) continue;
    const request = /^[.'](\w+)\s*(.*)$/.exec(line);
    if (!request) {
      if (line.startsWith('.') || line.startsWith("'")) continue;
      const text = stripEscapes(line);
      if (text.trim() || literal) paragraph.push(literal ? `    ${text}` : text.trim());
      continue;
    }
    const [, name, rest] = request;
    if (name === 'TH') {
      const [page, section] = rest.split(/\s+/);
      title = `${unquote(page ?? fallbackTitle)}(${unquote(section ?? '')})`;
    } else if (name === 'SH' || name === 'SS') {
      flush();
      out.push(`${name === 'SH' ? '##' : '###'} ${unquote(rest)}`, '');
    } else if (['PP', 'LP', 'P', 'sp', 'br', 'IP', 'TP', 'HP'].includes(name)) {
      flush();
      if (name === 'IP' && rest) paragraph.push(`- ${unquote(rest.split(/\s+/)[0] ?? '')}`);
    } else if (name === 'nf' || name === 'EX') {
      flush();
      literal = true;
    } else if (name === 'fi' || name === 'EE') {
      flush();
      literal = false;
    } else if (['B', 'I', 'BR', 'IR', 'RB', 'RI', 'BI', 'IB', 'SM', 'SB'].includes(name)) {
      paragraph.push(unquote(rest));
    }
  }
  flush();
  const body = out.join('\n').trim();
  if (body.length < 40) return undefined;
  return `# ${title}\n\n${body}\n`;
}

/** Every usable man page: `{ name, section, text }`, sorted by name, names distinct. */
export function manPages() {
  if (existsSync(CACHE)) return JSON.parse(readFileSync(CACHE, 'utf8'));
  const pages = [];
  const seen = new Set();
  for (let section = 1; section <= 8; section++) {
    const folder = path.join(MAN_ROOT, `man${section}`);
    if (!existsSync(folder)) continue;
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.gz')) continue;
      const name = entry.name.replace(/\.gz$/, '').replace(/[^A-Za-z0-9._-]/g, '_');
      if (seen.has(name)) continue;
      let roff;
      try {
        roff = gunzipSync(readFileSync(path.join(folder, entry.name))).toString('utf8');
      } catch {
        continue;
      }
      const text = roffToMarkdown(roff, name);
      if (!text) continue;
      seen.add(name);
      pages.push({ name, section: `man${section}`, text });
    }
  }
  pages.sort((a, b) => (a.name < b.name ? -1 : 1));
  if (pages.length === 0) throw new Error(`no man pages under ${MAN_ROOT}: install some (apt-get install manpages)`);
  writeFileSync(CACHE, JSON.stringify(pages));
  return pages;
}

/**
 * Document `position` of a corpus of any size: the man pages in order, then again with changed
 * ids (file name and title carry the round) so every document is distinct.
 */
export function manDocument(pages, position) {
  const page = pages[position % pages.length];
  const round = Math.floor(position / pages.length);
  if (round === 0) return { file: `${page.section}/${page.name}.md`, text: page.text, title: page.name };
  return {
    file: `r${round}/${page.section}/${page.name}.md`,
    text: page.text.replace(/^# (.*)$/m, `# $1 (copy ${round})`),
    title: `${page.name} (copy ${round})`,
  };
}

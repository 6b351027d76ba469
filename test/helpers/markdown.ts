// Reading the repository's Markdown as GitHub renders it, for the docs tests: the prose outside code
// (fenced blocks and code spans), the headings with the anchors GitHub gives them, the relative
// links, and the tables of a section.

/** The lines of a Markdown file outside fenced code blocks, each with its 1-based line number. */
export function readProseLines(text: string): { line: number; text: string }[] {
  const lines: { line: number; text: string }[] = [];
  let fence: string | undefined;
  text.split('\n').forEach((line, index) => {
    const opening = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence !== undefined) {
      if (opening && opening[1]!.startsWith(fence)) fence = undefined;
      return;
    }
    if (opening) {
      fence = opening[1]!;
      return;
    }
    lines.push({ line: index + 1, text: line });
  });
  return lines;
}

/** A line with its code spans blanked, so that brackets and quotes inside them are not read as prose. */
export function withoutCodeSpans(line: string): string {
  return line.replace(/(`+)(?:(?!\1).)+?\1/g, (span) => ' '.repeat(span.length));
}

/** The anchor GitHub gives a heading: lowercased, punctuation but `-` and `_` dropped, spaces as `-`. */
export function slugOf(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/[`*]/g, '');
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The headings of a file, in order. */
export function readHeadings(text: string): string[] {
  return readProseLines(text).flatMap(({ text: line }) => {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    return heading ? [heading[1]!] : [];
  });
}

/** Every anchor a link may name in a file: its headings' slugs (the second of a name gets `-1`), and HTML ids. */
export function readAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const heading of readHeadings(text)) {
    const slug = slugOf(heading);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  for (const [, id] of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id!);
  return anchors;
}

export interface MarkdownLink {
  line: number;
  target: string;
}

/** The inline links and images of a file's prose (not those shown inside code). */
export function readLinks(text: string): MarkdownLink[] {
  return readProseLines(text).flatMap(({ line, text: prose }) =>
    [...withoutCodeSpans(prose).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map(([, target]) => ({
      line,
      target: target!,
    })),
  );
}

/** The rows of the first table under a heading (up to the next heading), as trimmed cells. */
export function readTableUnder(text: string, heading: string): string[][] {
  const lines = readProseLines(text).map(({ text: line }) => line);
  const start = lines.findIndex((line) => /^#{1,6}\s/.test(line) && line.replace(/^#+\s+/, '').trim() === heading);
  if (start < 0) return [];
  const rows: string[][] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^#{1,6}\s/.test(line)) break;
    if (!line.startsWith('|')) {
      if (rows.length > 0) break;
      continue;
    }
    const cells = line
      .replace(/^\|/, '')
      .replace(/\|\s*$/, '')
      .split(/(?<!\\)\|/)
      .map((cell) => cell.trim());
    if (cells.every((cell) => /^:?-+:?$/.test(cell))) continue;
    rows.push(cells);
  }
  // The first row is the table's header.
  return rows.slice(1);
}

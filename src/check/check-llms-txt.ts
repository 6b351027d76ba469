// `check` of a content tree's llms.txt and llms-full.txt (tree-writer/llms-txt.ts): both present
// when the tree has a search index (the build writes them from its documents), UTF-8 (no U+FFFD), each
// opening with the `# title` line the llmstxt.org convention starts with, and llms.txt made only
// of the lines that convention allows (headings, the `>` summary, `- [title](link)` items, text).
// A file the project itself published (public/ or its site) wins over the build's and is held to
// the same shape.
import { LLMS_FILE, LLMS_FULL_FILE } from '../tree-writer/llms-txt.js';
import type { TreeSource } from '../core/tree/tree-source.js';
import { REBUILD, type Report } from './tree-problem.js';

const LINK_ITEM = /^- \[(?:[^\]\\]|\\.)*\]\([^\s()]*\)(?::.*)?$/;

/** llms.txt's first problem line (1-based), or undefined when every line is one the convention allows. */
function badLineOf(text: string): number | undefined {
  const lines = text.split('\n');
  if (!lines[0]?.startsWith('# ')) return 1;
  for (const [index, line] of lines.entries()) {
    if (line.startsWith('- ') && !LINK_ITEM.test(line)) return index + 1;
  }
  return undefined;
}

export async function checkLlmsFiles(
  files: readonly string[],
  source: TreeSource,
  hasSearchIndex: boolean,
  report: Report,
): Promise<void> {
  const present = new Set(files);
  for (const file of [LLMS_FILE, LLMS_FULL_FILE]) {
    if (!present.has(file)) {
      if (hasSearchIndex)
        report(file, 'is missing: a content tree lists its documents in llms.txt and llms-full.txt', REBUILD);
      continue;
    }
    const read = await source.read(file);
    if (read.status !== 'ok') {
      report(file, 'cannot be read', REBUILD);
      continue;
    }
    const { text } = read;
    if (text.includes('\uFFFD')) {
      report(file, 'is not UTF-8', REBUILD);
      continue;
    }
    const bad = file === LLMS_FILE ? badLineOf(text) : text.startsWith('# ') ? undefined : 1;
    if (bad !== undefined)
      report(
        file,
        `line ${bad} is not what llms.txt allows there (a "# title" first, then "> summary", "## section" and "- [title](link)" lines)`,
        `${REBUILD}, or fix the file the project publishes in public/ or its site`,
      );
  }
}

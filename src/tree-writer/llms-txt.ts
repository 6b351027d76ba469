// `/llms.txt` and `/llms-full.txt` (the llmstxt.org convention) of a content tree, from the same
// documents the search index holds, as they stream past its writer: llms.txt is the server's
// title, a one-line summary and a linked list of every document grouped by folder; llms-full.txt
// is each document's title, page and whole text, up to a byte cap (limits.maxLlmsFullBytes), then
// a last line saying how many were left out. Links are absolute with publicUrl, else relative to
// the tree's root, where both files sit, so they open on whatever host serves the tree.
import { isObject, type JsonObject } from '../core/tree/json-object.js';
import { documentUrlBase, resolveDocumentUrl } from '../core/search/document-url.js';
import type { SearchDocument } from '../core/search/tree-documents.js';

export const LLMS_FILE = 'llms.txt';
export const LLMS_FULL_FILE = 'llms-full.txt';
/** limits.maxLlmsFullBytes's default (staticmcp.schema.json declares it for projects). */
export const DEFAULT_MAX_LLMS_FULL_BYTES = 8 * 1024 * 1024;

/** One line of Markdown text: no line breaks, and none of the characters that would end a link. */
function inline(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .replace(/[[\]]/g, (bracket) => `\\${bracket}`)
    .trim();
}

/** A link target that opens from the file's own place, `/`. */
function linkTarget(stored: string, base: string | undefined): string {
  const absolute = resolveDocumentUrl(stored, base);
  if (absolute !== '') return absolute.replace(/[()\s]/g, encodeURIComponent);
  return (stored.startsWith('?') ? `./${stored}` : stored).replace(/[()\s]/g, encodeURIComponent);
}

/** The section a document is listed under: its tool, or the folder of its URI's path. */
function folderOf(document: SearchDocument): string {
  const metadata = document.metadata ?? {};
  if (typeof metadata.tool === 'string') return `${metadata.tool} (tool results)`;
  const uri = typeof metadata.uri === 'string' ? metadata.uri : document.id;
  const pathPart = /^https?:\/\//i.test(uri)
    ? uri.replace(/^https?:\/\/[^/]+/i, '')
    : uri.replace(/^[a-z][\w+.-]*:\/\//i, '');
  const folder = pathPart
    .replace(/[?#].*$/, '')
    .replace(/\/+$/, '')
    .split('/')
    .slice(0, -1)
    .filter(Boolean)
    .join('/');
  return folder === '' ? 'Documents' : folder;
}

export class LlmsTxtWriter {
  private readonly sections = new Map<string, string[]>();
  /** Entries as UTF-8: a document's text as a string takes up to twice its bytes, for the whole build. */
  private readonly full: { id: string; entry: Buffer }[] = [];
  private fullBytes = 0;
  private leftOut = 0;
  private readonly base: string | undefined;

  constructor(
    private readonly manifest: JsonObject,
    publicUrl: string | undefined,
    private readonly maxFullBytes = DEFAULT_MAX_LLMS_FULL_BYTES,
  ) {
    this.base = documentUrlBase(publicUrl, undefined);
  }

  add(document: SearchDocument): void {
    const target = linkTarget(document.url, this.base);
    const folder = folderOf(document);
    const lines = this.sections.get(folder) ?? [];
    this.sections.set(folder, lines);
    lines.push(`- [${inline(document.title) || document.id}](${target})`);
    // Past the cap every later document is left out too: its entry is never made.
    if (this.leftOut > 0) {
      this.leftOut += 1;
      return;
    }
    const entry = `# ${inline(document.title) || document.id}\n\nSource: ${target}\n\n${document.text.trim()}\n\n`;
    // Counted without encoding: a copy of every document's text is garbage the build collects.
    const bytes = Buffer.byteLength(entry, 'utf8');
    if (this.fullBytes + bytes > this.maxFullBytes) {
      this.leftOut += 1;
      return;
    }
    this.full.push({ id: document.id, entry: Buffer.from(entry, 'utf8') });
    this.fullBytes += bytes;
  }

  /** How many documents llms-full.txt leaves out (past its cap). */
  get leftOutCount(): number {
    return this.leftOut;
  }

  private heading(): string {
    const info = isObject(this.manifest.serverInfo) ? this.manifest.serverInfo : {};
    const title = [info.title, info.name].find((value) => typeof value === 'string' && value.trim() !== '');
    const summary = [info.description, this.manifest.instructions].find(
      (value) => typeof value === 'string' && value.trim() !== '',
    );
    const lines = [`# ${inline(typeof title === 'string' ? title : 'Documents')}`, ''];
    if (typeof summary === 'string') lines.push(`> ${inline(summary)}`, '');
    return lines.join('\n');
  }

  /** llms.txt: sections in name order, documents in the order they came (the index's is by id). */
  renderIndex(): string {
    const parts = [this.heading()];
    for (const folder of [...this.sections.keys()].sort()) {
      const lines = [...this.sections.get(folder)!].sort();
      parts.push(`## ${inline(folder)}\n\n${lines.join('\n')}\n`);
    }
    return `${parts.join('\n')}`.replace(/\n*$/, '\n');
  }

  renderFull(): string {
    return this.renderFullBytes().toString('utf8');
  }

  /** llms-full.txt's bytes, joined once from the entries' (never one string of the whole file). */
  renderFullBytes(): Buffer {
    const tail =
      this.leftOut > 0
        ? `(${this.leftOut} more documents are left out: this file stops at limits.maxLlmsFullBytes, ${this.maxFullBytes} bytes; see llms.txt for the whole list.)\n`
        : '';
    // By id, so the file does not depend on the order the documents came in (build, merge, index).
    const entries = [...this.full].sort((left, right) => (left.id < right.id ? -1 : left.id > right.id ? 1 : 0));
    return Buffer.concat([
      Buffer.from(`${this.heading()}\n`, 'utf8'),
      ...entries.map((item) => item.entry),
      Buffer.from(tail, 'utf8'),
    ]);
  }
}

/** The documents as they are, each also given to `llms` when there is one (the index's stream feeds both). */
export async function* teeDocuments(
  documents: AsyncIterable<SearchDocument>,
  llms: LlmsTxtWriter | undefined,
): AsyncGenerator<SearchDocument> {
  for await (const document of documents) {
    llms?.add(document);
    yield document;
  }
}

/** llms.txt and llms-full.txt as written into the tree, as UTF-8. */
export function llmsFiles(llms: LlmsTxtWriter): [string, Buffer][] {
  return [
    [LLMS_FILE, Buffer.from(llms.renderIndex(), 'utf8')],
    [LLMS_FULL_FILE, llms.renderFullBytes()],
  ];
}

// `/llms.txt` and `/llms-full.txt` (the llmstxt.org convention) of a content tree, from the same
// documents the search index holds, as they stream past its writer: llms.txt is the server's
// title, a one-line summary and a linked list of every document grouped by folder; llms-full.txt
// is each document's title, page and whole text, up to a byte cap (limits.maxLlmsFullBytes), then
// a last line saying how many were left out. Links are absolute with publicUrl, else relative to
// the tree's root, where both files sit, so they open on whatever host serves the tree.
import { createHash } from 'node:crypto';
import { closeSync, openSync } from 'node:fs';
import path from 'node:path';
import { isObject, type JsonObject } from '../core/tree/json-object.js';
import { documentUrlBase, resolveDocumentUrl } from '../core/search/document-url.js';
import type { SearchDocument } from '../core/search/tree-documents.js';
import { sortPositions } from './sort-positions.js';
import { readAt, SpillWriter } from './spill-files.js';
import { StringArena } from './string-arena.js';
import type { KeptLlmsEntries } from './llms-kept-entries.js';

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

/**
 * Where llms-full.txt's entries wait for the end (issue #39, "Memory": up to the cap, 8 MiB by
 * default): a scratch file when the writer has a scratch folder (the build's), else memory.
 */
class FullEntries {
  private readonly arena = new StringArena();
  private readonly spill: SpillWriter | undefined;
  private readonly spilledAt: number[] = [];
  private readonly spilledLength: number[] = [];
  private fd: number | undefined;

  constructor(scratchFolder: string | undefined) {
    this.spill =
      scratchFolder === undefined ? undefined : new SpillWriter(path.join(scratchFolder, 'llms-full-entries'));
  }

  add(entry: string | Uint8Array): void {
    if (this.spill === undefined) {
      this.arena.push(typeof entry === 'string' ? entry : Buffer.from(entry).toString('utf8'));
      return;
    }
    const bytes = typeof entry === 'string' ? Buffer.from(entry, 'utf8') : entry;
    this.spilledAt.push(this.spill.bytes);
    this.spilledLength.push(bytes.length);
    this.spill.append(bytes);
  }

  /** The entry added `position`th, as UTF-8. */
  bytesAt(position: number): Uint8Array {
    if (this.spill === undefined) return this.arena.bytesAt(position);
    if (this.fd === undefined) {
      this.spill.close();
      this.fd = openSync(this.spill.file, 'r');
    }
    return readAt(this.fd, this.spilledAt[position]!, this.spilledLength[position]!);
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    else this.spill?.close();
    this.fd = undefined;
  }
}

export class LlmsTxtWriter {
  /** Each section's lines, as positions in `lines` (a line as a string per document would be held to the end). */
  private readonly sections = new Map<string, number[]>();
  private readonly lines = new StringArena();
  /** The ids of llms-full.txt's entries (by position), which order the file. */
  private readonly fullIds = new StringArena();
  private readonly full: FullEntries;
  private fullBytes = 0;
  private leftOut = 0;
  private readonly base: string | undefined;

  constructor(
    private readonly manifest: JsonObject,
    publicUrl: string | undefined,
    private readonly maxFullBytes = DEFAULT_MAX_LLMS_FULL_BYTES,
    /** Where llms-full.txt's entries wait (absent: in memory); the caller owns and removes it. */
    scratchFolder?: string,
    /** The previous build's entries, by source key (llms-kept-entries.ts): a kept document's text is not read. */
    private readonly kept?: KeptLlmsEntries,
  ) {
    this.base = documentUrlBase(publicUrl, undefined);
    this.full = new FullEntries(scratchFolder);
  }

  add(document: SearchDocument): void {
    const target = linkTarget(document.url, this.base);
    const folder = folderOf(document);
    const lines = this.sections.get(folder) ?? [];
    this.sections.set(folder, lines);
    lines.push(this.lines.push(`- [${inline(document.title) || document.id}](${target})`));
    // Past the cap every later document is left out too: its entry is never made.
    if (this.leftOut > 0) {
      this.leftOut += 1;
      return;
    }
    const key =
      this.kept && document.sourceKey !== undefined ? this.kept.keyOf(document.sourceKey, this.base) : undefined;
    const keptEntry = key && this.kept!.lookup(key);
    const entry =
      keptEntry || `# ${inline(document.title) || document.id}\n\nSource: ${target}\n\n${document.text.trim()}\n\n`;
    // Counted without encoding: a copy of every document's text is garbage the build collects.
    const bytes = typeof entry === 'string' ? Buffer.byteLength(entry, 'utf8') : entry.length;
    if (this.fullBytes + bytes > this.maxFullBytes) {
      this.leftOut += 1;
      return;
    }
    this.fullIds.push(document.id);
    this.full.add(entry);
    this.fullBytes += bytes;
    if (key) this.kept!.add(key, typeof entry === 'string' ? Buffer.from(entry, 'utf8') : entry);
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
      const positions = Uint32Array.from(this.sections.get(folder)!);
      const sorted = sortPositions(positions, (left, right) => this.lines.compare(left, right));
      const lines = Array.from(sorted, (position) => this.lines.at(position));
      parts.push(`## ${inline(folder)}\n\n${lines.join('\n')}\n`);
    }
    return `${parts.join('\n')}`.replace(/\n*$/, '\n');
  }

  renderFull(): string {
    return this.renderFullBytes().toString('utf8');
  }

  /** llms-full.txt's pieces in order, as UTF-8 (each a copy or a view valid until the next). */
  private *fullPieces(): Generator<Uint8Array> {
    yield Buffer.from(`${this.heading()}\n`, 'utf8');
    // By id, so the file does not depend on the order the documents came in (build, merge, index).
    for (const position of this.fullIds.sortedPositions()) yield this.full.bytesAt(position);
    if (this.leftOut > 0)
      yield Buffer.from(
        `(${this.leftOut} more documents are left out: this file stops at limits.maxLlmsFullBytes, ${this.maxFullBytes} bytes; see llms.txt for the whole list.)\n`,
        'utf8',
      );
  }

  /** llms-full.txt's bytes, joined once from the entries' (never one string of the whole file). */
  renderFullBytes(): Buffer {
    try {
      return Buffer.concat([...this.fullPieces()]);
    } finally {
      this.full.close();
    }
  }

  /**
   * Writes llms-full.txt to `file` piece by piece (never whole in memory) and returns its digest
   * (the tree writer's, digestFile) and size, for TreeOutput.writeFromFile.
   */
  writeFullFile(file: string): { digest: Buffer; sizeBytes: number } {
    const hash = createHash('sha256');
    // Linked into the tree as it is: a tree file's mode, not a scratch file's.
    const out = new SpillWriter(file, 0o666);
    try {
      for (const piece of this.fullPieces()) {
        hash.update(piece);
        out.append(piece);
      }
    } finally {
      out.close();
      this.full.close();
    }
    return { digest: hash.digest(), sizeBytes: out.bytes };
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

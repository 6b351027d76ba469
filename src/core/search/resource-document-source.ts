// A resource's search document from its file (its text items joined), and, for an unchanged
// resource the index writer kept, the same document without reading its file (tree-documents.ts
// lists both).
import { hexOfBytes } from '../packs/hex-of-bytes.js';
import { readResourceFile } from '../tree/lenient-files.js';
import { decodeUtf8 } from '../tree/utf8.js';
import type { IndexedDocument } from './search-results.js';

/** What lets the lister skip reading an unchanged resource (TreeDocumentFiles.keptSources). */
export interface KeptSources {
  /** A file's content digest; undefined when the tree lacks the file. */
  digestOf(treePath: string): Uint8Array | undefined;
  readSync(treePath: string): Uint8Array | undefined;
  has(sourceKey: string): boolean;
  /**
   * The source digests (as the index writer makes them of each document's source key) of a run of
   * list entries when the previous build listed entries of the same `runText` (the build's context
   * and what each entry's document is made of, resource-documents.ts) as documents of files with
   * the same digests (`fileDigests`, 32 bytes a document, back to back) at consecutive arrivals:
   * `sourceAt(position)` then names the document at that position of the run. Undefined: the
   * documents are listed one at a time.
   */
  takeListRun?(runText: string, fileDigests: Uint8Array, count: number): ((position: number) => Uint8Array) | undefined;
  /** Tells the build that every entry of a run of `runText` made a kept document, at arrivals [first, first + count). */
  noteListRun?(runText: string, fileDigests: Uint8Array, first: number, count: number): void;
}

/** A file's JSON value, or undefined when it is not JSON. */
export function parseJson(bytes: Uint8Array): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(decodeUtf8(bytes).text) };
  } catch {
    return undefined;
  }
}

/** A resource file's text items joined, as the document's text; undefined when it holds none or is not JSON. */
export function resourceText(bytes: Uint8Array, uri: string, declaredMime: string | undefined) {
  const parsed = parseJson(bytes);
  if (parsed === undefined) return undefined;
  const contents = readResourceFile(parsed.value, uri, declaredMime);
  const texts = contents.flatMap((item) => (typeof item.text === 'string' ? [item.text] : []));
  if (texts.length === 0) return { text: undefined, contents };
  return { text: texts.join('\n\n'), contents };
}

/**
 * Everything a resource document is made from but its file's bytes, and those bytes' digest: equal
 * keys make equal documents (the index writer keeps a document's share under it).
 */
export function sourceKeyOf(id: string, title: string, url: string, uri: string, mimeType: string, digest: Uint8Array) {
  // A byte's two digits from a table: toString and padStart a byte were an edit build's visible share.
  return JSON.stringify([id, title, url, uri, mimeType, hexOfBytes(digest)]);
}

/**
 * A kept resource's document: its text read (once) only when asked for. A class, its reader on
 * the prototype: an object literal with a getter made a closure, its context and an accessor of
 * its own for every unchanged document of an edit build, garbage the collector went through.
 * One of a list run (takeListRun) carries its source digest, and spells its source key only when
 * asked for it (the index writer then finds it by the digest alone).
 */
export class KeptResourceDocument implements IndexedDocument {
  readonly #kept: KeptSources;
  #text: string | undefined;
  #sourceKey: string | undefined;
  readonly #fileDigest: { digests: Uint8Array; at: number } | undefined;
  readonly metadata: { uri: string; mimeType: string };

  constructor(
    kept: KeptSources,
    readonly id: string,
    readonly title: string,
    readonly url: string,
    uri: string,
    mimeType: string,
    sourceKey: string | { digests: Uint8Array; at: number },
    readonly sourceDigest?: Uint8Array,
  ) {
    this.#kept = kept;
    this.metadata = { uri, mimeType };
    if (typeof sourceKey === 'string') this.#sourceKey = sourceKey;
    else this.#fileDigest = sourceKey;
  }

  get sourceKey(): string {
    if (this.#sourceKey === undefined) {
      const { digests, at } = this.#fileDigest!;
      const { uri, mimeType } = this.metadata;
      this.#sourceKey = sourceKeyOf(this.id, this.title, this.url, uri, mimeType, digests.subarray(at, at + 32));
    }
    return this.#sourceKey;
  }

  get text(): string {
    // Same digest as when it was kept: the same text items (a file that no longer reads gives none).
    if (this.#text === undefined) {
      const bytes = this.#kept.readSync(this.id);
      const { uri, mimeType } = this.metadata;
      this.#text = (bytes === undefined ? undefined : resourceText(bytes, uri, mimeType)?.text) ?? '';
    }
    return this.#text;
  }
}

/**
 * The document of a resource whose source the index writer kept, without reading its file: its
 * text is read (once) when asked for. Undefined when it cannot be listed so.
 */
export function keptResourceDocument(
  kept: KeptSources,
  candidates: readonly string[],
  fields: { uri: string; title: string; url: (id: string) => string; mimeType: string | undefined },
): IndexedDocument | undefined {
  const { uri, title, mimeType } = fields;
  // The file's own mimeType counts only when the entry declares none: then the file is read.
  if (mimeType === undefined) return undefined;
  const id = candidates[0];
  if (id === undefined) return undefined;
  const digest = kept.digestOf(id);
  if (digest === undefined) return undefined;
  const url = fields.url(id);
  const sourceKey = sourceKeyOf(id, title, url, uri, mimeType, digest);
  if (!kept.has(sourceKey)) return undefined;
  return new KeptResourceDocument(kept, id, title, url, uri, mimeType, sourceKey);
}

// What the search document lister (tree-documents.ts, resource-documents.ts) is given: which
// documents to make and the tree's files they are made from. Portable.
import type { Stemming } from './stem.js';
import type { JsonObject } from '../tree/json-object.js';
import type { PackFileSource } from '../packs/pack-reader.js';
import type { PackTable } from '../packs/pack-table.js';
import type { KeptSources } from './resource-document-source.js';

/** Which documents to make (staticmcp.json's `search`, or `staticmcp index`'s options). */
export interface DocumentSettings {
  resources: boolean;
  /** Tools whose precomputed calls are documents; `title` a template over argument names. */
  tools: Readonly<Record<string, { title?: string }>>;
  /** Without its trailing slashes. */
  publicUrl?: string;
  /** How the index stems words (search.language, search.stemming); absent: Porter. */
  stemming?: Stemming;
}

/** What the documents are made from: the manifest's lists, and the tree's files. */
export interface TreeDocumentFiles {
  /** The manifest (as written, or about to be: the build has not written it yet). */
  manifest: JsonObject;
  /** The tree's packs (absent: no packed tool is read). */
  packs?: PackTable;
  /** Every plain file of the tree, tree-relative. */
  paths(): Iterable<string>;
  has(treePath: string): boolean;
  /** A file's bytes, or undefined when the tree lacks it. May throw on I/O failures (told to onSkip). */
  read(treePath: string): Promise<Uint8Array | undefined>;
  /** Binary reads below packs/ (a packed tool's indexes and packs). */
  packFiles?: PackFileSource;
  /**
   * The build's (search-index-step.ts): a file's content digest and synchronous read, and whether
   * the index writer kept the document of a source key. A resource whose source it kept is listed
   * without being read: its `text` reads the file only when asked for (llms-full.txt's first ones).
   */
  keptSources?: KeptSources;
}

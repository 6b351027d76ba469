// The `search` and `fetch` tools as OpenAI's MCP docs define them for ChatGPT's deep research and
// company knowledge (exact names, inputs and result shapes): search {query} → {results: [{id,
// title, url}]}, fetch {id} → {id, title, text, url, metadata?}; each result both as
// structuredContent and as one text item holding the same JSON; `url` an absolute link or "".
// Portable: every host answers from these definitions.
import type { ToolResult } from '../results/tool-result.js';
import { isObject } from '../tree/json-object.js';
import { findTreePathProblem } from '../tree/tree-path.js';

export interface SearchHit {
  id: string;
  title: string;
  url: string;
  /** A few dozen words of the document around its best passage (excerpt.ts); absent when it stores no text. */
  excerpt?: string;
  /** [start, end) of each matching word in `excerpt`, in UTF-16 units. */
  matches?: [number, number][];
}

export interface FetchedDocument {
  id: string;
  title: string;
  text: string;
  url: string;
  metadata?: Record<string, unknown>;
}

const HIT_SCHEMA = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    title: { type: 'string' },
    url: { type: 'string' },
    excerpt: { type: 'string', description: 'Plain text around the best-matching passage.' },
    matches: {
      type: 'array',
      description: 'Where the matching words are in excerpt: [start, end) in UTF-16 units.',
      items: { type: 'array', items: { type: 'integer' }, minItems: 2, maxItems: 2 },
    },
  },
  required: ['id', 'title', 'url'],
} as const;

export const SEARCH_TOOL = {
  name: 'search',
  title: 'Search',
  description:
    'Searches the documents of this server. Returns up to 10 results, best first, each with an id to pass to fetch, a title, a url and an excerpt, and the total number of documents that match.',
  inputSchema: {
    type: 'object',
    properties: {
      query: {
        type: 'string',
        description:
          'Words to look for (any of them; rarer words count more; other forms of a word match too). A word ending in * matches the words it starts.',
      },
    },
    required: ['query'],
  },
  outputSchema: {
    type: 'object',
    properties: {
      results: { type: 'array', items: HIT_SCHEMA },
      total: { type: 'integer', description: 'Documents that hold any of the words.' },
    },
    required: ['results'],
  },
  annotations: { readOnlyHint: true },
} as const;

export const FETCH_TOOL = {
  name: 'fetch',
  title: 'Fetch',
  description: 'Returns the whole text of one document, by the id a search result gave.',
  inputSchema: {
    type: 'object',
    properties: { id: { type: 'string', description: 'The id of a search result.' } },
    required: ['id'],
  },
  outputSchema: {
    type: 'object',
    properties: {
      id: { type: 'string' },
      title: { type: 'string' },
      text: { type: 'string' },
      url: { type: 'string' },
      metadata: { type: 'object' },
    },
    required: ['id', 'title', 'text', 'url'],
  },
  annotations: { readOnlyHint: true },
} as const;

function jsonResult(structured: Record<string, unknown>): ToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

export function searchToolResult(hits: readonly SearchHit[], total?: number): ToolResult {
  const results = hits.map((hit) => ({
    id: hit.id,
    title: hit.title,
    url: hit.url,
    ...(hit.excerpt !== undefined ? { excerpt: hit.excerpt, matches: hit.matches ?? [] } : {}),
  }));
  return jsonResult(total === undefined ? { results } : { results, total });
}

export function fetchToolResult(document: FetchedDocument): ToolResult {
  return jsonResult({ ...document });
}

/** A tool error a model can act on (`message` says what to do). */
export function searchErrorResult(message: string): ToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/**
 * A document on its way into the index. `textFrom: "call"`: its id is a precomputed call's file
 * (tools/<tool>/….json, plain or packed), whose text fetch reads from the call, so the index
 * stores no second copy of it (a Wikipedia-shaped tree's 1.3 GB of articles would be stored twice).
 */
export interface IndexedDocument extends FetchedDocument {
  textFrom?: 'call';
  /**
   * A build's resource document whose source (file digest and manifest entry) the index writer
   * kept a share of: the key it is found under. Its `text` is read only when asked for.
   */
  sourceKey?: string;
  /**
   * The digest the index writer makes of `sourceKey`, when the lister had it from the previous
   * build's edit state (a document of an unchanged list run): the writer finds it by this alone.
   */
  sourceDigest?: Uint8Array;
}

/** A document as the index stores it: its text, or (`textFrom: "call"`) none, the call's file holding it. */
export type StoredDocument = FetchedDocument | (Omit<FetchedDocument, 'text'> & { textFrom: 'call' });

/** A stored call document's id must be a call file's path: the one file fetch reads for it. */
export function isCallFileId(id: string): boolean {
  return id.startsWith('tools/') && id.endsWith('.json') && findTreePathProblem(id) === undefined;
}

/** The document body the writer stored (its JSON text); undefined when it is not one, or not `id`'s. */
export function parseDocumentBody(text: string, id: string): StoredDocument | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(raw) || raw.id !== id) return undefined;
  const { title, text: documentText, url, metadata, textFrom } = raw;
  if (typeof title !== 'string' || typeof url !== 'string') return undefined;
  if (metadata !== undefined && !isObject(metadata)) return undefined;
  const rest = { url, ...(metadata !== undefined ? { metadata } : {}) };
  if (textFrom !== undefined) {
    // A pointer names no other file than its own id, and only a call file below tools/.
    if (textFrom !== 'call' || documentText !== undefined || !isCallFileId(id)) return undefined;
    return { id, title, textFrom, ...rest };
  }
  if (typeof documentText !== 'string') return undefined;
  return { id, title, text: documentText, ...rest };
}

/**
 * The body the writer stores for a document: the fetch result's JSON, keys in a fixed order; a
 * call's document without its text. Throws when a call document's id is not a call file's path.
 */
export function encodeDocumentBody(document: IndexedDocument): string {
  if (document.textFrom === 'call') {
    if (!isCallFileId(document.id))
      throw new Error(`the search document ${document.id} takes its text from a call, but is not a tools/….json file`);
    return JSON.stringify({
      id: document.id,
      title: document.title,
      textFrom: 'call',
      url: document.url,
      ...(document.metadata !== undefined ? { metadata: document.metadata } : {}),
    });
  }
  return JSON.stringify({
    id: document.id,
    title: document.title,
    text: document.text,
    url: document.url,
    ...(document.metadata !== undefined ? { metadata: document.metadata } : {}),
  });
}

/**
 * The rest of a document source (excerpt-source.ts) after its text: `[title, url]`, or
 * `[title, url, metadata]`; its id is the record's name, its text the source's.
 */
export function encodeDocumentSourceRest(document: IndexedDocument): string {
  return JSON.stringify(
    document.metadata !== undefined
      ? [document.title, document.url, document.metadata]
      : [document.title, document.url],
  );
}

/** The document of `id` whose source holds `text` and `rest`; undefined when `rest` is not one. */
export function parseDocumentSourceRest(rest: string, id: string, text: string): FetchedDocument | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(rest);
  } catch {
    return undefined;
  }
  if (!Array.isArray(raw) || raw.length < 2 || raw.length > 3) return undefined;
  const [title, url, metadata] = raw as unknown[];
  if (typeof title !== 'string' || typeof url !== 'string') return undefined;
  if (raw.length === 3 && !isObject(metadata)) return undefined;
  // The order a stored body's keys have (encodeDocumentBody): fetch answers the same JSON.
  return { id, title, text, url, ...(raw.length === 3 ? { metadata: metadata as Record<string, unknown> } : {}) };
}

// The `search` and `fetch` tools as OpenAI's MCP docs define them for ChatGPT's deep research and
// company knowledge (exact names, inputs and result shapes): search {query} → {results: [{id,
// title, url}]}, fetch {id} → {id, title, text, url, metadata?}; each result both as
// structuredContent and as one text item holding the same JSON; `url` an absolute link or "".
// Portable: every host answers from these definitions.
import type { ToolResult } from '../results/tool-result.js';
import { isObject } from '../tree/json-object.js';

export interface SearchHit {
  id: string;
  title: string;
  url: string;
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
  properties: { id: { type: 'string' }, title: { type: 'string' }, url: { type: 'string' } },
  required: ['id', 'title', 'url'],
} as const;

export const SEARCH_TOOL = {
  name: 'search',
  title: 'Search',
  description:
    'Searches the documents of this server. Returns up to 10 results, best first, each with an id to pass to fetch, a title and a url.',
  inputSchema: {
    type: 'object',
    properties: { query: { type: 'string', description: 'Words to look for (any of them; rarer words count more).' } },
    required: ['query'],
  },
  outputSchema: {
    type: 'object',
    properties: { results: { type: 'array', items: HIT_SCHEMA } },
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

export function searchToolResult(hits: readonly SearchHit[]): ToolResult {
  return jsonResult({ results: hits.map((hit) => ({ id: hit.id, title: hit.title, url: hit.url })) });
}

export function fetchToolResult(document: FetchedDocument): ToolResult {
  return jsonResult({ ...document });
}

/** A tool error a model can act on (`message` says what to do). */
export function searchErrorResult(message: string): ToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/** The document body the writer stored (its JSON text); undefined when it is not one, or not `id`'s. */
export function parseDocumentBody(text: string, id: string): FetchedDocument | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(raw) || raw.id !== id) return undefined;
  const { title, text: documentText, url, metadata } = raw;
  if (typeof title !== 'string' || typeof documentText !== 'string' || typeof url !== 'string') return undefined;
  if (metadata !== undefined && !isObject(metadata)) return undefined;
  return { id, title, text: documentText, url, ...(metadata !== undefined ? { metadata } : {}) };
}

/** The body the writer stores for a document: the fetch result's JSON, keys in a fixed order. */
export function encodeDocumentBody(document: FetchedDocument): string {
  return JSON.stringify({
    id: document.id,
    title: document.title,
    text: document.text,
    url: document.url,
    ...(document.metadata !== undefined ? { metadata: document.metadata } : {}),
  });
}

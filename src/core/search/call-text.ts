// The text of a precomputed call as a search document (issue #25), in one place for the two that
// need it: the lister (tree-documents.ts), which indexes it, and the reader (search-reader.ts),
// which answers `fetch` of a call's document by reading the call again rather than a copy of its
// text kept in the index. Sharing it is what makes fetch return the very text that was indexed.
import { isObject, type JsonObject } from '../tree/json-object.js';
import { readCallFile } from '../tree/lenient-files.js';

/** A call result as one document's text: its text items, else its structured content as JSON. */
export function textOfResult(result: JsonObject): string {
  const texts = (Array.isArray(result.content) ? result.content : []).flatMap((item) =>
    isObject(item) && item.type === 'text' && typeof item.text === 'string' ? [item.text] : [],
  );
  if (texts.length > 0) return texts.join('\n\n');
  return isObject(result.structuredContent) ? JSON.stringify(result.structuredContent) : '';
}

/** The tool of a plain call file: `tools/<tool>/….json` or `tools/<tool>.json`. */
export function toolOfCallFile(filePath: string): string | undefined {
  if (!filePath.startsWith('tools/') || !filePath.endsWith('.json')) return undefined;
  const rest = filePath.slice('tools/'.length);
  const slash = rest.indexOf('/');
  return slash < 0 ? rest.slice(0, -'.json'.length) : rest.slice(0, slash);
}

/**
 * A call file's parsed JSON as a document: its text and recorded arguments, or why it is none (an
 * error result, or no text: neither is indexed, so fetch must not answer with one either).
 */
export function callDocumentText(
  value: unknown,
): { text: string; recordedArguments?: JsonObject } | { problem: 'an error result' | 'no text' } {
  const { result, recordedArguments } = readCallFile(value);
  if (result.isError === true) return { problem: 'an error result' };
  const text = textOfResult(result);
  if (text === '') return { problem: 'no text' };
  return { text, ...(recordedArguments !== undefined ? { recordedArguments } : {}) };
}

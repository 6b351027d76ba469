// The rich-output convention: a script whose metadata says `"outputFormat": "mcp"` prints one JSON
// CallToolResult (`content` blocks of type text, image, audio, resource or resource_link,
// `isError`, `structuredContent`, `_meta`) instead of plain text. This checks that object by hand
// (portable: the bridge runs it on every host, and ajv's messages would name schema paths rather
// than say what to fix) and returns it, or one sentence a script author can act on.

import { isObject, type JsonObject } from '../tree/json-object.js';
import { URI_WITH_SCHEME } from '../tree/name-rules.js';

/** How a script's stdout becomes a result: as text (the default) or as a CallToolResult it printed. */
export type OutputFormat = 'text' | 'mcp';
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['text', 'mcp'];

/** A content block as MCP defines it (only the fields the convention checks are typed). */
export interface ContentBlock {
  type: 'text' | 'image' | 'audio' | 'resource' | 'resource_link';
  [field: string]: unknown;
}

export interface McpOutput {
  content: ContentBlock[];
  isError?: boolean;
  structuredContent?: JsonObject;
  _meta?: JsonObject;
}

const RESULT_KEYS = new Set(['content', 'isError', 'structuredContent', '_meta']);
/** Keys every block may carry besides its own. */
const COMMON_BLOCK_KEYS = ['type', 'annotations', '_meta'];
const BLOCK_KEYS: Record<ContentBlock['type'], readonly string[]> = {
  text: ['text'],
  image: ['data', 'mimeType'],
  audio: ['data', 'mimeType'],
  resource: ['resource'],
  resource_link: ['uri', 'name', 'title', 'description', 'mimeType', 'size', 'icons'],
};
const RESOURCE_KEYS = new Set(['uri', 'mimeType', 'text', 'blob', '_meta']);
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const MIME_TYPE = /^[^/\s]+\/[^/\s]+$/;

/** A string with a `{{name}}` placeholder (a prompt message before rendering): its format is checked once rendered, by the client. */
const PLACEHOLDER = /\{\{\s*[#^/]?\s*[A-Za-z_][A-Za-z0-9_-]*\s*\}\}/;
let placeholdersAllowed = false;
function isTemplated(value: unknown): boolean {
  return placeholdersAllowed && typeof value === 'string' && PLACEHOLDER.test(value);
}

function unknownKey(value: JsonObject, allowed: Iterable<string>): string | undefined {
  const known = new Set(allowed);
  return Object.keys(value).find((key) => !known.has(key));
}

function checkBase64(value: unknown, where: string): string | undefined {
  if (isTemplated(value)) return undefined;
  if (typeof value !== 'string' || value === '') return `${where} must be a non-empty base64 string`;
  if (!BASE64.test(value))
    return `${where} is not base64 (only A-Z a-z 0-9 + / and = padding, length a multiple of 4, no line breaks)`;
  return undefined;
}

function checkMimeType(value: unknown, where: string, required: boolean): string | undefined {
  if ((value === undefined && !required) || isTemplated(value)) return undefined;
  if (typeof value !== 'string' || !MIME_TYPE.test(value)) return `${where} must be a MIME type such as "image/png"`;
  return undefined;
}

function checkEmbeddedResource(resource: unknown, where: string): string | undefined {
  if (!isObject(resource)) return `${where} must be an object {uri, mimeType?, text | blob}`;
  const extra = unknownKey(resource, RESOURCE_KEYS);
  if (extra !== undefined)
    return `${where} has an unknown key "${extra}" (a resource has uri, mimeType, text or blob, _meta)`;
  if (typeof resource.uri !== 'string' || (!URI_WITH_SCHEME.test(resource.uri) && !isTemplated(resource.uri)))
    return `${where}.uri must be a URI with a scheme, such as "file:///notes.txt"`;
  const mimeProblem = checkMimeType(resource.mimeType, `${where}.mimeType`, false);
  if (mimeProblem) return mimeProblem;
  const hasText = 'text' in resource;
  const hasBlob = 'blob' in resource;
  if (hasText === hasBlob) return `${where} needs exactly one of "text" (a string) or "blob" (base64)`;
  if (hasText && typeof resource.text !== 'string') return `${where}.text must be a string`;
  return hasBlob ? checkBase64(resource.blob, `${where}.blob`) : undefined;
}

/**
 * One content block (of a tool result or a prompt message); undefined when it is valid. With
 * `placeholders`, a string holding `{{name}}` passes the format checks (a URI, a MIME type):
 * a prompt's arguments fill it in later.
 */
export function checkContentBlock(
  block: unknown,
  where: string,
  options: { placeholders?: boolean } = {},
): string | undefined {
  placeholdersAllowed = options.placeholders === true;
  try {
    return checkBlock(block, where);
  } finally {
    placeholdersAllowed = false;
  }
}

function checkBlock(block: unknown, where: string): string | undefined {
  if (!isObject(block)) return `${where} must be an object with a "type"`;
  const type = block.type;
  if (typeof type !== 'string' || !(type in BLOCK_KEYS)) {
    return `${where}.type must be one of ${Object.keys(BLOCK_KEYS).join(', ')} (got ${JSON.stringify(type) ?? 'nothing'})`;
  }
  const own = BLOCK_KEYS[type as ContentBlock['type']];
  const extra = unknownKey(block, [...COMMON_BLOCK_KEYS, ...own]);
  if (extra !== undefined)
    return `${where} (${type}) has an unknown key "${extra}" (it may have ${[...own, 'annotations', '_meta'].join(', ')})`;
  if (block.annotations !== undefined && !isObject(block.annotations)) return `${where}.annotations must be an object`;
  if (block._meta !== undefined && !isObject(block._meta)) return `${where}._meta must be an object`;
  switch (type) {
    case 'text':
      return typeof block.text === 'string' ? undefined : `${where}.text must be a string`;
    case 'image':
    case 'audio':
      return checkBase64(block.data, `${where}.data`) ?? checkMimeType(block.mimeType, `${where}.mimeType`, true);
    case 'resource':
      return checkEmbeddedResource(block.resource, `${where}.resource`);
    default: {
      if (typeof block.uri !== 'string' || (!URI_WITH_SCHEME.test(block.uri) && !isTemplated(block.uri)))
        return `${where}.uri must be a URI with a scheme`;
      if (typeof block.name !== 'string' || block.name === '') return `${where}.name must be a non-empty string`;
      for (const key of ['title', 'description'] as const) {
        if (block[key] !== undefined && typeof block[key] !== 'string') return `${where}.${key} must be a string`;
      }
      if (
        block.size !== undefined &&
        (typeof block.size !== 'number' || !Number.isInteger(block.size) || block.size < 0)
      ) {
        return `${where}.size must be a whole number of bytes`;
      }
      return checkMimeType(block.mimeType, `${where}.mimeType`, false);
    }
  }
}

/**
 * Parses what an `"outputFormat": "mcp"` script printed. Without `content` but with
 * `structuredContent`, the content becomes that object as JSON text (what MCP asks servers to add
 * for clients that do not read structured results).
 */
export function parseMcpOutput(stdout: string): { output: McpOutput } | { problem: string } {
  const text = stdout.trim();
  if (text === '')
    return {
      problem: 'it printed nothing; print one JSON object such as {"content": [{"type": "text", "text": "…"}]}',
    };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const preview = text.length > 60 ? `${text.slice(0, 60)}…` : text;
    return {
      problem: `its output is not JSON (${(error as Error).message}); it starts with ${JSON.stringify(preview)}`,
    };
  }
  if (!isObject(value)) return { problem: 'its output must be a JSON object with a "content" array' };
  const extra = unknownKey(value, RESULT_KEYS);
  if (extra !== undefined)
    return {
      problem: `its output has an unknown key "${extra}" (a CallToolResult has content, isError, structuredContent, _meta)`,
    };
  if (value.isError !== undefined && typeof value.isError !== 'boolean')
    return { problem: '"isError" must be true or false' };
  if (value.structuredContent !== undefined && !isObject(value.structuredContent))
    return { problem: '"structuredContent" must be a JSON object' };
  if (value._meta !== undefined && !isObject(value._meta)) return { problem: '"_meta" must be a JSON object' };
  let content = value.content;
  if (content === undefined && isObject(value.structuredContent)) {
    content = [{ type: 'text', text: JSON.stringify(value.structuredContent) }];
  }
  if (!Array.isArray(content)) return { problem: '"content" must be an array of content blocks' };
  for (const [index, block] of content.entries()) {
    const problem = checkContentBlock(block, `content[${index}]`);
    if (problem) return { problem };
  }
  const output: McpOutput = { content: content as ContentBlock[] };
  if (value.isError === true) output.isError = true;
  if (value.structuredContent !== undefined) output.structuredContent = value.structuredContent as JsonObject;
  if (value._meta !== undefined) output._meta = value._meta as JsonObject;
  return { output };
}

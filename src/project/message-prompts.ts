// Prompts written as messages: `prompts/<name>.json` holds `{"messages": [{role, content}, …]}`
// (content blocks as in MCP: text, image, audio, resource, resource_link) and may hold the same
// keys as a sidecar (name, title, description, arguments). `{{arg}}` placeholders may appear in
// any string of the messages (a text, an embedded resource's uri). An image or audio block may
// name a file (`"file": "pixel.png"`, relative to the prompt file, inside the project) instead of
// carrying base64 `data`: the build embeds it.
import path from 'node:path';
import { checkContentBlock } from '../core/results/mcp-output.js';
import { readFailureReason, readProjectFile } from '../shared/read-regular-file.js';
import { isObject, type JsonObject } from '../core/tree/json-object.js';

export interface PromptMessage {
  role: 'user' | 'assistant';
  content: JsonObject;
}

const META_KEYS = new Set(['name', 'title', 'description', 'arguments']);

/** Whether a prompt file is a message prompt (by its name; every other file is a text template). */
export function isMessagePromptFile(fileName: string): boolean {
  return fileName.endsWith('.json');
}

/** `{"type": "image", "file": "x.png"}` → `{"type": "image", "data": <base64>, "mimeType": "image/png"}`. */
async function embedFile(
  block: JsonObject,
  where: string,
  baseFolder: string,
  projectRoot: string,
): Promise<JsonObject | string> {
  const { file, ...rest } = block;
  if (typeof file !== 'string' || file === '') return `${where}.file must be a path relative to the prompt file`;
  if (block.type !== 'image' && block.type !== 'audio') return `${where}: "file" works for image and audio blocks only`;
  if ('data' in block) return `${where} has both "file" and "data"; keep one`;
  const resolved = path.resolve(baseFolder, file);
  const relative = path.relative(projectRoot, resolved);
  if (relative.startsWith('..') || path.isAbsolute(relative)) return `${where}.file "${file}" is outside the project`;
  let bytes: Buffer;
  try {
    bytes = await readProjectFile(resolved, projectRoot);
  } catch (error) {
    return `${where}.file "${file}" cannot be read (${readFailureReason(error)})`;
  }
  const { mimeTypeFor } = await import('./mime-type.js');
  return {
    ...rest,
    data: bytes.toString('base64'),
    mimeType: typeof block.mimeType === 'string' ? block.mimeType : mimeTypeFor(file),
  };
}

/**
 * Parses a message prompt file: its messages (files embedded, every block checked) and the
 * metadata keys it holds. `baseFolder` is the prompt file's folder; `projectRoot` bounds `file`.
 */
export async function readMessagePrompt(
  text: string,
  baseFolder: string,
  projectRoot: string,
): Promise<{ messages: PromptMessage[]; meta: JsonObject } | { problem: string }> {
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    return { problem: `is not JSON (${(error as Error).message}); a .json prompt holds {"messages": [...]}` };
  }
  if (!isObject(value)) return { problem: 'must hold a JSON object {"messages": [...]}' };
  const unknown = Object.keys(value).find((key) => key !== 'messages' && !META_KEYS.has(key));
  if (unknown !== undefined)
    return {
      problem: `has an unknown key "${unknown}" (a .json prompt has messages, name, title, description, arguments)`,
    };
  if (!Array.isArray(value.messages) || value.messages.length === 0)
    return { problem: '"messages" must be a non-empty array of {role, content}' };
  const messages: PromptMessage[] = [];
  for (const [index, message] of value.messages.entries()) {
    const where = `messages[${index}]`;
    if (!isObject(message)) return { problem: `${where} must be an object {role, content}` };
    const extra = Object.keys(message).find((key) => key !== 'role' && key !== 'content');
    if (extra !== undefined)
      return { problem: `${where} has an unknown key "${extra}" (a message has role and content)` };
    if (message.role !== 'user' && message.role !== 'assistant')
      return { problem: `${where}.role must be "user" or "assistant"` };
    let content = message.content;
    if (isObject(content) && 'file' in content) {
      const embedded = await embedFile(content, `${where}.content`, baseFolder, projectRoot);
      if (typeof embedded === 'string') return { problem: embedded };
      content = embedded;
    }
    const blockProblem = checkContentBlock(content, `${where}.content`, { placeholders: true });
    if (blockProblem) return { problem: blockProblem };
    messages.push({ role: message.role, content: content as JsonObject });
  }
  const meta = Object.fromEntries(Object.entries(value).filter(([key]) => META_KEYS.has(key)));
  return { messages, meta };
}

/** Every string inside the messages, for finding placeholders. */
export function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  if (isObject(value)) return Object.values(value).flatMap(stringsOf);
  return [];
}

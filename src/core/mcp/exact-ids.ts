// JSON-RPC ids kept exactly as the client wrote them. JSON.parse turns an id such as
// 12345678901234567890 into a rounded double, and a response with the rounded id never matches
// the client's request. Top-level `id` number literals that a double cannot hold exactly are
// therefore parsed as marked strings (a per-process random mark, so no client can forge one) and
// written back as the same literal when the answer is serialized. Portable: no Node APIs.

interface Mark {
  text: string;
  /** The mark as JSON.stringify writes it (the NUL escaped). */
  serialized: string;
  markedId: RegExp;
}

let mark: Mark | undefined;

/** Made on first use: edge runtimes refuse random values at module load (outside a handler). */
function getMark(): Mark {
  if (mark) return mark;
  const text = `\u0000staticmcp-id-${Array.from(crypto.getRandomValues(new Uint8Array(8)), (byte) => byte.toString(16).padStart(2, '0')).join('')}:`;
  const serialized = JSON.stringify(text).slice(1, -1);
  const markedId = new RegExp(`"${serialized.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')}(-?[0-9][0-9.eE+-]*)"`, 'g');
  mark = { text, serialized, markedId };
  return mark;
}
/** Literals shorter than this are always exact doubles, so most messages skip the scan. */
const LONG_NUMBER = /\d{16}/;

function skipWhitespace(text: string, index: number): number {
  while (
    index < text.length &&
    (text[index] === ' ' || text[index] === '\t' || text[index] === '\n' || text[index] === '\r')
  )
    index += 1;
  return index;
}

/** The index just after the string starting at `index` (a `"`). */
function skipString(text: string, index: number): number {
  for (let cursor = index + 1; cursor < text.length; cursor += 1) {
    if (text[cursor] === '\\') cursor += 1;
    else if (text[cursor] === '"') return cursor + 1;
  }
  return text.length;
}

/** [start, end) of every top-level `"id": <number>` literal that parsing would round. */
function findInexactIds(text: string): [number, number][] {
  const found: [number, number][] = [];
  const start = skipWhitespace(text, 0);
  // A message is the root object, or an object directly inside a root array (a batch).
  const messageDepth = text[start] === '[' ? 2 : 1;
  let depth = 0;
  for (let index = start; index < text.length; ) {
    const character = text[index];
    if (character === '"') {
      const end = skipString(text, index);
      if (depth === messageDepth && text.slice(index, end) === '"id"') {
        const colon = skipWhitespace(text, end);
        if (text[colon] === ':') {
          const literalStart = skipWhitespace(text, colon + 1);
          const literal = /^-?[0-9][0-9.eE+-]*/.exec(text.slice(literalStart, literalStart + 400))?.[0];
          if (literal && JSON.stringify(Number(literal)) !== literal)
            found.push([literalStart, literalStart + literal.length]);
        }
      }
      index = end;
      continue;
    }
    if (character === '{' || character === '[') depth += 1;
    else if (character === '}' || character === ']') depth -= 1;
    index += 1;
  }
  return found;
}

/** JSON.parse for a JSON-RPC body (throws like it on bad JSON), with inexact ids kept exactly. */
export function parseJsonRpcText(text: string): unknown {
  if (!LONG_NUMBER.test(text)) return JSON.parse(text);
  const inexact = findInexactIds(text);
  if (inexact.length === 0) return JSON.parse(text);
  let rewritten = '';
  let copiedUpTo = 0;
  for (const [start, end] of inexact) {
    rewritten += `${text.slice(copiedUpTo, start)}${JSON.stringify(`${getMark().text}${text.slice(start, end)}`)}`;
    copiedUpTo = end;
  }
  return JSON.parse(rewritten + text.slice(copiedUpTo));
}

/**
 * Where a message already serialized once keeps its text (a batch's answers, counted by
 * answer-budget.ts as they arrive; a call answered from its file's bytes): a symbol key, not
 * enumerable, so a copy of the message (`{ ...message, id }`) never carries a text that is not its
 * own, and JSON leaves it out. Not a WeakMap: one entry per cut answer made every garbage
 * collection walk a table of dead keys, as precomputed-answers.ts found for its own mark.
 */
const SERIALIZED = Symbol('staticmcp.serialized');

function keptText(message: object): string | undefined {
  return (message as { [SERIALIZED]?: string })[SERIALIZED];
}

/** `stringifyJsonRpc(message)`, kept so that serializing the message again (or its batch) reuses it. */
export function stringifyAndKeep(message: Record<string, unknown>): string {
  const text = stringifyJsonRpc(message);
  keepSerialized(message, text);
  return text;
}

/** Makes `text` what stringifyJsonRpc writes for `message` (its caller vouches that it is the same JSON). */
export function keepSerialized(message: Record<string, unknown>, text: string): void {
  Object.defineProperty(message, SERIALIZED, { value: text, writable: true, configurable: true });
}

/** JSON.stringify for an outgoing message, writing kept ids back as the client's literal. */
export function stringifyJsonRpc(message: unknown): string {
  if (typeof message === 'object' && message !== null) {
    const kept = keptText(message);
    if (kept !== undefined) return kept;
    if (
      Array.isArray(message) &&
      message.some((item: unknown) => typeof item === 'object' && item !== null && keptText(item) !== undefined)
    )
      return `[${message.map((item: unknown) => stringifyJsonRpc(item)).join(',')}]`;
  }
  const text = JSON.stringify(message);
  // Without a mark made, no id was kept, so there is nothing to write back.
  if (!mark || !text.includes(mark.serialized)) return text;
  return text.replace(mark.markedId, '$1');
}

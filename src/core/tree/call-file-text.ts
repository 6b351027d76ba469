// The bytes of a call file, and the answer cut from them. A build writes each call file as one
// line of compact JSON whose last member is `_meta` and whose `_meta` ends with the recorded
// arguments (`_meta["staticmcp/arguments"]`, where every reader of call files looks). The result
// a bridge answers with is that file without the arguments: one member cut off the end of the
// text, so the bridge can send the stored bytes instead of serializing a parsed copy. Any file
// laid out otherwise (a tree built before, another generator's, one edited by hand) is answered
// by serializing what it parses to.
import { ARGUMENTS_META_KEY } from './manifest.js';
import { isObject, type JsonObject } from './json-object.js';

const ARGUMENTS_MEMBER = `${JSON.stringify(ARGUMENTS_META_KEY)}:`;
/** What precedes the arguments when they are all the `_meta` there is. */
const LONE_META_OPENING = ',"_meta":{';

/** The call file answering `args` with `result` (a CallToolResult, whose own `_meta` is kept before the arguments). */
export function callFileText(result: JsonObject, args: JsonObject): string {
  const { _meta, ...rest } = result;
  const meta: JsonObject = {};
  if (isObject(_meta)) for (const key of Object.keys(_meta)) if (key !== ARGUMENTS_META_KEY) meta[key] = _meta[key];
  meta[ARGUMENTS_META_KEY] = args;
  return `${JSON.stringify({ ...rest, _meta: meta })}\n`;
}

function lastKeyOf(value: JsonObject): string | undefined {
  let last: string | undefined;
  for (const key in value) last = key;
  return last;
}

/**
 * The answer's result as JSON text, cut from the text of a call file, byte for byte what
 * serializing the result the file parses to (its recorded arguments taken out) would give; or
 * undefined when the text is not laid out as callFileText writes it. `value` is what `text`
 * parsed to: the parse is what vouches that the text is JSON (a damaged file never gets here),
 * and the cut is checked against it.
 */
export function cutCallResult(text: string, value: unknown): string | undefined {
  if (!isObject(value) || !Array.isArray(value.content) || lastKeyOf(value) !== '_meta') return undefined;
  const meta = value._meta;
  if (!isObject(meta) || lastKeyOf(meta) !== ARGUMENTS_META_KEY || !isObject(meta[ARGUMENTS_META_KEY]))
    return undefined;
  const end = text.endsWith('\n') ? text.length - 1 : text.length;
  // One line: the answer is one frame of a newline-delimited stream.
  const newline = text.indexOf('\n');
  if ((newline !== -1 && newline !== end) || text.includes('\r')) return undefined;
  const tail = `${ARGUMENTS_MEMBER}${JSON.stringify(meta[ARGUMENTS_META_KEY])}}}`;
  const tailStart = end - tail.length;
  if (tailStart <= 0 || !text.startsWith(tail, tailStart)) return undefined;
  // After `,` or `{`, the quote opens a key (in valid JSON a string never ends just before a
  // letter), so the tail is the last member of the object that closes the text's root object: the
  // arguments, last in `_meta`, last in the file.
  if (text[tailStart - 1] === ',') return `${text.slice(0, tailStart - 1)}}}`;
  if (text.startsWith(LONE_META_OPENING, tailStart - LONE_META_OPENING.length))
    return `${text.slice(0, tailStart - LONE_META_OPENING.length)}}`;
  return undefined;
}

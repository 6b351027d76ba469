// YAML front matter (the one module that imports `yaml`): the Markdown summary's `title` and
// `description`, and a skill's SKILL.md, split exactly as the Inspector and other hosts split it
// (a first line `---`, a closing line `---`) and parsed with the aliases bounded, so a
// billion-laughs document is an error, not a hang.
import { parse } from 'yaml';
import { isObject, type JsonObject } from '../core/tree/json-object.js';

/**
 * Aliases a front matter may resolve (the `yaml` package's own default, named here): a document
 * that expands more is refused as a resource-exhaustion attack.
 */
export const MAX_YAML_ALIAS_COUNT = 100;

/** Parses YAML text (throws on a syntax error or too many aliases). */
export function parseYamlText(text: string): unknown {
  return parse(text, { maxAliasCount: MAX_YAML_ALIAS_COUNT });
}

const OPENING_LINE = /^---[ \t]*\r?\n/;
const CLOSING_LINE = /^---[ \t]*\r?$/m;

/** The front matter of a Markdown text: the YAML between its first-line `---` and the next `---` line. */
export function splitFrontMatter(text: string): string | undefined {
  if (!OPENING_LINE.test(text)) return undefined;
  const rest = text.slice(text.indexOf('\n') + 1);
  const close = rest.search(CLOSING_LINE);
  return close === -1 ? undefined : rest.slice(0, close).replace(/\r?\n$/, '');
}

/**
 * A front matter as a JSON object, or why it is not one. One larger than `maxBytes` (UTF-8) is
 * refused before it is parsed: the parser's time grows faster than the text (many keys, deep
 * nesting), so a large front matter would hold a build far longer than its size suggests.
 */
export function readFrontMatterObject(
  text: string,
  maxBytes: { value: number; name: string },
): { fields: JsonObject } | { problem: string } {
  const yamlText = splitFrontMatter(text);
  if (yamlText === undefined)
    return {
      problem:
        text.charCodeAt(0) === 0xfeff
          ? 'starts with a byte-order mark, so its first line is not "---"; save it as UTF-8 without a BOM'
          : 'has no YAML front matter: it must begin with a line "---", the fields (name, description), and a closing line "---"',
    };
  const bytes = Buffer.byteLength(yamlText, 'utf8');
  if (bytes > maxBytes.value)
    return {
      problem: `has ${bytes} bytes of front matter, over ${maxBytes.name} (${maxBytes.value}): keep the fields short and put the rest in the body below the closing "---" (or raise the limit in staticmcp.json)`,
    };
  let parsed: unknown;
  try {
    parsed = parseYamlText(yamlText);
  } catch (error) {
    return { problem: `has front matter that is not valid YAML (${firstLine((error as Error).message)})` };
  }
  if (!isObject(parsed)) return { problem: 'has front matter that is not a YAML mapping of fields (name: …)' };
  // Hosts receive it as JSON: a recursive alias (a cycle) or a value JSON cannot hold is refused.
  try {
    return { fields: JSON.parse(JSON.stringify(parsed)) as JsonObject };
  } catch {
    return { problem: 'has front matter that cannot be written as JSON (a recursive alias?)' };
  }
}

function firstLine(message: string): string {
  return message.split('\n')[0]!.slice(0, 300);
}

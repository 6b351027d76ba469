// RFC 6570 URI templates, levels 1 and 2 (`{var}`, `{+var}`, `{#var}`), enough for resource
// templates: expansion for the build's precomputed instances, and matching a concrete URI back
// to its variables for the bridge. Written here because the maintained libraries expand only.
import { utf8Bytes } from './utf8.js';
import {
  type CompiledTemplate,
  compileTemplateParts,
  runTemplateMatcher,
  type TemplatePart,
} from './uri-template-matcher.js';

const EXPRESSION = /\{([+#]?)([A-Za-z0-9_.%]+)\}/g;

/** Splits a template; throws with a readable reason when it has no variable or a malformed one. */
export function parseUriTemplate(template: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let last = 0;
  for (const match of template.matchAll(EXPRESSION)) {
    if (match.index! > last) parts.push({ literal: template.slice(last, match.index) });
    parts.push({ operator: match[1] as TemplatePart['operator'], variable: match[2] });
    last = match.index! + match[0].length;
  }
  if (last < template.length) parts.push({ literal: template.slice(last) });
  const literalText = parts
    .filter((part) => part.literal !== undefined)
    .map((part) => part.literal)
    .join('');
  if (/[{}]/.test(literalText)) {
    throw new Error(
      `"${template}" has a malformed {expression} (use {name}, {+name} or {#name} with letters, digits, _ or .)`,
    );
  }
  if (!parts.some((part) => part.variable))
    throw new Error(`"${template}" has no {variable}; a fixed URI is a resource, not a template`);
  return parts;
}

export function templateVariables(template: string): string[] {
  return [
    ...new Set(
      parseUriTemplate(template)
        .filter((part) => part.variable)
        .map((part) => part.variable!),
    ),
  ];
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;
const RESERVED = /[:/?#[\]@!$&'()*+,;=]/;

function encodeValue(value: string, keepReserved: boolean): string {
  let encoded = '';
  for (const character of value) {
    if (UNRESERVED.test(character) || (keepReserved && RESERVED.test(character))) encoded += character;
    else
      encoded += [...utf8Bytes(character)]
        .map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`)
        .join('');
  }
  return encoded;
}

export function expandUriTemplate(template: string, values: Record<string, string>): string {
  return parseUriTemplate(template)
    .map((part) => {
      if (part.literal !== undefined) return part.literal;
      const value = values[part.variable!];
      if (value === undefined) return '';
      const encoded = encodeValue(value, part.operator !== '');
      return part.operator === '#' ? `#${encoded}` : encoded;
    })
    .join('');
}

/**
 * Compiled templates by their text: a tree has a handful, and every read of an unlisted URI tries
 * each of them. Cleared when full, so templates of many reloaded trees (dev) cannot pile up.
 */
const compiledTemplates = new Map<string, CompiledTemplate | null>();
const MAX_COMPILED_TEMPLATES = 256;

function compileTemplate(template: string): CompiledTemplate | null {
  let compiled = compiledTemplates.get(template);
  if (compiled !== undefined) return compiled;
  try {
    compiled = compileTemplateParts(parseUriTemplate(template));
  } catch {
    compiled = null;
  }
  if (compiledTemplates.size >= MAX_COMPILED_TEMPLATES) compiledTemplates.clear();
  compiledTemplates.set(template, compiled);
  return compiled;
}

/**
 * The variables of `uri` when it is an instance of `template`, else null. Linear in the URI's
 * length (uri-template-matcher.ts): a `{var}` holds no `/`, `?` or `#` and takes as much as it
 * can, a `{+var}` takes as little as it can, a `{#var}` is the rest after a `#` (or '' without
 * one); values are percent-decoded, and a repeated name keeps its last value.
 */
export function matchUriTemplate(template: string, uri: string): Record<string, string> | null {
  const compiled = compileTemplate(template);
  if (!compiled) return null;
  const captured = runTemplateMatcher(compiled, uri);
  if (!captured) return null;
  const values: Record<string, string> = {};
  for (const [index, name] of compiled.names.entries()) {
    try {
      values[name] = decodeURIComponent(captured[index] ?? '');
    } catch {
      return null;
    }
  }
  return values;
}

// RFC 6570 URI templates, levels 1 and 2 (`{var}`, `{+var}`, `{#var}`), enough for resource
// templates: expansion for the build's precomputed instances, and matching a concrete URI back
// to its variables for the bridge. Written here because the maintained libraries expand only.
import { utf8Bytes } from './utf8.js';

export interface TemplatePart {
  literal?: string;
  variable?: string;
  /** '' (simple: reserved characters percent-encoded), '+' (reserved kept) or '#' (fragment). */
  operator?: '' | '+' | '#';
}

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

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The variables of `uri` when it is an instance of `template`, else null. */
export function matchUriTemplate(template: string, uri: string): Record<string, string> | null {
  let parts: TemplatePart[];
  try {
    parts = parseUriTemplate(template);
  } catch {
    return null;
  }
  const names: string[] = [];
  const pattern = parts
    .map((part) => {
      if (part.literal !== undefined) return escapeRegExp(part.literal);
      names.push(part.variable!);
      if (part.operator === '#') return '(?:#(.*))?';
      return part.operator === '+' ? '(.*?)' : '([^/?#]*)';
    })
    .join('');
  const match = new RegExp(`^${pattern}$`, 's').exec(uri);
  if (!match) return null;
  const values: Record<string, string> = {};
  for (const [index, name] of names.entries()) {
    try {
      values[name] = decodeURIComponent(match[index + 1] ?? '');
    } catch {
      return null;
    }
  }
  return values;
}

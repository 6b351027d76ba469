// Prompt templates, shared by the build (which checks them) and every bridge (which renders them):
// `{{name}}` is replaced by the argument's value, `{{#name}}…{{/name}}` is kept only when the
// argument has a non-empty value and `{{^name}}…{{/name}}` only when it has none (Mustache's
// sections, so an optional argument leaves no gap like "to a  how"). A section tag alone on its
// line takes the line with it, as in Mustache. Hand-written rather than mustache.js: that library
// HTML-escapes `{{name}}` unless a global setting is changed, and we need sections only. Portable.

const TAG = /\{\{\s*([#^/]?)\s*([A-Za-z_][A-Za-z0-9_-]*)\s*\}\}/g;

type Node =
  | { kind: 'text'; text: string }
  | { kind: 'value'; name: string }
  | { kind: 'section'; name: string; inverted: boolean; children: Node[] };

export type ParsedTemplate = { nodes: Node[]; names: string[] } | { problem: string };

/** Where a section tag's text really starts and ends: its whole line when it stands alone on it. */
function tagSpan(template: string, start: number, end: number, cursor: number): [number, number] {
  const lineStart = template.lastIndexOf('\n', start - 1) + 1;
  const newline = template.indexOf('\n', end);
  const lineEnd = newline < 0 ? template.length : newline + 1;
  const before = template.slice(lineStart, start);
  const after = template.slice(end, newline < 0 ? template.length : newline);
  if (lineStart >= cursor && before.trim() === '' && after.replace(/\r$/, '').trim() === '')
    return [lineStart, lineEnd];
  return [start, end];
}

export function parsePromptTemplate(template: string): ParsedTemplate {
  const root: Node[] = [];
  const open: { name: string; children: Node[] }[] = [{ name: '', children: root }];
  const names = new Set<string>();
  let cursor = 0;
  for (const match of template.matchAll(TAG)) {
    // Both groups take part in every match (the sigil may be empty).
    const [whole, sigil = '', name = ''] = match;
    const start = match.index;
    const [spanStart, spanEnd] =
      sigil === '' ? [start, start + whole.length] : tagSpan(template, start, start + whole.length, cursor);
    // Never empty: the root's name is '', which no closing tag has.
    const current = open[open.length - 1]!;
    if (spanStart > cursor) current.children.push({ kind: 'text', text: template.slice(cursor, spanStart) });
    cursor = spanEnd;
    names.add(name);
    if (sigil === '') current.children.push({ kind: 'value', name });
    else if (sigil === '/') {
      if (current.name !== name)
        return {
          problem:
            open.length > 1
              ? `{{/${name}}} closes a section, but the open one is {{#${current.name}}}`
              : `{{/${name}}} closes a section that was never opened`,
        };
      open.pop();
    } else {
      const section: Extract<Node, { kind: 'section' }> = {
        kind: 'section',
        name,
        inverted: sigil === '^',
        children: [],
      };
      current.children.push(section);
      open.push({ name, children: section.children });
    }
  }
  const unclosed = open[open.length - 1];
  if (open.length > 1 && unclosed)
    return { problem: `{{#${unclosed.name}}} is never closed; add {{/${unclosed.name}}}` };
  if (cursor < template.length) root.push({ kind: 'text', text: template.slice(cursor) });
  return { nodes: root, names: [...names] };
}

function renderNodes(nodes: readonly Node[], values: Record<string, string>): string {
  let text = '';
  for (const node of nodes) {
    if (node.kind === 'text') text += node.text;
    else if (node.kind === 'value') text += values[node.name] ?? '';
    else {
      const given = (values[node.name] ?? '') !== '';
      if (given !== node.inverted) text += renderNodes(node.children, values);
    }
  }
  return text;
}

/**
 * The template with its placeholders and sections rendered; a value that is missing is empty. A
 * template that does not parse (another generator's) still renders its plain placeholders.
 */
export function renderPromptTemplate(template: string, values: Record<string, string>): string {
  const parsed = parsePromptTemplate(template);
  if ('problem' in parsed)
    return template.replace(TAG, (whole, sigil: string, name: string) => (sigil === '' ? (values[name] ?? '') : whole));
  return renderNodes(parsed.nodes, values);
}

// A tool's arguments as form fields made from its inputSchema: enum values as choices, booleans as
// check boxes, numbers with their ranges, defaults filled in, and the values a build precomputed
// offered as choices (a select when nothing else is answered, else a list that still takes other
// values), with a hint only where it says something true about what is precomputed. Anything else (objects, arrays, `$ref`, unions) is a JSON text field: the page never
// follows a `$ref`, so a schema that refers to itself cannot loop.
import { isObject, type JsonObject } from '../core/tree/json-object.js';
import { clip, element, uniqueId } from './dom.js';

/** Reads the form back: the arguments, or what is wrong with a field. */
export type ReadArguments = () => { args: JsonObject } | { problem: string; field: HTMLElement };

export interface ToolFacts {
  /** Parameters whose values the build enumerated (every listed value precomputed). */
  enumerated: readonly string[];
  /** Whether the tree records what it enumerated (else nothing is marked). */
  recordsEnumerated: boolean;
  /** Each parameter's values from the tree's completions.json (precomputed ones when enumerated). */
  values: Readonly<Record<string, readonly string[]>>;
  /** Whether the tree publishes a completions.json (else enumerated values cannot be listed). */
  hasCompletions: boolean;
  /** Whether a call the tree does not hold may run the script live (else only listed values answer). */
  live: boolean;
  /** Call files the build wrote for this tool. */
  precomputed: number;
}

/** What the hint under a field says about precomputed answers, or undefined when nothing is true to say. */
function precomputedHint(facts: ToolFacts, name: string, property: JsonObject, required: boolean): string | undefined {
  if (!facts.recordsEnumerated) return undefined;
  const listed = facts.values[name];
  if (facts.enumerated.includes(name)) {
    // Every listed enum value and both booleans are precomputed: the choices say it already.
    if (Array.isArray(property.enum) || property.type === 'boolean') return undefined;
    if (listed?.length)
      return facts.live
        ? `Precomputed for the ${listed.length} values in the list; other values are answered live.`
        : undefined;
    return facts.hasCompletions
      ? 'Precomputed for the values the project lists.'
      : 'Precomputed for the values the project lists (this tree publishes no completions.json, so the page cannot list them).';
  }
  if ('default' in property) return `Precomputed only with the default (${label(property.default)}).`;
  if (required || facts.precomputed === 0) return 'Not precomputed: every value is answered live.';
  return 'Not precomputed: leave it empty for a precomputed answer.';
}

const DESCRIPTION_LIMIT = 2000;

function label(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Appends one field per parameter to `form`; returns the function that reads them. */
export function buildSchemaFields(form: HTMLElement, schema: JsonObject, facts: ToolFacts): ReadArguments {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = new Set(
    Array.isArray(schema.required) ? schema.required.filter((name) => typeof name === 'string') : [],
  );
  const readers: (() => { value?: unknown; skip?: true } | { problem: string; field: HTMLElement })[] = [];
  const names = Object.keys(properties);
  for (const name of names) {
    const property = isObject(properties[name]) ? (properties[name] as JsonObject) : {};
    const id = uniqueId('field');
    const hintId = uniqueId('hint');
    const hasDefault = 'default' in property;
    const isRequired = required.has(name);
    const enumerated = facts.recordsEnumerated && facts.enumerated.includes(name);
    const row = element('div', { class: 'field' });
    const hints: string[] = [];
    if (typeof property.description === 'string') hints.push(clip(property.description, DESCRIPTION_LIMIT));
    const precomputed = precomputedHint(facts, name, property, isRequired);
    if (precomputed) hints.push(precomputed);
    const listed = facts.values[name] ?? [];
    const title = element('label', { for: id }, element('code', {}, name), isRequired ? ' (required)' : '');
    let control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
    let read: () => { value?: unknown; skip?: true } | { problem: string; field: HTMLElement };
    const type = property.type;
    if (Array.isArray(property.enum) && property.enum.length > 0) {
      const select = element('select', { id });
      if (!isRequired && !hasDefault) select.append(element('option', { value: '' }, '(not set)'));
      property.enum.forEach((value, index) => {
        const option = element('option', { value: String(index) }, label(value), enumerated ? ' ✓ precomputed' : '');
        if (hasDefault && JSON.stringify(value) === JSON.stringify(property.default)) option.selected = true;
        select.append(option);
      });
      const values = property.enum;
      control = select;
      read = () => (select.value === '' ? { skip: true } : { value: values[Number(select.value)] });
    } else if (type === 'boolean') {
      const box = element('input', { id, type: 'checkbox' });
      box.checked = property.default === true;
      control = box;
      read = () => (box.checked || isRequired || hasDefault ? { value: box.checked } : { skip: true });
    } else if (type === 'integer' || type === 'number') {
      const input = element('input', {
        id,
        type: 'number',
        step: type === 'integer' ? '1' : 'any',
        min: typeof property.minimum === 'number' ? String(property.minimum) : undefined,
        max: typeof property.maximum === 'number' ? String(property.maximum) : undefined,
      });
      if (typeof property.default === 'number') input.value = String(property.default);
      if (listed.length > 0) {
        const listId = uniqueId('values');
        input.setAttribute('list', listId);
        row.append(element('datalist', { id: listId }, ...listed.map((value) => element('option', { value }))));
      }
      const range = [
        typeof property.minimum === 'number' ? `from ${property.minimum}` : '',
        typeof property.maximum === 'number' ? `to ${property.maximum}` : '',
      ].filter(Boolean);
      if (range.length) hints.push(`A${type === 'integer' ? 'n integer' : ' number'} ${range.join(' ')}.`);
      control = input;
      read = () => {
        if (input.value === '') return isRequired ? { problem: `${name} is required`, field: input } : { skip: true };
        const value = Number(input.value);
        return Number.isFinite(value) ? { value } : { problem: `${name} must be a number`, field: input };
      };
    } else if (type === 'string' && enumerated && listed.length > 0 && !facts.live) {
      // Nothing but the listed values is answered: a choice among them.
      const select = element('select', { id });
      if (!isRequired && !hasDefault) select.append(element('option', { value: '' }, '(not set)'));
      for (const value of listed) select.append(element('option', { value }, value));
      if (typeof property.default === 'string') select.value = property.default;
      control = select;
      read = () => (select.value === '' ? { skip: true } : { value: select.value });
    } else if (type === 'string') {
      const input = element('input', { id, type: 'text', autocomplete: 'off', spellcheck: 'false' });
      if (typeof property.default === 'string') input.value = property.default;
      if (listed.length > 0) {
        const listId = uniqueId('values');
        input.setAttribute('list', listId);
        row.append(element('datalist', { id: listId }, ...listed.map((value) => element('option', { value }))));
      }
      control = input;
      read = () =>
        input.value !== ''
          ? { value: input.value }
          : isRequired
            ? { problem: `${name} is required`, field: input }
            : { skip: true };
    } else {
      const area = element('textarea', { id, rows: '2', spellcheck: 'false' });
      if (hasDefault) area.value = JSON.stringify(property.default);
      hints.push('JSON.');
      control = area;
      read = () => {
        if (area.value.trim() === '') return { skip: true };
        try {
          return { value: JSON.parse(area.value) as unknown };
        } catch {
          return { problem: `${name} is not valid JSON`, field: area };
        }
      };
    }
    if (isRequired) control.setAttribute('aria-required', 'true');
    if (hints.length) control.setAttribute('aria-describedby', hintId);
    row.prepend(title, control);
    if (hints.length) row.append(element('div', { class: 'hint', id: hintId }, hints.join(' · ')));
    form.append(row);
    readers.push(read);
  }
  return () => {
    const args: JsonObject = {};
    for (const [index, read] of readers.entries()) {
      const outcome = read();
      if ('problem' in outcome) return outcome;
      if (!outcome.skip) args[names[index] as string] = outcome.value as JsonObject[string];
    }
    return { args };
  };
}

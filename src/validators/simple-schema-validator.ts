// A data-only validator for the input schemas most tools declare: an object of flat, typed
// properties (type, enum, bounds, lengths), `required` and `additionalProperties: false`. It needs
// no code generation and no library, so the first tools/call of a new server does not wait for ajv
// to load and compile. Anything outside that subset returns undefined and the host's compiler
// (ajv on Node) takes the schema, so the subset can only be narrower, never different: its
// messages, and their order, are ajv's under the options of src/shared/ajv-validator.ts
// (allErrors; test/unit/simple-schema-validator.test.ts holds the two together).
import type { Validator } from './validator.js';

type Leaf = {
  type?: 'string' | 'number' | 'integer' | 'boolean' | 'null';
  enum?: readonly (string | number | boolean | null)[];
  maximum?: number;
  minimum?: number;
  exclusiveMaximum?: number;
  exclusiveMinimum?: number;
  maxLength?: number;
  minLength?: number;
};

/** Keywords that only describe: ajv checks their own shape against the meta-schema, nothing else. */
const ANNOTATIONS: Record<string, (value: unknown) => boolean> = {
  title: (value) => typeof value === 'string',
  description: (value) => typeof value === 'string',
  $comment: (value) => typeof value === 'string',
  default: () => true,
  examples: (value) => Array.isArray(value),
  readOnly: (value) => typeof value === 'boolean',
  writeOnly: (value) => typeof value === 'boolean',
};

const LEAF_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null']);
const NUMBER_BOUNDS = ['maximum', 'minimum', 'exclusiveMaximum', 'exclusiveMinimum'] as const;
const LENGTH_BOUNDS = ['maxLength', 'minLength'] as const;
/** ajv's comparison words, in the order it checks the keywords. */
const COMPARISON: Record<(typeof NUMBER_BOUNDS)[number], string> = {
  maximum: '<=',
  minimum: '>=',
  exclusiveMaximum: '<',
  exclusiveMinimum: '>',
};

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isPrimitive(value: unknown): value is string | number | boolean | null {
  return value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

function allDifferent(values: readonly unknown[]): boolean {
  return new Set(values).size === values.length;
}

/** A property's schema as a Leaf, or undefined when it uses anything this validator does not do. */
function readLeaf(schema: unknown): Leaf | undefined {
  if (!isPlainObject(schema)) return undefined;
  for (const [keyword, value] of Object.entries(schema)) {
    const annotation = ANNOTATIONS[keyword];
    if (annotation) {
      if (!annotation(value)) return undefined;
    } else if (keyword === 'type') {
      if (typeof value !== 'string' || !LEAF_TYPES.has(value)) return undefined;
    } else if (keyword === 'enum') {
      if (!Array.isArray(value) || value.length === 0 || !value.every(isPrimitive) || !allDifferent(value))
        return undefined;
    } else if ((NUMBER_BOUNDS as readonly string[]).includes(keyword)) {
      if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
    } else if ((LENGTH_BOUNDS as readonly string[]).includes(keyword)) {
      if (!Number.isSafeInteger(value) || (value as number) < 0) return undefined;
    } else return undefined;
  }
  return schema as Leaf;
}

/** The number of Unicode code points, as ajv counts a string's length. */
function codePointLength(text: string): number {
  let length = 0;
  for (const _ of text) length += 1;
  return length;
}

function hasType(value: unknown, type: NonNullable<Leaf['type']>): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number';
    case 'integer':
      return typeof value === 'number' && !((value as number) % 1) && !Number.isNaN(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
  }
}

function checkLeaf(leaf: Leaf, value: unknown, where: string, problems: string[]): void {
  if (leaf.type !== undefined && !hasType(value, leaf.type)) problems.push(`${where} must be ${leaf.type}`);
  if (leaf.enum !== undefined && !leaf.enum.includes(value as never))
    problems.push(`${where} must be one of ${JSON.stringify(leaf.enum)}`);
  if (typeof value === 'number') {
    for (const keyword of NUMBER_BOUNDS) {
      const limit = leaf[keyword];
      if (limit === undefined) continue;
      const within =
        keyword === 'maximum'
          ? value <= limit
          : keyword === 'minimum'
            ? value >= limit
            : keyword === 'exclusiveMaximum'
              ? value < limit
              : value > limit;
      if (!within) problems.push(`${where} must be ${COMPARISON[keyword]} ${limit}`);
    }
  } else if (typeof value === 'string' && (leaf.maxLength !== undefined || leaf.minLength !== undefined)) {
    const length = codePointLength(value);
    if (leaf.maxLength !== undefined && length > leaf.maxLength)
      problems.push(`${where} must NOT have more than ${leaf.maxLength} characters`);
    if (leaf.minLength !== undefined && length < leaf.minLength)
      problems.push(`${where} must NOT have fewer than ${leaf.minLength} characters`);
  }
}

/** `arguments.a`, as ajv's messages (src/shared/ajv-validator.ts) name a property. */
function placeOf(rootName: string, key: string): string {
  return `${rootName}.${key}`;
}

/**
 * A Validator for one value whose `schema` is a leaf this module checks exactly as ajv would (a
 * parameter's schema, for the values a value list gives it); undefined otherwise.
 */
export function compileSimpleLeafValidator(schema: object, rootName: string): Validator | undefined {
  const leaf = readLeaf(schema);
  if (leaf === undefined) return undefined;
  return (data: unknown, name = rootName) => {
    const problems: string[] = [];
    checkLeaf(leaf, data, name, problems);
    return problems;
  };
}

/**
 * A Validator for `schema` when it is a flat object schema this module checks exactly as ajv
 * would; undefined otherwise (the caller compiles it with its full compiler).
 */
export function compileSimpleValidator(schema: object, rootName: string): Validator | undefined {
  if (!isPlainObject(schema) || schema.type !== 'object') return undefined;
  let properties: [string, Leaf][] = [];
  let required: string[] = [];
  let closed = false;
  for (const [keyword, value] of Object.entries(schema)) {
    const annotation = ANNOTATIONS[keyword];
    if (annotation) {
      if (!annotation(value)) return undefined;
    } else if (keyword === 'properties') {
      if (!isPlainObject(value)) return undefined;
      properties = [];
      for (const [key, propertySchema] of Object.entries(value)) {
        const leaf = readLeaf(propertySchema);
        if (!leaf) return undefined;
        properties.push([key, leaf]);
      }
    } else if (keyword === 'required') {
      if (!Array.isArray(value) || !value.every((name) => typeof name === 'string') || !allDifferent(value))
        return undefined;
      required = value as string[];
    } else if (keyword === 'additionalProperties') {
      if (typeof value !== 'boolean') return undefined;
      closed = !value;
    } else if (keyword !== 'type') return undefined;
  }
  const declared = new Set(properties.map(([key]) => key));

  return (data: unknown, name = rootName) => {
    if (!isPlainObject(data)) return [`${name} must be object`];
    const problems: string[] = [];
    // ajv's order: required, then additionalProperties, then each property in the schema's order.
    // It reads properties as `data[key] !== undefined`, inherited ones included: so does this.
    const record = data as Record<string, unknown>;
    const what = name === 'arguments' ? 'argument' : 'field';
    for (const key of required) if (record[key] === undefined) problems.push(`missing required ${what} "${key}"`);
    if (closed) for (const key in record) if (!declared.has(key)) problems.push(`${name}: unknown ${what} "${key}"`);
    for (const [key, leaf] of properties) {
      const value = record[key];
      if (value !== undefined) checkLeaf(leaf, value, placeOf(name, key), problems);
    }
    return problems;
  };
}

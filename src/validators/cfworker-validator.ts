// The validator port on the edge: workerd refuses code generation (`new Function`), so ajv cannot
// compile schemas there; @cfworker/json-schema interprets them instead (the one module that
// imports it). Its errors are rewritten into the lines ajv produces on Node (src/shared/ajv-validator.ts:
// `arguments.x must be integer`, `missing required argument "y"`), so one request gets the same
// answer from `serve` and from the worker. test/edge/json-schema-validator.test.ts holds both to it.
import { Validator as SchemaInterpreter, type OutputUnit, type Schema, type SchemaDraft } from '@cfworker/json-schema';
import type { CompileValidator, Validator } from './validator.js';

/** Errors that only say "something below me failed": ajv reports the failure below, not these. */
const CONTAINER_KEYWORDS = new Set([
  'properties',
  'patternProperties',
  'additionalItems',
  'items',
  'prefixItems',
  'unevaluatedProperties',
  'unevaluatedItems',
  'allOf',
  '$ref',
  '$recursiveRef',
  'dependentSchemas',
  'dependencies',
  'propertyNames',
  'then',
  'else',
]);

/** The draft a schema names in `$schema`; MCP's default (2020-12) otherwise. */
function draftOf(schema: object): SchemaDraft {
  const declared = (schema as { $schema?: unknown }).$schema;
  if (typeof declared !== 'string') return '2020-12';
  if (declared.includes('draft-04')) return '4';
  if (declared.includes('draft-07') || declared.includes('draft-06')) return '7';
  if (declared.includes('2019-09')) return '2019-09';
  return '2020-12';
}

/** `#/a/b~1c` → ['a', 'b/c']. */
function pointerSegments(pointer: string): string[] {
  const path = pointer.replace(/^#/, '');
  if (path === '') return [];
  return path
    .split('/')
    .slice(1)
    .map((part) => decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The schema value a keyword error points at (`#/properties/a/minimum` → 1); undefined through a `$ref`. */
function keywordValue(schema: unknown, keywordLocation: string): unknown {
  let node = schema;
  for (const segment of pointerSegments(keywordLocation)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

/** `arguments.a.b`, as ajv's messages name a place (its instancePath with the root's name in front). */
function placeName(rootName: string, instanceLocation: string): string {
  return `${rootName}${pointerSegments(instanceLocation)
    .map((segment) => `.${segment}`)
    .join('')}`;
}

/** The property name in cfworker's `Property "x" does not match …` and `… required property "x".` (names may hold quotes). */
function quotedProperty(message: string): string {
  return (/^Property "(.*)" does not match/s.exec(message) ?? /required property "(.*)"\.$/s.exec(message))?.[1] ?? '';
}

/** A property's place below `parent`, encoded as cfworker encodes instance locations. */
function childPlace(parent: string, key: string): string {
  return `${parent}/${encodeURI(key.replace(/~/g, '~0').replace(/\//g, '~1')).replace(/#/g, '%23')}`;
}

/** ajv's wording for the keywords that compare a number with the schema's. */
const COMPARISONS: Record<string, string | undefined> = {
  minimum: '>=',
  maximum: '<=',
  exclusiveMinimum: '>',
  exclusiveMaximum: '<',
  multipleOf: 'multiple of',
};

/** ajv's wording for the keywords that bound how many characters, items or properties there are. */
const COUNT_LIMITS: Record<string, { than: 'fewer' | 'more'; unit: string } | undefined> = {
  minLength: { than: 'fewer', unit: 'characters' },
  maxLength: { than: 'more', unit: 'characters' },
  minItems: { than: 'fewer', unit: 'items' },
  maxItems: { than: 'more', unit: 'items' },
  minProperties: { than: 'fewer', unit: 'properties' },
  maxProperties: { than: 'more', unit: 'properties' },
};

function describeUnit(unit: OutputUnit, schema: unknown, rootName: string): string | undefined {
  const where = placeName(rootName, unit.instanceLocation);
  const noun = rootName === 'arguments' ? 'argument' : 'field';
  const value = keywordValue(schema, unit.keywordLocation);
  const limit = typeof value === 'number' ? value : Number(/(-?[\d.e+-]+)\)?\.?$/.exec(unit.error)?.[1]);
  const comparison = COMPARISONS[unit.keyword];
  if (comparison) return `${where} must be ${comparison} ${limit}`;
  const count = COUNT_LIMITS[unit.keyword];
  if (count) return `${where} must NOT have ${count.than} than ${limit} ${count.unit}`;
  switch (unit.keyword) {
    case 'required':
      return `${where === rootName ? '' : `${where}: `}missing required ${noun} "${quotedProperty(unit.error)}"`;
    case 'additionalProperties':
      // Only a `false` schema makes a property unknown; other failures are reported where they happen.
      return value === false ? `${where}: unknown ${noun} "${quotedProperty(unit.error)}"` : undefined;
    case 'type': {
      const types = Array.isArray(value)
        ? value.join(',')
        : String(value ?? /Expected "(.*)"\.$/.exec(unit.error)?.[1]?.replace(/", "/g, ','));
      return `${where} must be ${types}`;
    }
    case 'enum':
      return `${where} must be one of ${JSON.stringify(Array.isArray(value) ? value : [])}`;
    case 'const':
      return `${where} must be equal to constant`;
    case 'uniqueItems':
      return `${where} must NOT have duplicate items`;
    case 'pattern':
      return `${where} must match pattern "${String(value)}"`;
    case 'format':
      return `${where} must match format "${String(value)}"`;
    case 'anyOf':
      return `${where} must match a schema in anyOf`;
    case 'oneOf':
      return `${where} must match exactly one schema in oneOf`;
    case 'not':
      return `${where} must NOT be valid`;
    case 'if':
      return `${where} must match "${/"(then|else)"/.exec(unit.error)?.[1] ?? 'then'}" schema`;
    case 'false':
      return `${where} boolean schema is false`;
    default:
      return CONTAINER_KEYWORDS.has(unit.keyword) ? undefined : `${where} is invalid`;
  }
}

/** cfworker's units → ajv-style lines: containers dropped, `false` under a reported unknown property dropped. */
function describeUnits(units: readonly OutputUnit[], schema: unknown, rootName: string): string[] {
  const lines: string[] = [];
  const unknownPlaces = new Set<string>();
  for (const unit of units) {
    if (unit.keyword === 'false' && unknownPlaces.has(unit.instanceLocation)) continue;
    const line = describeUnit(unit, schema, rootName);
    if (line === undefined) continue;
    if (unit.keyword === 'additionalProperties')
      unknownPlaces.add(childPlace(unit.instanceLocation, quotedProperty(unit.error)));
    if (!lines.includes(line)) lines.push(line);
  }
  return lines;
}

/**
 * Compiles a schema for the core's validator port. A schema the interpreter cannot use (an
 * unresolvable `$ref`, a bad pattern) validates nothing, as a schema ajv refuses does on Node.
 */
export const compileEdgeValidator: CompileValidator = (schema: object, rootName: string): Validator => {
  if (schema === null || typeof schema !== 'object') throw new Error('invalid JSON Schema: not an object');
  let interpreter: SchemaInterpreter;
  try {
    // shortCircuit off: every problem is listed, as ajv's allErrors does.
    interpreter = new SchemaInterpreter(schema as Schema, draftOf(schema), false);
  } catch (error) {
    throw new Error(`invalid JSON Schema: ${(error as Error).message}`);
  }
  return (data: unknown, name = rootName) => {
    try {
      const outcome = interpreter.validate(data);
      return outcome.valid ? [] : describeUnits(outcome.errors, schema, name);
    } catch {
      return [];
    }
  };
};

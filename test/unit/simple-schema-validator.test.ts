// The data-only validator of flat tool input schemas: it takes only schemas it checks exactly as
// ajv does, and then says the same lines in the same order, for every value tried here.
import { describe, expect, it } from 'vitest';
import { compileValidator } from '../../src/shared/ajv-validator.js';
import { compileSimpleLeafValidator, compileSimpleValidator } from '../../src/validators/simple-schema-validator.js';

const SCHEMAS: object[] = [
  { type: 'object' },
  { type: 'object', properties: {} },
  { type: 'object', properties: { n: { type: 'integer', minimum: 0 } }, required: ['n'] },
  {
    type: 'object',
    description: 'all of it',
    properties: {
      name: { type: 'string', minLength: 2, maxLength: 5, description: 'who' },
      age: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 150, maximum: 120, minimum: 1 },
      level: { type: 'integer', enum: [1, 2, 3], default: 1 },
      mode: { enum: ['fast', 'slow', null, true] },
      flag: { type: 'boolean' },
      nothing: { type: 'null' },
      'a/b~c': { type: 'string' },
      constructor: { type: 'string' },
      free: {},
    },
    required: ['name', 'mode', 'missing'],
    additionalProperties: false,
  },
  { type: 'object', properties: { x: { type: 'string' } }, additionalProperties: true, title: 'open' },
];

const VALUES: unknown[] = [
  null,
  [],
  'text',
  7,
  {},
  { n: 3 },
  { n: -1 },
  { n: 2.5 },
  { n: '3' },
  { n: null },
  { name: 'Al', mode: 'fast' },
  { name: 'A', mode: 'medium', level: 4, age: 0, flag: 'yes', nothing: 0, extra: 1, other: [] },
  { name: 'toolongname', mode: null, level: 2.5, age: 200, 'a/b~c': 3 },
  { name: '😀😀', mode: true, age: 121, level: '1' },
  { name: '😀', mode: false, age: 150, constructor: 'x' },
  { name: 12, mode: 'slow', age: Number.NaN, free: { any: 'thing' } },
  JSON.parse('{"__proto__": 1, "name": "abc", "mode": "fast"}'),
  { x: 1, y: 2 },
];

describe('compileSimpleValidator', () => {
  it.each(SCHEMAS.map((schema) => [JSON.stringify(schema), schema]))('agrees with ajv on %s', (_, schema) => {
    const simple = compileSimpleValidator(schema, 'arguments');
    const ajv = compileValidator(schema, 'arguments');
    expect(simple).toBeDefined();
    for (const value of VALUES) {
      expect(simple!(value), JSON.stringify(value)).toEqual(ajv(value));
      expect(simple!(value, 'output'), JSON.stringify(value)).toEqual(ajv(value, 'output'));
    }
  });

  it('says every problem, in the order ajv says them', () => {
    const schema = {
      type: 'object',
      properties: { name: { type: 'string', minLength: 2 }, level: { type: 'integer', enum: [1, 2], minimum: 3 } },
      required: ['name', 'z'],
      additionalProperties: false,
    };
    expect(compileSimpleValidator(schema, 'arguments')!({ name: 'A', level: 2.5, extra: 1 })).toEqual([
      'missing required argument "z"',
      'arguments: unknown argument "extra"',
      'arguments.name must NOT have fewer than 2 characters',
      'arguments.level must be integer',
      'arguments.level must be one of [1,2]',
      'arguments.level must be >= 3',
    ]);
  });

  it('leaves every other schema to the full compiler', () => {
    for (const schema of [
      { properties: { n: { type: 'integer' } } },
      { type: 'object', $schema: 'https://json-schema.org/draft/2020-12/schema' },
      { type: 'object', properties: { n: { type: ['integer', 'null'] } } },
      { type: 'object', properties: { s: { type: 'string', pattern: '^a' } } },
      { type: 'object', properties: { s: { type: 'string', format: 'uri' } } },
      { type: 'object', properties: { o: { type: 'object', properties: {} } } },
      { type: 'object', properties: { a: { type: 'array', items: { type: 'string' } } } },
      { type: 'object', properties: { n: { type: 'integer', minimum: '1' } } },
      { type: 'object', properties: { n: { enum: [] } } },
      { type: 'object', properties: { n: { enum: [{ a: 1 }] } } },
      { type: 'object', properties: { n: true } },
      { type: 'object', required: ['a', 'a'] },
      { type: 'object', additionalProperties: { type: 'string' } },
      { type: 'object', $defs: {} },
      { type: 'object', properties: { n: { $ref: '#/$defs/n' } } },
    ])
      expect(compileSimpleValidator(schema, 'arguments'), JSON.stringify(schema)).toBeUndefined();
  });
});

describe('compileSimpleLeafValidator', () => {
  // A value list's values are checked against the parameter's own schema, named by the parameter.
  const leaves = Object.values((SCHEMAS[3] as { properties: Record<string, object> }).properties).concat([
    { type: 'integer', minimum: 0 },
    { type: 'boolean' },
    {},
  ]);
  const values = [null, 'text', '', 'Al', '😀😀', 0, -1, 2.5, 7, 200, Number.NaN, true, false, [], {}];

  it.each(leaves.map((leaf) => [JSON.stringify(leaf), leaf]))('agrees with ajv on %s', (_, leaf) => {
    const simple = compileSimpleLeafValidator(leaf, 'word');
    const ajv = compileValidator(leaf, 'word');
    expect(simple).toBeDefined();
    for (const value of values) expect(simple!(value), JSON.stringify(value)).toEqual(ajv(value));
  });

  it('leaves every other schema to the full compiler', () => {
    for (const leaf of [
      { type: ['integer', 'null'] },
      { type: 'string', pattern: '^a' },
      { type: 'object', properties: {} },
      { type: 'array' },
      { enum: [] },
      { type: 'integer', minimum: '1' },
    ])
      expect(compileSimpleLeafValidator(leaf, 'word'), JSON.stringify(leaf)).toBeUndefined();
  });
});

// The edge validator (no code generation) must word every problem exactly as ajv does on Node, so
// a bad tools/call gets the same isError text from `staticmcp serve` and from the deployed worker.
import { describe, expect, it } from 'vitest';
import { compileEdgeValidator } from '../../src/validators/cfworker-validator.js';
import { compileValidator } from '../../src/shared/ajv-validator.js';

const toolSchema = {
  type: 'object',
  properties: {
    language: { type: 'string', enum: ['en', 'fr', 'de'] },
    count: { type: 'integer', minimum: 1, maximum: 10 },
    ratio: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1, multipleOf: 0.25 },
    name: { type: 'string', minLength: 2, maxLength: 5, pattern: '^[a-z]+$' },
    tags: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 2 },
    either: { type: ['string', 'number'] },
    fixed: { const: 'x' },
    nested: {
      type: 'object',
      properties: { deep: { type: 'boolean' } },
      required: ['deep'],
      additionalProperties: false,
    },
    'odd/name~': { type: 'integer' },
  },
  required: ['language', 'count'],
  additionalProperties: false,
};

const cases: [string, unknown][] = [
  ['valid', { language: 'en', count: 3 }],
  ['missing required', {}],
  ['one missing', { language: 'fr' }],
  ['wrong types', { language: 3, count: 'two' }],
  ['fraction for integer', { language: 'en', count: 2.5 }],
  ['enum', { language: 'es', count: 1 }],
  ['bounds', { language: 'en', count: 11, ratio: 1 }],
  ['exclusive low and multiple', { language: 'en', count: 0, ratio: 0.1 }],
  ['string length and pattern', { language: 'en', count: 1, name: 'ABCDEFG' }],
  ['short', { language: 'en', count: 1, name: 'a' }],
  ['array', { language: 'en', count: 1, tags: [] }],
  ['array items', { language: 'en', count: 1, tags: ['a', 2, 'c'] }],
  ['union type', { language: 'en', count: 1, either: true }],
  ['const', { language: 'en', count: 1, fixed: 'y' }],
  ['unknown argument', { language: 'en', count: 1, colour: 'red' }],
  ['nested', { language: 'en', count: 1, nested: { extra: 1 } }],
  ['odd property name', { language: 'en', count: 1, 'odd/name~': 'no' }],
  ['not an object', 'hello'],
];

describe('edge validator messages', () => {
  const ajv = compileValidator(toolSchema, 'arguments');
  const edge = compileEdgeValidator(toolSchema, 'arguments');
  for (const [name, value] of cases) {
    it(`match ajv: ${name}`, () => {
      expect(edge(value)).toEqual(ajv(value));
    });
  }

  it('uses the root name it is given', () => {
    expect(compileEdgeValidator({ type: 'object', required: ['a'] }, 'output')({})).toEqual([
      'missing required field "a"',
    ]);
  });

  it('validates nothing, and never throws, when the schema cannot be used', () => {
    const broken = compileEdgeValidator({ type: 'object', properties: { a: { $ref: '#/nowhere' } } }, 'arguments');
    expect(broken({ a: 1 })).toEqual([]);
  });
});

// Parameter domains → argument sets (pure): which values each parameter takes at build time, and
// the cartesian product counted before it is expanded.
import { describe, expect, it } from 'vitest';
import { countArgumentSets, expandArgumentSets } from '../../src/enumerate/expand-argument-sets.js';
import { findParameterDomain, type DomainInput, type ParameterSchema } from '../../src/enumerate/parameter-domains.js';

function input(properties: Record<string, ParameterSchema>, fields: Partial<DomainInput> = {}): DomainInput {
  return { properties, required: Object.keys(properties), valueLists: {}, maxIntegerRange: 1000, ...fields };
}

describe('findParameterDomain', () => {
  it.each<[string, ParameterSchema, Partial<DomainInput>, unknown]>([
    ['an enum', { type: 'string', enum: ['en', 'fr'] }, {}, { kind: 'enumerated', values: ['en', 'fr'] }],
    ['a boolean', { type: 'boolean' }, {}, { kind: 'enumerated', values: [false, true] }],
    [
      'a small integer range',
      { type: 'integer', minimum: -1, maximum: 2 },
      {},
      { kind: 'enumerated', values: [-1, 0, 1, 2] },
    ],
    ['a one-value integer range', { type: 'integer', minimum: 7, maximum: 7 }, {}, { kind: 'enumerated', values: [7] }],
    [
      'a value list (over any type)',
      { type: 'string' },
      { valueLists: { p: ['a', 'b'] } },
      { kind: 'enumerated', values: ['a', 'b'] },
    ],
    [
      'a value list that overrides an enum',
      { type: 'string', enum: ['a', 'b', 'c'] },
      { valueLists: { p: ['c'] } },
      { kind: 'enumerated', values: ['c'] },
    ],
    ['an optional string', { type: 'string', default: 'x' }, { required: [] }, { kind: 'default', values: ['x'] }],
    [
      'an optional range over the limit',
      { type: 'integer', minimum: 0, maximum: 5000, default: 3 },
      { required: [] },
      { kind: 'default', values: [3] },
    ],
    ['an optional parameter without default', { type: 'number' }, { required: [] }, { kind: 'omitted' }],
  ])('enumerates %s', (_, schema, fields, expected) => {
    expect(findParameterDomain('p', schema, input({ p: schema }, fields))).toEqual(expected);
  });

  it.each<[string, ParameterSchema, Partial<DomainInput>]>([
    ['a required string', { type: 'string' }, {}],
    ['a required float', { type: 'number', minimum: 0, maximum: 1 }, {}],
    ['a required integer with one bound', { type: 'integer', minimum: 0 }, {}],
    ['a required integer range over the limit', { type: 'integer', minimum: 1, maximum: 1001 }, {}],
    ['a required any', {}, {}],
  ])('makes the tool live-only for %s, saying which parameter and what to do', (_, schema, fields) => {
    expect(findParameterDomain('p', schema, input({ p: schema }, fields))).toEqual({
      kind: 'infinite',
      reason:
        'parameter "p" is required and has no finite domain (give it a value list under tools.<tool>.values in staticmcp.json)',
    });
  });

  it('respects the configured integer range limit exactly', () => {
    const schema = { type: 'integer', minimum: 1, maximum: 10 };
    expect(findParameterDomain('p', schema, input({ p: schema }, { maxIntegerRange: 10 })).kind).toBe('enumerated');
    expect(findParameterDomain('p', schema, input({ p: schema }, { maxIntegerRange: 9 })).kind).toBe('infinite');
  });
});

describe('expandArgumentSets', () => {
  it('expands in declaration order, the first parameter varying slowest, defaults applied', () => {
    const result = expandArgumentSets(
      input(
        {
          lang: { enum: ['en', 'fr'] },
          loud: { type: 'boolean' },
          name: { type: 'string', default: 'you' },
          extra: { type: 'number' },
        },
        { required: ['lang'] },
      ),
      100,
    );
    expect(result.precomputable && result.count).toBe(4);
    expect(result.precomputable && [...result.argumentSets()]).toEqual([
      { lang: 'en', loud: false, name: 'you' },
      { lang: 'en', loud: true, name: 'you' },
      { lang: 'fr', loud: false, name: 'you' },
      { lang: 'fr', loud: true, name: 'you' },
    ]);
    expect(result.enumerated).toEqual(['lang', 'loud']);
  });

  it('gives a tool without parameters exactly one empty argument set', () => {
    const result = expandArgumentSets(input({}), 10);
    expect(result.precomputable && [...result.argumentSets()]).toEqual([{}]);
  });

  it('gives an empty value list no argument sets at all', () => {
    const result = expandArgumentSets(input({ p: { type: 'string' } }, { valueLists: { p: [] } }), 10);
    expect(result.precomputable && [...result.argumentSets()]).toEqual([]);
    expect(result.enumerated).toEqual(['p']);
  });

  it('refuses a product over the limit from the count alone, before expanding anything', () => {
    const big = { type: 'integer', minimum: 1, maximum: 1000 };
    // 1000^4 = 10^12 sets: expanding them would exhaust memory long before this test ends.
    const result = expandArgumentSets(input({ a: big, b: big, c: big, d: big }), 10_000);
    expect(result).toEqual({
      precomputable: false,
      reason:
        '1,000,000,000,000 argument sets exceed the limit of 10,000 (raise limits.maxCallsPerTool in staticmcp.json, or shorten value lists)',
      enumerated: ['a', 'b', 'c', 'd'],
      count: 1e12,
    });
  });

  it('knows where a set comes in the enumeration, and that a foreign one does not', () => {
    const ten = { type: 'integer', minimum: 1, maximum: 10 };
    const result = expandArgumentSets(input({ a: ten, b: ten }), 100);
    if (!result.precomputable) throw new Error('expected a precomputable enumeration');
    const positions = [...result.argumentSets()].map((args) => result.positionOf(args));
    expect(positions).toEqual(Array.from({ length: 100 }, (_, index) => index));
    expect(result.positionOf({ a: 11, b: 1 })).toBe(-1);
  });

  it('allows a product exactly at the limit', () => {
    const ten = { type: 'integer', minimum: 1, maximum: 10 };
    const result = expandArgumentSets(input({ a: ten, b: ten }), 100);
    expect(result.precomputable && [...result.argumentSets()].length).toBe(100);
    expect(expandArgumentSets(input({ a: ten, b: ten }), 99).precomputable).toBe(false);
  });

  it('reports the infinite parameter rather than a count', () => {
    expect(expandArgumentSets(input({ a: { type: 'boolean' }, b: { type: 'string' } }), 10)).toEqual({
      precomputable: false,
      reason: expect.stringContaining('parameter "b" is required and has no finite domain'),
      enumerated: ['a'],
    });
  });

  it('counts omitted parameters as a factor of one', () => {
    expect(
      countArgumentSets([
        { kind: 'omitted' },
        { kind: 'enumerated', values: [1, 2, 3] },
        { kind: 'default', values: ['x'] },
      ]),
    ).toBe(3);
    expect(countArgumentSets([{ kind: 'infinite', reason: '' }])).toBe(Infinity);
  });
});

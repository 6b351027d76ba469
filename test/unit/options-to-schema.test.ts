// Script options (the --help convention) → MCP inputSchema, as DESIGN.md maps them.
import { describe, expect, it } from 'vitest';
import { optionsToInputSchema } from '../../src/script/options-to-schema.js';
import type { ScriptOption } from '../../src/script/read-help.js';

function option(name: string, fields: Partial<ScriptOption>): ScriptOption {
  return { name, required: true, valueType: 'string', ...fields };
}

describe('optionsToInputSchema', () => {
  it('maps every value_type to its JSON Schema type', () => {
    const schema = optionsToInputSchema([
      option('s', { valueType: 'string' }),
      option('i', { valueType: 'integer' }),
      option('f', { valueType: 'float' }),
      option('b', { valueType: 'boolean' }),
      option('a', { valueType: 'any' }),
      option('e', { valueType: { enum: ['x', 'y'] } }),
    ]);
    expect(schema.properties).toEqual({
      s: { type: 'string' },
      i: { type: 'integer' },
      f: { type: 'number' },
      b: { type: 'boolean' },
      a: {},
      e: { type: 'string', enum: ['x', 'y'] },
    });
  });

  it('maps size to minLength/maxLength for strings and minimum/maximum for numbers', () => {
    const schema = optionsToInputSchema([
      option('s', { valueType: 'string', size: { min: 1, max: 80 } }),
      option('i', { valueType: 'integer', size: { min: -5, max: 5 } }),
      option('f', { valueType: 'float', size: { min: 0.5 } }),
      option('g', { valueType: 'float', size: { max: 2.5 } }),
    ]);
    expect(schema.properties).toEqual({
      s: { type: 'string', minLength: 1, maxLength: 80 },
      i: { type: 'integer', minimum: -5, maximum: 5 },
      f: { type: 'number', minimum: 0.5 },
      g: { type: 'number', maximum: 2.5 },
    });
  });

  it('keeps description and the default of optional options, and drops the default of required ones', () => {
    const schema = optionsToInputSchema([
      option('lang', {
        description: 'Language',
        required: false,
        valueType: { enum: ['en', 'fr'] },
        defaultValue: 'en',
      }),
      option('name', { description: 'Who', required: true, defaultValue: 'ignored' }),
      option('loud', { required: false, valueType: 'boolean', defaultValue: false }),
    ]);
    expect(schema).toEqual({
      type: 'object',
      properties: {
        lang: { type: 'string', enum: ['en', 'fr'], description: 'Language', default: 'en' },
        name: { type: 'string', description: 'Who' },
        loud: { type: 'boolean', default: false },
      },
      required: ['name'],
    });
  });

  it('lists properties and required names in declaration order, and omits required when nothing is', () => {
    const schema = optionsToInputSchema([
      option('zeta', {}),
      option('alpha', { required: false, defaultValue: 'a' }),
      option('mid', {}),
    ]);
    expect(Object.keys(schema.properties!)).toEqual(['zeta', 'alpha', 'mid']);
    expect(schema.required).toEqual(['zeta', 'mid']);
    expect(optionsToInputSchema([option('x', { required: false, defaultValue: 'x' })])).toEqual({
      type: 'object',
      properties: { x: { type: 'string', default: 'x' } },
    });
    expect(optionsToInputSchema([])).toEqual({ type: 'object', properties: {} });
  });
});

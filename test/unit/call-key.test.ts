// Keys of precomputed calls: the file inside a tree that answers a tool call.
import { describe, expect, it } from 'vitest';
import { applyDefaults, callFilePath, renderArgumentValue } from '../../src/core/tree/call-key.js';

describe('callFilePath', () => {
  it('puts a tool without parameters at tools/<name>.json', () => {
    expect(callFilePath('hello', [], {})).toBe('tools/hello.json');
  });

  it('uses one segment per parameter in declaration order, not key order', () => {
    expect(callFilePath('greet', ['language', 'shout'], { shout: true, language: 'fr' })).toBe(
      'tools/greet/fr/true.json',
    );
    expect(callFilePath('greet', ['shout', 'language'], { shout: true, language: 'fr' })).toBe(
      'tools/greet/true/fr.json',
    );
  });

  it('renders integers in decimal, booleans as words and anything else as canonical JSON', () => {
    expect(callFilePath('t', ['a', 'b', 'c'], { a: -3, b: false, c: 1.5 })).toBe('tools/t/-3/false/1_5.json');
    expect(renderArgumentValue(1.5)).toBe('1.5');
    expect(renderArgumentValue(null)).toBe('null');
    expect(renderArgumentValue({ b: 1, a: [true] })).toBe('{"a":[true],"b":1}');
    expect(callFilePath('t', ['o'], { o: { b: 1, a: 2 } })).toBe('tools/t/__a__2__b__1_.json');
  });

  it('gives an empty value a visible segment, never an empty folder or a file called .json', () => {
    expect(callFilePath('echo', ['value'], { value: '' })).toBe('tools/echo/_30406ea523c53def.json');
    expect(callFilePath('echo', ['a', 'b'], { a: '', b: 'x' })).toBe('tools/echo/_30406ea523c53def/x.json');
    // A value that encodes to nothing but is not empty still gets a name.
    expect(callFilePath('echo', ['value'], { value: '😀' })).toBe('tools/echo/_.json');
  });

  it('shortens long values with the hash of the original value', () => {
    expect(callFilePath('echo', ['value'], { value: 'A'.repeat(250) })).toBe(
      `tools/echo/${'a'.repeat(183)}_6caae0a338faa11c.json`,
    );
  });

  it('encodes path separators and dots, so a value can never leave the tool folder', () => {
    expect(callFilePath('t', ['p'], { p: '../../mcp' })).toBe('tools/t/______mcp.json');
    expect(callFilePath('t', ['p'], { p: 'a/b' })).toBe('tools/t/a_b.json');
  });
});

describe('applyDefaults', () => {
  it('fills missing arguments from the schema defaults, keeping given ones', () => {
    const schema = { properties: { lang: { default: 'en' }, loud: { default: false }, name: {} } };
    expect(applyDefaults(schema, { name: 'Ada' })).toEqual({ name: 'Ada', lang: 'en', loud: false });
    expect(applyDefaults(schema, { lang: 'fr', loud: true })).toEqual({ lang: 'fr', loud: true });
    expect(applyDefaults(undefined, undefined)).toEqual({});
  });
});

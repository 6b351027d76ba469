// A document's stored page made absolute when answered (core/search/document-url.ts): the base a
// GitHub Pages project site needs (publicUrl with a path), what stdio without publicUrl answers,
// and search/fetch results rewritten in both their structured content and their text item, other
// fields (an excerpt) kept.
import { describe, expect, it } from 'vitest';
import {
  documentUrlBase,
  documentViewUrl,
  resolveDocumentUrl,
  resolveResourcePage,
  resolveResultUrls,
} from '../../src/core/search/document-url.js';

describe('document pages made absolute', () => {
  it('resolves against publicUrl (its path kept), else the request origin, else gives ""', () => {
    const view = documentViewUrl('resources/guide/a b.json');
    expect(view).toBe('?doc=resources/guide/a%20b.json');
    expect(resolveDocumentUrl(view, documentUrlBase('https://me.github.io/docs', 'http://127.0.0.1:9'))).toBe(
      'https://me.github.io/docs/?doc=resources/guide/a%20b.json',
    );
    expect(resolveDocumentUrl('guide/', documentUrlBase(undefined, 'http://127.0.0.1:9'))).toBe(
      'http://127.0.0.1:9/guide/',
    );
    expect(resolveDocumentUrl('/guide/', documentUrlBase('https://me.github.io/docs/', undefined))).toBe(
      'https://me.github.io/docs/guide/',
    );
    expect(resolveDocumentUrl(view, documentUrlBase(undefined, undefined))).toBe('');
    expect(resolveDocumentUrl('https://example.org/a', undefined)).toBe('https://example.org/a');
    // Only an http(s) base counts.
    expect(documentUrlBase('javascript:alert(1)', undefined)).toBeUndefined();
  });

  it("escapes in a document's view all that a query needs escaped, and only that", () => {
    expect(documentViewUrl("resources/a(1)!~*'_-.json", 'staticmcp.html')).toBe(
      "staticmcp.html?doc=resources/a(1)!~*'_-.json",
    );
    expect(documentViewUrl('resources/a&b=c#d?e%f+g.json')).toBe('?doc=resources/a%26b%3Dc%23d%3Fe%25f%2Bg.json');
    expect(documentViewUrl('resources/résumé 😀.json')).toBe('?doc=resources/r%C3%A9sum%C3%A9%20%F0%9F%98%80.json');
    // Every character below U+0300 alone and inside a path: what encodeURIComponent makes, `/` kept.
    for (let code = 0; code < 0x300; code += 1) {
      const character = String.fromCharCode(code);
      const escaped = encodeURIComponent(character).replace(/%2F/g, '/');
      expect(documentViewUrl(`resources/x${character}.json`)).toBe(`?doc=resources/x${escaped}.json`);
    }
  });

  it('rewrites a result in both forms, keeping its other fields, and leaves errors alone', () => {
    const structured = { results: [{ id: 'a', title: 'A', url: '?doc=a', excerpt: 'x' }] };
    const result = resolveResultUrls(
      { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured },
      'https://h.example/',
    );
    const expected = { results: [{ id: 'a', title: 'A', url: 'https://h.example/?doc=a', excerpt: 'x' }] };
    expect(result).toEqual({
      content: [{ type: 'text', text: JSON.stringify(expected) }],
      structuredContent: expected,
    });
    const error = { content: [{ type: 'text' as const, text: 'no' }], isError: true };
    expect(resolveResultUrls(error, 'https://h.example/')).toBe(error);
  });

  it("lists a resource's page absolute, or leaves it out when it cannot be", () => {
    const definition = { uri: 'u', name: 'n', _meta: { 'staticmcp/url': 'guide/', other: 1 } };
    expect(resolveResourcePage(definition, 'https://h.example/')._meta).toEqual({
      'staticmcp/url': 'https://h.example/guide/',
      other: 1,
    });
    expect(resolveResourcePage(definition, undefined)._meta).toEqual({ other: 1 });
    expect(resolveResourcePage({ uri: 'u', name: 'n', _meta: { 'staticmcp/url': 'g/' } }, undefined)).toEqual({
      uri: 'u',
      name: 'n',
    });
  });
});

// Prompt templates with Mustache-style optional sections: what a user reads once an optional
// argument is left out (no gap), and the templates the build refuses with a reason.
import { describe, expect, it } from 'vitest';
import { parsePromptTemplate, renderPromptTemplate } from '../../src/core/tree/prompt-template.js';

const EXPLAIN = 'Explain {{#audience}}to a {{audience}} {{/audience}}how to compute {{a}} times {{b}}.';

describe('renderPromptTemplate', () => {
  it('keeps a section only when its argument has a value, and leaves no gap when it has none', () => {
    expect(renderPromptTemplate(EXPLAIN, { a: '6', b: '7', audience: 'child' })).toBe(
      'Explain to a child how to compute 6 times 7.',
    );
    expect(renderPromptTemplate(EXPLAIN, { a: '6', b: '7' })).toBe('Explain how to compute 6 times 7.');
    expect(renderPromptTemplate(EXPLAIN, { a: '6', b: '7', audience: '' })).toBe('Explain how to compute 6 times 7.');
  });

  it('renders an inverted section when the argument is missing, and nested sections', () => {
    const template = 'Hi{{#name}} {{name}}{{#title}} ({{title}}){{/title}}{{/name}}{{^name}} there{{/name}}!';
    expect(renderPromptTemplate(template, {})).toBe('Hi there!');
    expect(renderPromptTemplate(template, { name: 'Ada' })).toBe('Hi Ada!');
    expect(renderPromptTemplate(template, { name: 'Ada', title: 'Dr' })).toBe('Hi Ada (Dr)!');
  });

  it('drops the line of a section tag that stands alone on it', () => {
    const template = 'Review this code.\n{{#focus}}\nFocus on {{focus}}.\n{{/focus}}\nBe brief.\n';
    expect(renderPromptTemplate(template, {})).toBe('Review this code.\nBe brief.\n');
    expect(renderPromptTemplate(template, { focus: 'naming' })).toBe(
      'Review this code.\nFocus on naming.\nBe brief.\n',
    );
  });

  it('never escapes values (a prompt is not HTML) and still renders plain placeholders of a template that does not parse', () => {
    expect(renderPromptTemplate('Code: {{code}}', { code: '<a href="x">&</a>' })).toBe('Code: <a href="x">&</a>');
    expect(renderPromptTemplate('{{#open}}Hello {{name}}', { name: 'Ada' })).toBe('{{#open}}Hello Ada');
  });
});

describe('parsePromptTemplate', () => {
  it('lists placeholder and section names, and says what is wrong with unbalanced sections', () => {
    expect(parsePromptTemplate(EXPLAIN)).toMatchObject({ names: ['audience', 'a', 'b'] });
    expect(parsePromptTemplate('{{#a}}x')).toEqual({ problem: '{{#a}} is never closed; add {{/a}}' });
    expect(parsePromptTemplate('x{{/a}}')).toEqual({ problem: '{{/a}} closes a section that was never opened' });
    expect(parsePromptTemplate('{{#a}}{{#b}}{{/a}}{{/b}}')).toEqual({
      problem: '{{/a}} closes a section, but the open one is {{#b}}',
    });
  });
});

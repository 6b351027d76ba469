// parseHelpOutput: the two --help documents validated by the rules of the script convention.
import { describe, expect, it } from 'vitest';
import { parseHelpOutput, type HelpResult } from '../../src/script/read-help.js';

const META = '{"description": "A tool"}\n';

function options(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

function reason(result: HelpResult): string {
  if (result.ok) throw new Error('expected the --help output to be refused');
  return result.reason;
}

function help(result: HelpResult) {
  if (!result.ok) throw new Error(`expected the --help output to be accepted: ${result.reason}`);
  return result.help;
}

describe('parseHelpOutput', () => {
  it('accepts the convention example and keeps the options in declaration order', () => {
    const parsed = help(
      parseHelpOutput(
        META,
        options({
          b: { description: 'Second', required: true, value_type: 'integer' },
          a: {
            description: 'First',
            required: false,
            value_type: 'string',
            default_value: 'x',
            size: { min: 1, max: 3 },
          },
        }),
      ),
    );
    expect(parsed.options).toEqual([
      {
        name: 'b',
        description: 'Second',
        required: true,
        valueType: 'integer',
        defaultValue: undefined,
        size: undefined,
      },
      {
        name: 'a',
        description: 'First',
        required: false,
        valueType: 'string',
        defaultValue: 'x',
        size: { min: 1, max: 3 },
      },
    ]);
    expect(parsed.metadata).toEqual({ description: 'A tool' });
    expect(parsed.warnings).toEqual([]);
  });

  it('treats empty stderr as no options', () => {
    expect(help(parseHelpOutput(META, '')).options).toEqual([]);
    expect(help(parseHelpOutput(META, '{}')).options).toEqual([]);
  });

  it('requires a default for an optional option', () => {
    expect(reason(parseHelpOutput(META, options({ n: { required: false, value_type: 'integer' } })))).toContain(
      'option "n" is optional but has no default_value',
    );
  });

  it('requires the default to match the value_type', () => {
    expect(
      reason(parseHelpOutput(META, options({ n: { required: false, value_type: 'integer', default_value: '3' } }))),
    ).toContain('option "n": default_value "3" is not an integer');
    expect(
      reason(parseHelpOutput(META, options({ n: { required: false, value_type: 'integer', default_value: 1.5 } }))),
    ).toContain('default_value 1.5 is not an integer');
    expect(
      reason(parseHelpOutput(META, options({ b: { required: false, value_type: 'boolean', default_value: 'false' } }))),
    ).toContain('option "b": default_value "false" is not a boolean');
  });

  it('requires an enum default to be one of the listed values', () => {
    expect(
      reason(
        parseHelpOutput(
          META,
          options({ l: { required: false, value_type: { enum: ['en', 'fr'] }, default_value: 'de' } }),
        ),
      ),
    ).toContain('option "l": default_value "de" is not one of ["en","fr"]');
  });

  it('ignores the default of a required option', () => {
    const parsed = help(
      parseHelpOutput(META, options({ n: { required: true, value_type: 'integer', default_value: 'nonsense' } })),
    );
    expect(parsed.options[0]?.defaultValue).toBeUndefined();
  });

  it('requires sizes to be numbers, min ≤ max, and whole for strings', () => {
    expect(
      reason(parseHelpOutput(META, options({ s: { required: true, value_type: 'string', size: { min: '1' } } }))),
    ).toMatch(/options\.s\.size\.min must be number/);
    expect(
      reason(
        parseHelpOutput(META, options({ s: { required: true, value_type: 'integer', size: { min: 5, max: 1 } } })),
      ),
    ).toContain('size.min (5) is greater than size.max (1)');
    expect(
      reason(parseHelpOutput(META, options({ s: { required: true, value_type: 'string', size: { max: 2.5 } } }))),
    ).toContain('a string size must be whole non-negative numbers');
    expect(
      reason(
        parseHelpOutput(
          META,
          options({ n: { required: false, value_type: 'integer', default_value: 50, size: { min: 1, max: 10 } } }),
        ),
      ),
    ).toContain('default_value 50 is outside size');
  });

  it('refuses an empty enum and an unknown value_type, naming the option', () => {
    expect(reason(parseHelpOutput(META, options({ c: { required: true, value_type: { enum: [] } } })))).toBe(
      '--help options: option "c": the enum is empty; list at least one value',
    );
    expect(reason(parseHelpOutput(META, options({ w: { required: true, value_type: 'date' } })))).toBe(
      '--help options: option "w": unknown value_type "date" (use string, integer, float, boolean, any or {"enum": [...]})',
    );
    expect(reason(parseHelpOutput(META, options({ w: { required: true } })))).toContain(
      'missing required field "value_type"',
    );
  });

  it('tolerates CRLF line endings and a byte-order mark, with warnings', () => {
    const parsed = help(
      parseHelpOutput('\uFEFF{"description": "x"}\r\n', '{"a": {"required": true,\r\n "value_type": "string"}}\r\n'),
    );
    expect(parsed.options.map((entry) => entry.name)).toEqual(['a']);
    expect(parsed.warnings).toEqual([
      '--help stdout starts with a byte-order mark; ignored',
      '--help stdout uses CRLF line endings; accepted',
      '--help stderr uses CRLF line endings; accepted',
    ]);
  });

  it('accepts an integer literal as the default of a float option', () => {
    const parsed = help(
      parseHelpOutput(META, options({ r: { required: false, value_type: 'float', default_value: 1 } })),
    );
    expect(parsed.options[0]?.defaultValue).toBe(1);
  });

  it('strips log lines mixed into the options JSON, with a warning', () => {
    const stderr = `INFO starting\n${JSON.stringify({ a: { required: true, value_type: 'string' } })}\nWARNING slow disk\nDEBUG done\n`;
    const parsed = help(parseHelpOutput(META, stderr));
    expect(parsed.options.map((entry) => entry.name)).toEqual(['a']);
    expect(parsed.warnings).toEqual(['--help stderr mixes 3 log line(s) with the options JSON; they were ignored']);
    // Only log lines: no options.
    expect(help(parseHelpOutput(META, 'INFO nothing to declare\n')).options).toEqual([]);
  });

  it('refuses output that is not JSON, or not a JSON object, quoting its start', () => {
    expect(reason(parseHelpOutput('Usage: tool [options]\n', ''))).toMatch(
      /^--help stdout \(the metadata\) is not JSON .*it starts with "Usage: tool \[options\]"$/,
    );
    expect(reason(parseHelpOutput(META, '--name NAME  the name'))).toMatch(
      /^--help stderr \(the options\) is not JSON/,
    );
    expect(reason(parseHelpOutput('[1, 2]', ''))).toBe(
      '--help stdout (the metadata) must be a JSON object, got an array',
    );
    expect(reason(parseHelpOutput('', ''))).toMatch(/--help stdout \(the metadata\) is not JSON/);
    expect(reason(parseHelpOutput('{"state": "yes"}', ''))).toBe('--help metadata: metadata.state must be boolean');
  });
});

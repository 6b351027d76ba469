// Tool names from script paths: deterministic, stable and always valid for MCP clients.
import { describe, expect, it } from 'vitest';
import { TOOL_NAME } from '../../src/core/tree/name-rules.js';
import { deriveToolName } from '../../src/project/tool-names.js';

describe('deriveToolName', () => {
  it.each([
    ['hello', 'hello'],
    ['word-count', 'word-count'],
    ['utils/calc', 'utils_calc'],
    ['api/v1/fetch', 'api_v1_fetch'],
    ['a/b/c/d/e', 'a_b_c_d_e'],
    ['calc.sh', 'calc'],
    ['calc.py', 'calc'],
    ['tools/run.mjs', 'tools_run'],
    ['Make Report', 'Make-Report'],
    ['café', 'cafe'],
    ['data.v2', 'datav2'],
  ])('names %j as %j', (relativePath, expected) => {
    expect(deriveToolName(relativePath)).toBe(expected);
  });

  it('always matches ^[a-zA-Z0-9_-]{1,64}$', () => {
    for (const relativePath of [
      '日本語',
      '!!!',
      'x'.repeat(200),
      `${'deep/'.repeat(4)}${'y'.repeat(80)}`,
      'a b/c d',
      '.hidden',
    ]) {
      expect(deriveToolName(relativePath)).toMatch(TOOL_NAME);
    }
  });

  it('shortens names over 64 characters with a hash of the path, so long paths stay distinct', () => {
    const first = deriveToolName(`${'x'.repeat(70)}/one`);
    const second = deriveToolName(`${'x'.repeat(70)}/two`);
    expect(first).toHaveLength(64);
    expect(first.slice(0, 55)).toBe('x'.repeat(55));
    expect(first).not.toBe(second);
  });

  it('names a path with nothing usable after a hash of it, not an empty name', () => {
    expect(deriveToolName('日本語')).toMatch(/^tool-[0-9a-f]{8}$/);
    expect(deriveToolName('日本語')).not.toBe(deriveToolName('中文'));
  });

  it('is stable: the same path always gives the same name (pinned, so a release cannot rename tools)', () => {
    expect(deriveToolName(`${'x'.repeat(70)}/one`)).toBe(deriveToolName(`${'x'.repeat(70)}/one`));
    expect(deriveToolName('日本語')).toBe('tool-77710aed');
    expect(deriveToolName(`${'x'.repeat(70)}/one`)).toBe(`${'x'.repeat(55)}-d254796f`);
  });
});

// The pure parts of the rich-output and progress conventions: what a script prints under
// `"outputFormat": "mcp"` and which stderr lines count as progress.
import { describe, expect, it } from 'vitest';
import { parseMcpOutput } from '../../src/core/results/mcp-output.js';
import { parseProgressLine } from '../../src/core/results/progress-lines.js';

const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC';

function problemOf(text: string): string {
  const parsed = parseMcpOutput(text);
  return 'problem' in parsed ? parsed.problem : 'no problem';
}

describe('parseMcpOutput', () => {
  it('passes every MCP content block type through unchanged', () => {
    const result = {
      content: [
        { type: 'text', text: 'hi', annotations: { audience: ['user'] } },
        { type: 'image', data: PIXEL, mimeType: 'image/png' },
        { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'test://a', mimeType: 'text/plain', text: 'x' } },
        { type: 'resource', resource: { uri: 'test://b', blob: PIXEL } },
        { type: 'resource_link', uri: 'file:///a.txt', name: 'a', size: 3 },
      ],
      isError: false,
      structuredContent: { n: 1 },
      _meta: { trace: 'x' },
    };
    expect(parseMcpOutput(JSON.stringify(result))).toEqual({ output: { ...result, isError: undefined } });
  });

  it('makes content from structuredContent alone, as text for clients that do not read it', () => {
    expect(parseMcpOutput('{"structuredContent": {"a": 1}}')).toEqual({
      output: { content: [{ type: 'text', text: '{"a":1}' }], structuredContent: { a: 1 } },
    });
  });

  it('says what is wrong with output that breaks the convention', () => {
    expect(problemOf('')).toMatch(/printed nothing/);
    expect(problemOf('hello')).toMatch(/not JSON.*"hello"/);
    expect(problemOf('[1]')).toMatch(/JSON object/);
    expect(problemOf('{"content": [], "contents": []}')).toMatch(/unknown key "contents"/);
    expect(problemOf('{"content": {}}')).toMatch(/"content" must be an array/);
    expect(problemOf('{"content": [{"type": "video"}]}')).toMatch(/content\[0\]\.type must be one of/);
    expect(problemOf('{"content": [{"type": "image", "data": "not base64!", "mimeType": "image/png"}]}')).toMatch(
      /content\[0\]\.data is not base64/,
    );
    expect(problemOf(`{"content": [{"type": "image", "data": "${PIXEL}"}]}`)).toMatch(
      /content\[0\]\.mimeType must be a MIME type/,
    );
    expect(problemOf(`{"content": [{"type": "image", "data": "${PIXEL}", "mime_type": "image/png"}]}`)).toMatch(
      /unknown key "mime_type"/,
    );
    expect(
      problemOf('{"content": [{"type": "resource", "resource": {"uri": "test://a", "text": "x", "blob": "eA=="}}]}'),
    ).toMatch(/exactly one of "text"/);
    expect(problemOf('{"content": [{"type": "resource", "resource": {"uri": "no scheme", "text": "x"}}]}')).toMatch(
      /uri must be a URI/,
    );
    expect(problemOf('{"content": [], "isError": "yes"}')).toMatch(/"isError" must be true or false/);
  });
});

describe('parseProgressLine', () => {
  it('reads done, an optional total and an optional message', () => {
    expect(parseProgressLine('PROGRESS 50 100 halfway there')).toEqual({
      progress: 50,
      total: 100,
      message: 'halfway there',
    });
    expect(parseProgressLine('PROGRESS 3')).toEqual({ progress: 3 });
    expect(parseProgressLine('PROGRESS 2.5 10\r')).toEqual({ progress: 2.5, total: 10 });
    expect(parseProgressLine('PROGRESS 7 files copied')).toEqual({ progress: 7, message: 'files copied' });
    expect(parseProgressLine('PROGRESS 0 0 starting')).toEqual({ progress: 0, message: 'starting' });
  });

  it('ignores lines that are not well-formed progress', () => {
    for (const line of [
      'PROGRESS',
      'PROGRESS half',
      'PROGRESS -1 10',
      'progress 1 2',
      'INFO PROGRESS 1 2',
      'PROGRESSING 1',
    ]) {
      expect(parseProgressLine(line), line).toBeNull();
    }
  });
});

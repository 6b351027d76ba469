// JSON-RPC ids beyond 2^53 come back exactly as sent (a rounded id never matches the client's
// request), in single messages and in batches, while other numbers are untouched.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { HttpServe, openSession, post } from '../helpers/http-serve.js';
import { CLI } from '../helpers/paths.js';
import { buildFixtureProject } from '../helpers/projects.js';

let tree: string;

beforeAll(() => {
  tree = path.join(buildFixtureProject('fixtures/example'), 'dist');
});

/** Pipes `lines` into `staticmcp serve <tree>` and returns stdout's lines once it exits. */
function serveLines(lines: string[]): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'serve', tree], { stdio: ['pipe', 'pipe', 'ignore'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
    });
    child.on('error', reject);
    child.on('exit', () => resolve(stdout.split('\n').filter((line) => line !== '')));
    child.stdin.end(`${lines.join('\n')}\n`);
  });
}

describe('request ids beyond 2^53', () => {
  it('are answered with the exact literal the client sent', async () => {
    const lines = await serveLines([
      '{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"}',
      '{"jsonrpc":"2.0","id":-98765432109876543210,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}',
      '[{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"},{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"math_multiply","arguments":{"a":6,"b":7},"_meta":{"id":9007199254740993}}}]',
    ]);
    expect(lines[0]).toBe('{"jsonrpc":"2.0","id":12345678901234567890,"result":{}}');
    expect(lines[1]).toMatch(
      /^\{"jsonrpc":"2\.0","id":-98765432109876543210,"result":\{"protocolVersion":"2025-03-26"/,
    );
    expect(lines[2]).toMatch(
      /^\[\{"jsonrpc":"2\.0","id":9007199254740993,"result":\{\}\},\{"jsonrpc":"2\.0","id":7,"result":\{"content":\[\{"type":"text","text":"42\\n"\}\]\}\}\]$/,
    );
  });

  it('are answered exactly over HTTP too', async () => {
    const serve = await HttpServe.start([tree]);
    try {
      const session = await openSession(serve.port);
      const answer = await post(serve.port, '{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"}', {
        'mcp-session-id': session,
        'mcp-protocol-version': '2025-11-25',
      });
      expect(answer.text).toBe('{"jsonrpc":"2.0","id":12345678901234567890,"result":{}}');
    } finally {
      await serve.stop();
    }
  });
});

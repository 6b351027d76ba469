// The preload a session plans once it is ready (core/mcp/handler-table.ts) warms what the first
// tools/call runs (core/mcp/warm-cut-calls.ts): a client must never see it. Nothing reaches stdout
// or stderr between the initialize answer and the first request, and the first call's answer is the
// one every later identical call gets: its call file's result.
import { beforeAll, describe, expect, it } from 'vitest';
import { builtExample } from '../helpers/example.js';
import { RawBridge } from '../helpers/raw-bridge.js';

let example: string;

beforeAll(() => {
  example = builtExample();
});

/** Well past the preload, which runs a quarter of a second after the session is ready. */
const PAST_PRELOAD_MS = 1500;

describe('the preload after initialize', () => {
  it('writes nothing, and the first call answers as every later one does', async () => {
    const bridge = new RawBridge([example]);
    let stdout = '';
    bridge.child.stdout.on('data', (text: string) => {
      stdout += text;
    });
    const initialized = await bridge.initialize();
    await new Promise((resolve) => setTimeout(resolve, PAST_PRELOAD_MS));
    expect(stdout).toBe(`${JSON.stringify(initialized)}\n`);
    expect(bridge.stderr).toBe('');
    const ask = () => bridge.request('tools/call', { name: 'capital', arguments: { country: 'France' } });
    const first = await ask();
    const later = await ask();
    // tools/capital/france.json without the arguments it records.
    expect(first.result).toEqual({ content: [{ type: 'text', text: 'Paris\n' }] });
    expect(later.result).toEqual(first.result);
    expect(stdout).toBe([initialized, first, later].map((frame) => `${JSON.stringify(frame)}\n`).join(''));
    expect(await bridge.close()).toBe(0);
    expect(bridge.stderr).toBe('');
  });
});

// First contact with a tree served without its project: the lists offer only what the tree can
// answer (no tool that only a live run answers, no state resource), one stderr line says what was
// left out and how to get it back, and the landing page marks the live-only tools. With --live,
// everything is listed as before.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFixtureProject } from '../helpers/projects.js';
import { RawBridge } from '../helpers/raw-bridge.js';

let project: string;

beforeAll(() => {
  project = buildFixtureProject('fixtures/example');
});

afterAll(async () => {
  if (project) await fs.rm(path.dirname(project), { recursive: true, force: true });
});

const names = (list: unknown): string[] => (list as { name: string }[]).map((tool) => tool.name);
const uris = (list: unknown): string[] => (list as { uri: string }[]).map((resource) => resource.uri);

describe('a tree served without --live', () => {
  it('lists only answerable tools and resources, and says on stderr what it left out and how to enable it', async () => {
    const bridge = new RawBridge([path.join(project, 'dist')]);
    await bridge.initialize();
    const tools = (await bridge.request('tools/list')).result?.tools;
    // search and fetch: the index of the text resources every build writes (issue #25).
    expect(names(tools)).toEqual(['capital', 'greet', 'math_multiply', 'word-count', 'search', 'fetch']);
    expect(uris((await bridge.request('resources/list')).result?.resources)).not.toContain('mcpd://counter/state');
    // Printed once the lists are worked out, just after start-up (not before the first answer).
    await bridge.waitForStderr(/not listing/);
    const lines = bridge.stderr.split('\n').filter((line) => line.includes('not listing'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/counter, divide/);
    expect(lines[0]).toMatch(/--live <project folder>/);
    // A client that calls a hidden tool anyway still learns how to get an answer.
    const call = await bridge.request('tools/call', { name: 'divide', arguments: { a: 1, b: 2 } });
    expect(call.result?.isError).toBe(true);
    expect(JSON.stringify(call.result)).toMatch(/--live/);
    expect(await bridge.close()).toBe(0);
  });

  it('lists every tool and the state resource when the project is there, and prints no such line', async () => {
    const bridge = new RawBridge([project]);
    await bridge.initialize();
    const tools = (await bridge.request('tools/list')).result?.tools as {
      name: string;
      inputSchema: { properties: Record<string, { enum?: unknown }> };
    }[];
    expect(names(tools)).toEqual([
      'capital',
      'counter',
      'divide',
      'greet',
      'math_multiply',
      'word-count',
      'search',
      'fetch',
    ]);
    // A live project answers any country, so the schema is the script's own.
    expect(tools.find((tool) => tool.name === 'capital')?.inputSchema.properties.country?.enum).toBeUndefined();
    expect(uris((await bridge.request('resources/list')).result?.resources)).toContain('mcpd://counter/state');
    expect(bridge.stderr).not.toMatch(/not listing/);
    await bridge.close();
  });

  it('marks the live-only tools on the landing page, with the command that answers them', async () => {
    const page = await fs.readFile(path.join(project, 'dist/index.html'), 'utf8');
    expect(page).toContain('<h3><code>counter</code> <span class="mark">live only</span></h3>');
    expect(page).toContain('<h3><code>divide</code> <span class="mark">live only</span></h3>');
    // A precomputed tool is not marked live only: its mark counts its precomputed calls.
    expect(page).toContain('<h3><code>greet</code> <span class="mark">6 precomputed</span></h3>');
    expect(page).toMatch(/--live &lt;project folder&gt;/);
  });
});

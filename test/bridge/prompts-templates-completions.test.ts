// The MCP surface beyond tools, over real stdio: prompts rendered from the tree, resource template
// instances (precomputed without spawning, read live through the provider, -32002 otherwise),
// completions, the project's live limits and output schemas on live calls. prompts/list's pages
// are read in-process (test/helpers/in-process-session.ts), as serve opens the tree; the tree
// served without its project and the 2024-11-05 session's completions are asked of serve's own
// session in-process (test/helpers/in-process-bridge.ts), beside the one real stdio process.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InProcessBridge } from '../helpers/in-process-bridge.js';
import { writeProject } from '../helpers/projects.js';
import { type JsonRpcMessage, RawBridge } from '../helpers/raw-bridge.js';
import { buildTreeInProcess } from '../helpers/in-process-build.js';
import { openTreeSession } from '../helpers/in-process-session.js';

/** A prompts/list answer as the session returns it. */
interface PromptPage {
  result?: { prompts: { name: string }[]; nextCursor?: string; _meta?: unknown };
}

const CITIES = Array.from({ length: 150 }, (_, index) => `city-${String(index).padStart(3, '0')}`);

const PROVIDER = `#!/bin/sh
# Appends each run to a marker file, so a test can prove a read did (or did not) spawn it.
echo "$animal" >> "$STATICMCP_PROJECT_ROOT/../provider-runs.log"
case "$animal" in
  bad) echo "no such animal: $animal" >&2; exit 3 ;;
  slow) sleep 60 ;;
  huge) head -c 5000 /dev/zero | tr '\\0' 'x' ;;
  *) echo "$animal fact; tools folder $MCPD_CONFIG_COMMANDS_ROOT_DIRECTORY" ;;
esac
`;

const STATS_TOOL = `#!/bin/sh
if [ "$1" = "--help" ]; then
  echo '{"description": "Counts things"}'
  echo '{"n": {"description": "What to count", "required": true, "value_type": "string"}}' >&2
  exit 0
fi
if [ "$n" = "good" ]; then echo '{"count": 3}'; else echo '{"count": "many"}'; fi
`;

let project: string;
let runsLog: string;
/**
 * One server over the project (initialized as 2025-11-25) for the tests that only ask it: one
 * client's requests, one test after another, as a client's session holds them. Tests that need
 * another version, tree or project start their own.
 */
let bridge: RawBridge;
let initialized: JsonRpcMessage;

beforeAll(async () => {
  project = await writeProject({
    'staticmcp.json': JSON.stringify({ limits: { timeoutMs: 1500, maxOutputBytes: 1000 } }),
    'prompts/welcome.md': 'Hello {{name}}, welcome to {{place}}.{{ note }}',
    'prompts/welcome.md.meta.json': JSON.stringify({
      description: 'Welcome someone',
      arguments: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'Who' },
          place: { type: 'string', enum: ['Paris', 'paris-east', 'Lyon', ...CITIES], default: 'Lyon' },
          note: { type: 'string' },
        },
        required: ['name'],
      },
    }),
    'resources/animals.meta.json': JSON.stringify({
      name: 'animal-facts',
      uriTemplate: 'facts://animals/{animal}',
      mimeType: 'text/plain',
      provider: 'providers/fact',
      values: { animal: ['cat', 'dog'] },
    }),
    'providers/fact': { script: PROVIDER },
    'tools/stats': { script: STATS_TOOL },
    'tools/stats.meta.json': JSON.stringify({
      precompute: false,
      outputSchema: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] },
    }),
  });
  await buildTreeInProcess(project);
  runsLog = path.join(project, '..', 'provider-runs.log');
  // The build ran the provider for cat and dog; from here on, every line is a bridge run.
  await fs.rm(runsLog, { force: true });
  bridge = new RawBridge([project]);
  initialized = await bridge.initialize();
});

afterAll(async () => {
  if (bridge) expect(await bridge.close()).toBe(0);
});

async function providerRuns(): Promise<string[]> {
  return (await fs.readFile(runsLog, 'utf8').catch(() => '')).split('\n').filter(Boolean);
}

describe('prompts', () => {
  it('lists prompts and renders one, with defaults for missing optional arguments', async () => {
    expect(initialized.result?.capabilities).toMatchObject({ prompts: {}, completions: {} });
    const list = await bridge.request('prompts/list');
    expect(list.result?.prompts).toEqual([
      {
        name: 'welcome',
        description: 'Welcome someone',
        arguments: [
          { name: 'name', description: 'Who', required: true },
          { name: 'place', required: false },
          { name: 'note', required: false },
        ],
      },
    ]);
    expect(list.result?._meta).toEqual({ 'staticmcp/total': 1 });
    expect(list.result?.nextCursor).toBeUndefined();
    const got = await bridge.request('prompts/get', { name: 'welcome', arguments: { name: 'Ada', place: 'Paris' } });
    expect(got.result).toEqual({
      description: 'Welcome someone',
      messages: [{ role: 'user', content: { type: 'text', text: 'Hello Ada, welcome to Paris.' } }],
    });
    const defaulted = await bridge.request('prompts/get', { name: 'welcome', arguments: { name: 'Ada' } });
    expect((defaulted.result!.messages as { content: { text: string } }[])[0]?.content.text).toBe(
      'Hello Ada, welcome to Lyon.',
    );
  });

  it('refuses a missing required argument, a value outside the schema and an unknown prompt with -32602', async () => {
    const missing = await bridge.request('prompts/get', { name: 'welcome', arguments: { place: 'Paris' } });
    expect(missing.error?.code).toBe(-32602);
    expect(missing.error?.message).toContain('"name"');
    const invalid = await bridge.request('prompts/get', {
      name: 'welcome',
      arguments: { name: 'Ada', place: 'Atlantis' },
    });
    expect(invalid.error?.code).toBe(-32602);
    expect(invalid.error?.message).toContain('place');
    const unknown = await bridge.request('prompts/get', { name: 'farewell' });
    expect(unknown.error).toMatchObject({ code: -32602, message: 'Unknown prompt: farewell' });
  });
});

describe('prompts/list pagination', () => {
  it('walks 120 prompts in pages of 100 with the total in _meta', async () => {
    const files: Record<string, string> = {};
    for (let index = 0; index < 120; index++)
      files[`prompts/p${String(index).padStart(3, '0')}.md`] = `Prompt number ${index}`;
    const many = await writeProject(files);
    await buildTreeInProcess(many);
    // The pages are the core's answer: a session as serve opens the tree, in-process (this file's
    // other tests show the same answers over stdio).
    const paged = await openTreeSession(path.join(many, 'dist'));
    const first = (await paged.request('prompts/list')) as PromptPage;
    expect(first.result!.prompts.length).toBe(100);
    expect(first.result?._meta).toEqual({ 'staticmcp/total': 120 });
    const second = (await paged.request('prompts/list', { cursor: first.result?.nextCursor })) as PromptPage;
    const names = [...first.result!.prompts, ...second.result!.prompts].map((prompt) => prompt.name);
    expect(names).toEqual(Array.from({ length: 120 }, (_, index) => `p${String(index).padStart(3, '0')}`));
    expect(second.result?.nextCursor).toBeUndefined();
    const garbage = (await paged.request('prompts/list', { cursor: 'garbage' })) as { error?: { code: number } };
    expect(garbage.error?.code).toBe(-32602);
    await paged.close();
  });
});

describe('resource templates', () => {
  it('serves a precomputed instance without running the provider', async () => {
    const templates = await bridge.request('resources/templates/list');
    expect(templates.result?.resourceTemplates).toEqual([
      { name: 'animal-facts', uriTemplate: 'facts://animals/{animal}', mimeType: 'text/plain' },
    ]);
    const read = await bridge.request('resources/read', { uri: 'facts://animals/cat' });
    const [content] = read.result!.contents as { uri: string; mimeType: string; text: string }[];
    expect(content).toMatchObject({ uri: 'facts://animals/cat', mimeType: 'text/plain' });
    expect(content?.text).toMatch(/^cat fact/);
    expect(await providerRuns()).not.toContain('cat');
  });

  it('reads an instance that was not precomputed through the provider, with the tools folder as MCPD_CONFIG_COMMANDS_ROOT_DIRECTORY', async () => {
    const read = await bridge.request('resources/read', { uri: 'facts://animals/owl' });
    expect(read.result?.contents).toEqual([
      {
        uri: 'facts://animals/owl',
        mimeType: 'text/plain',
        text: `owl fact; tools folder ${path.join(project, 'tools')}\n`,
      },
    ]);
    expect(await providerRuns()).toContain('owl');
    const listed = await bridge.request('resources/list');
    expect(listed.result?.resources).toEqual([]);
    // Any known resource can be subscribed (a served tree never changes, so no update follows);
    // an unknown one is refused.
    expect((await bridge.request('resources/subscribe', { uri: 'facts://animals/owl' })).result).toEqual({});
    expect((await bridge.request('resources/unsubscribe', { uri: 'facts://animals/owl' })).result).toEqual({});
    expect((await bridge.request('resources/subscribe', { uri: 'nowhere://x' })).error?.code).toBe(-32002);
  });

  it('answers a failing provider with -32603 that says why, and keeps serving', async () => {
    const failed = await bridge.request('resources/read', { uri: 'facts://animals/bad' });
    expect(failed.error?.code).toBe(-32603);
    expect(failed.error?.message).toContain('exit code 3');
    expect(failed.error?.message).toContain('no such animal: bad');
    expect(failed.error?.message).not.toContain(project);
    expect((await bridge.request('ping')).result).toEqual({});
  });

  it("applies the project's limits.timeoutMs and limits.maxOutputBytes to live reads", async () => {
    // The script sleeps a minute: answered at ten times the 1.5 s limit or sooner, the read was
    // ended by the limit, however busy the machine.
    const startedAt = Date.now();
    const slow = await bridge.request('resources/read', { uri: 'facts://animals/slow' });
    expect(slow.error?.message).toContain('timed out after 1500 ms');
    expect(Date.now() - startedAt).toBeLessThan(15_000);
    const huge = await bridge.request('resources/read', { uri: 'facts://animals/huge' });
    expect(huge.error?.message).toContain('more than 1000 bytes');
  });

  it('answers -32002 for a URI no template matches, and for an instance without the project', async () => {
    const none = await bridge.request('resources/read', { uri: 'facts://plants/fern' });
    expect(none.error).toMatchObject({ code: -32002, data: { uri: 'facts://plants/fern' } });

    const treeOnly = await InProcessBridge.open(path.join(project, 'dist'));
    await treeOnly.initialize();
    const before = (await providerRuns()).length;
    const owl = await treeOnly.request('resources/read', { uri: 'facts://animals/owl' });
    expect(owl.error?.code).toBe(-32002);
    expect(owl.error?.message).toContain('--live');
    const dog = await treeOnly.request('resources/read', { uri: 'facts://animals/dog' });
    expect((dog.result!.contents as { text: string }[])[0]?.text).toMatch(/^dog fact/);
    expect((await providerRuns()).length).toBe(before);
    await treeOnly.close();
  });
});

describe('completions', () => {
  it('completes prompt arguments by case-insensitive prefix, at most 100 values with total and hasMore', async () => {
    const ref = { type: 'ref/prompt', name: 'welcome' };
    const paris = await bridge.request('completion/complete', { ref, argument: { name: 'place', value: 'PAR' } });
    expect(paris.result).toEqual({ completion: { values: ['Paris', 'paris-east'], total: 2, hasMore: false } });
    const cities = await bridge.request('completion/complete', { ref, argument: { name: 'place', value: 'city' } });
    const completion = cities.result?.completion as { values: string[]; total: number; hasMore: boolean };
    expect(completion.values).toEqual(CITIES.slice(0, 100));
    expect(completion).toMatchObject({ total: 150, hasMore: true });
    const nothing = await bridge.request('completion/complete', { ref, argument: { name: 'name', value: 'A' } });
    expect(nothing.result).toEqual({ completion: { values: [], total: 0, hasMore: false } });
  });

  it('completes template variables and tool parameters (ref/tool), and refuses unknown references with -32602', async () => {
    const older = await InProcessBridge.open(project);
    await older.initialize('2024-11-05');
    const animals = await older.request('completion/complete', {
      ref: { type: 'ref/resource', uri: 'facts://animals/{animal}' },
      argument: { name: 'animal', value: 'd' },
    });
    expect(animals.result).toEqual({ completion: { values: ['dog'], total: 1, hasMore: false } });
    const tool = await older.request('completion/complete', {
      ref: { type: 'ref/tool', name: 'stats' },
      argument: { name: 'n', value: '' },
    });
    expect(tool.result).toEqual({ completion: { values: [], total: 0, hasMore: false } });
    for (const [ref, says] of [
      [{ type: 'ref/prompt', name: 'farewell' }, 'unknown prompt "farewell"'],
      [{ type: 'ref/resource', uri: 'facts://plants/{plant}' }, 'unknown resource template'],
      [{ type: 'ref/tool', name: 'nope' }, 'unknown tool "nope"'],
      [{ type: 'ref/model', name: 'x' }, 'unknown reference type'],
    ] as const) {
      const answer = await older.request('completion/complete', { ref, argument: { name: 'x', value: '' } });
      expect(answer.error?.code).toBe(-32602);
      expect(answer.error?.message).toContain(says);
    }
    const badArgument = await older.request('completion/complete', {
      ref: { type: 'ref/prompt', name: 'welcome' },
      argument: { name: 'colour', value: '' },
    });
    expect(badArgument.error?.message).toContain('no argument "colour"');
    await older.close();
  });
});

describe('output schemas on live calls', () => {
  it('returns structuredContent for matching JSON and an isError naming the field otherwise', async () => {
    const good = await bridge.request('tools/call', { name: 'stats', arguments: { n: 'good' } });
    expect(good.result).toMatchObject({ structuredContent: { count: 3 } });
    const bad = await bridge.request('tools/call', { name: 'stats', arguments: { n: 'bad' } });
    expect(bad.result?.isError).toBe(true);
    expect(JSON.stringify(bad.result?.content)).toContain('count');
    expect(JSON.stringify(bad.result?.content)).toContain('outputSchema');
  });
});

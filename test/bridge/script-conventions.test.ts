// The script conventions beyond plain text, end to end with real scripts over stdio: rich results
// (`"outputFormat": "mcp"`) precomputed and live, malformed rich output as a readable isError,
// PROGRESS lines as the call's progress, message prompts with files and placeholders, and the
// client channel a live script uses to ask the client (elicitation here).
import { existsSync, readFileSync, writeFileSync, mkdirSync, cpSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { START_TICK_VARIABLE } from '../../src/core/mcp/progress-reporter.js';
import { CLI, REPO_ROOT } from '../helpers/paths.js';
import { type JsonRpcMessage, RawBridge } from '../helpers/raw-bridge.js';
import { temporaryFolderSync } from '../helpers/temp-folders.js';
import { buildFixtureInProcess, buildInProcess } from '../helpers/in-process-build.js';

const PIXEL = readFileSync(path.join(REPO_ROOT, 'test/fixtures/conventions-project/resources/dot.png')).toString(
  'base64',
);
let project: string;
let client: Client;
const elicitations: unknown[] = [];

function runs(): string[] {
  const log = path.join(project, 'runs.log');
  return existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [];
}

beforeAll(async () => {
  project = await buildFixtureInProcess('conventions-project');
  client = new Client({ name: 'conventions-test', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    elicitations.push(request.params);
    return { action: 'accept', content: { name: 'Ada' } };
  });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', project], stderr: 'pipe' }),
  );
});

afterAll(async () => {
  await client?.close();
});

describe('outputFormat "mcp"', () => {
  it('writes the printed CallToolResult into the tree and serves it without running the script', async () => {
    const file = JSON.parse(readFileSync(path.join(project, 'dist/tools/picture/dot.json'), 'utf8'));
    expect(file._meta).toEqual({ phase: 'build', 'staticmcp/arguments': { label: 'dot' } });
    const buildRuns = runs().length;
    const result = await client.callTool({ name: 'picture', arguments: {} });
    expect(result.content).toEqual([
      { type: 'text', text: 'picture of dot' },
      { type: 'image', data: PIXEL, mimeType: 'image/png' },
    ]);
    expect(result._meta).toEqual({ phase: 'build' });
    expect(runs().length).toBe(buildRuns);
  });

  it("passes a live run's rich result through", async () => {
    const result = await client.callTool({ name: 'picture', arguments: { label: 'moon' } });
    expect(result.content).toEqual([
      { type: 'text', text: 'picture of moon' },
      { type: 'image', data: PIXEL, mimeType: 'image/png' },
    ]);
    expect(result._meta).toEqual({ phase: 'live' });
    expect(runs()).toContain('moon');
  });

  it('answers malformed rich output with an isError result that says what to fix, precomputed and live', async () => {
    for (const args of [{}, { word: 'live' }]) {
      const result = await client.callTool({ name: 'broken-rich', arguments: args });
      expect(result.isError).toBe(true);
      expect(result.content).toEqual([
        {
          type: 'text',
          text: expect.stringMatching(
            /^broken-rich declares "outputFormat": "mcp" but content\[0\]\.data is not base64/,
          ),
        },
      ]);
    }
  });

  it('keeps the rich result of a failing script, marked isError', async () => {
    const result = await client.callTool({ name: 'rich-fail', arguments: {} });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([
      { type: 'text', text: 'quota exceeded' },
      { type: 'resource_link', uri: 'https://example.com/quota', name: 'quota' },
    ]);
  });
});

describe('progress', () => {
  it("sends the script's own PROGRESS values (never one that does not increase), not ticks of its own", async () => {
    // Read off the wire, not through an SDK client: SDK clients handle a notification a turn later
    // than a response, so under load one that arrives in the same chunk as the result is dropped.
    // Its start tick after ten minutes (a test hook): the script's own log line is the first tick
    // however long a busy machine takes to start it.
    const bridge = new RawBridge([project], { env: { ...process.env, [START_TICK_VARIABLE]: String(600_000) } });
    await bridge.initialize();
    const response = await bridge.request('tools/call', {
      name: 'steps',
      arguments: {},
      _meta: { progressToken: 'steps-1' },
    });
    expect(response.result?.content).toEqual([{ type: 'text', text: 'finished\n' }]);
    // The log line before the first PROGRESS line is a tick (0); then the script's own values, all
    // sent before the result.
    const answeredAt = bridge.frames.indexOf(response);
    const progress = bridge.frames
      .slice(0, answeredAt)
      .filter((frame) => (frame as JsonRpcMessage).method === 'notifications/progress')
      .map((frame) => (frame as JsonRpcMessage).params);
    expect(progress).toEqual([
      { progressToken: 'steps-1', progress: 0, message: 'starting' },
      { progressToken: 'steps-1', progress: 1, total: 3, message: 'step one' },
      { progressToken: 'steps-1', progress: 3, total: 3, message: 'all done' },
    ]);
    expect(bridge.frames.slice(answeredAt + 1)).toEqual([]);
    await bridge.close();
  });

  it('shows a script that reports nothing and runs for a while as started', async () => {
    // The script runs until the tick has reached us (or 30 s): it is still running when the tick
    // comes, however slow the machine, and the tick is not lost beside the result.
    const progress: unknown[] = [];
    const result = await client.callTool({ name: 'quiet', arguments: {} }, undefined, {
      onprogress: (event) => {
        progress.push(event);
        writeFileSync(path.join(project, 'quiet.go'), '');
      },
    });
    expect(result.content).toEqual([{ type: 'text', text: 'done quietly\n' }]);
    expect(progress).toEqual([{ progress: 0, message: 'running quiet' }]);
  });
});

describe('message prompts', () => {
  it('renders messages with the embedded image file and placeholders in text and uri', async () => {
    const prompt = await client.getPrompt({ name: 'look', arguments: { subject: 'a cat', uri: 'test://cats/1' } });
    expect(prompt.messages).toEqual([
      { role: 'user', content: { type: 'image', data: PIXEL, mimeType: 'image/png' } },
      { role: 'assistant', content: { type: 'text', text: 'I see a cat.' } },
      {
        role: 'user',
        content: { type: 'resource', resource: { uri: 'test://cats/1', mimeType: 'text/plain', text: 'About a cat' } },
      },
    ]);
    const withDefault = await client.getPrompt({ name: 'look', arguments: { subject: 'x' } });
    expect(withDefault.messages[2]?.content).toMatchObject({ resource: { uri: 'test://default' } });
  });

  it('offers the argument examples as completions', async () => {
    const completion = await client.complete({
      ref: { type: 'ref/prompt', name: 'look' },
      argument: { name: 'subject', value: 'ca' },
    });
    expect(completion.completion.values).toEqual(['cat', 'car']);
  });

  it('reports a malformed message prompt by name and still builds the rest', async () => {
    const broken = path.join(temporaryFolderSync(), 'broken');
    cpSync(path.join(REPO_ROOT, 'test/fixtures/conventions-project'), broken, { recursive: true });
    mkdirSync(path.join(broken, 'prompts'), { recursive: true });
    writeFileSync(
      path.join(broken, 'prompts/bad.json'),
      JSON.stringify({ messages: [{ role: 'user', content: { type: 'image', mimeType: 'image/png' } }] }),
    );
    writeFileSync(
      path.join(broken, 'prompts/escape.json'),
      JSON.stringify({ messages: [{ role: 'user', content: { type: 'image', file: '../../outside.png' } }] }),
    );
    // The build's decision in-process: its report's failures, each with the file it names.
    const build = await buildInProcess(broken);
    expect(build.code).toBe(1);
    const output = build.report.failures.map((failure) => `${failure.path}: ${failure.message}`).join('\n');
    expect(output).toMatch(/bad\.json.*content\.data must be a non-empty base64 string/);
    expect(output).toMatch(/escape\.json.*outside the project/);
    const manifest = JSON.parse(readFileSync(path.join(broken, 'dist/mcp.json'), 'utf8'));
    expect(manifest.capabilities.prompts.map((prompt: { name: string }) => prompt.name)).toEqual(['look']);
  });
});

describe('the client channel', () => {
  it('lets a live script ask the client and read its answer', async () => {
    const result = await client.callTool({ name: 'ask', arguments: {} });
    expect(elicitations).toEqual([
      { message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } },
    ]);
    expect(result.content).toEqual([
      { type: 'text', text: 'answer: {"result":{"action":"accept","content":{"name":"Ada"}}}' },
    ]);
  });

  it('answers the script with an error, and sends nothing, when the client did not declare the capability', async () => {
    const bridge = new RawBridge([project]);
    await bridge.initialize();
    const response = await bridge.request('tools/call', { name: 'ask', arguments: {} });
    const text = (response.result!.content as { text: string }[])[0]?.text;
    expect(text).toMatch(
      /^answer: \{"error":\{"code":-32601,"message":"the client did not declare the elicitation capability/,
    );
    expect(bridge.frames.some((frame) => (frame as { method?: string }).method === 'elicitation/create')).toBe(false);
    await bridge.close();
  });
});

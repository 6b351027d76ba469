// A precomputed call answered from its file's bytes (core/mcp/cut-call-answers.ts, the cut in
// core/tree/call-file-text.ts): the line a client reads is byte for byte the one serializing the
// parsed file gives, for every shape a build writes; files not laid out for the cut (older trees,
// other generators, hand edits) answer the same through the serializer; and the file checks hold
// on this path too (a damaged file, a link out of the tree, a named pipe, other arguments, the
// answer cap). In-process, over real tree folders.
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJsonRpcText, stringifyJsonRpc } from '../../src/core/mcp/exact-ids.js';
import { prepareInputValidators } from '../../src/core/mcp/tool-calls.js';
import { sampleArguments, warmCutCalls } from '../../src/core/mcp/warm-cut-calls.js';
import { McpSession } from '../../src/core/mcp/mcp-session.js';
import type { ServerContext } from '../../src/core/mcp/server-context.js';
import { callFileText, cutCallResult } from '../../src/core/tree/call-file-text.js';
import { readCallFile } from '../../src/core/tree/lenient-files.js';
import { FolderSource } from '../../src/hosts/node/folder-source.js';
import { attachTreeSwitch, readTreeIdentity } from '../../src/hosts/node/tree-switch.js';
import { createNodeServerContext } from '../../src/hosts/node/node-server-context.js';
import { temporaryFolder } from '../helpers/temp-folders.js';
import { LOOKUP_MANIFEST } from '../helpers/lookup-manifest.js';

const RESULTS: Record<string, unknown>[] = [
  { content: [{ type: 'text', text: 'value 1' }] },
  { content: [{ type: 'text', text: 'failed "quoted" \\ back\nslash' }], isError: true },
  { content: [{ type: 'text', text: 'crème brûlée 🍮 \u2028' }], structuredContent: { a: [1, 2, { b: null }] } },
  { _meta: { phase: 'build', 'staticmcp/arguments': { stale: true } }, content: [] },
  { content: [{ type: 'text', text: '}}' }], _meta: { note: '"staticmcp/arguments":{"n":1}}}' } },
];

/** What the whole way answers for a call file's text: the parsed result, arguments taken out, serialized. */
function serializedResult(text: string): string {
  return JSON.stringify(readCallFile(JSON.parse(text)).result);
}

describe('a call file as a build writes it', () => {
  it('is one line, records its arguments last in _meta, and cuts to the serialized result', () => {
    for (const result of RESULTS) {
      for (const args of [{ n: 1 }, {}, { text: 'a "b"}}', list: [1, { c: 2 }] }]) {
        const text = callFileText(result, args);
        expect(text.indexOf('\n')).toBe(text.length - 1);
        const value = JSON.parse(text);
        expect(value._meta['staticmcp/arguments']).toEqual(args);
        expect(Object.keys(value).at(-1)).toBe('_meta');
        expect(cutCallResult(text, value)).toBe(serializedResult(text));
      }
    }
  });

  it('is not cut when laid out otherwise: the caller serializes it instead', () => {
    const result = { content: [{ type: 'text', text: 'v' }], _meta: { 'staticmcp/arguments': { n: 1 } } };
    const pretty = `${JSON.stringify(result, null, 2)}\n`;
    const argumentsFirst = JSON.stringify({ _meta: { 'staticmcp/arguments': { n: 1 }, x: 1 }, content: [] });
    const metaFirst = JSON.stringify({ _meta: { 'staticmcp/arguments': { n: 1 } }, content: [] });
    // The tail is there, but inside a key that only ends like it.
    const lookalike = '{"content":[],"_meta":{"x\\"staticmcp/arguments":{"n":1}}}';
    const spaced = '{"content":[],"_meta":{"staticmcp/arguments":{"n": 1}}}';
    const noArguments = JSON.stringify({ content: [], _meta: { x: 1 } });
    for (const text of [pretty, argumentsFirst, metaFirst, lookalike, spaced, noArguments])
      expect(cutCallResult(text, JSON.parse(text)), text).toBeUndefined();
  });
});

/** A tree whose lookup(n) files are `files[n]`, and a function that sends one line and returns the line answered. */
async function openTree(
  files: Record<number, string>,
  version = '2025-11-25',
  answerLimits = {},
): Promise<{
  root: string;
  server: ServerContext;
  ask: (line: string) => Promise<{ line: string; cut: boolean }>;
  close(): Promise<void>;
}> {
  const root = await temporaryFolder('staticmcp-cut-calls-');
  await fs.mkdir(path.join(root, 'tools', 'lookup'), { recursive: true });
  await fs.writeFile(path.join(root, 'mcp.json'), JSON.stringify(LOOKUP_MANIFEST));
  for (const [n, text] of Object.entries(files))
    await fs.writeFile(path.join(root, 'tools', 'lookup', `${n}.json`), text);
  const server = await createNodeServerContext({ source: new FolderSource(root, 'lookup'), logProblem: () => {} });
  const session = new McpSession(server, () => {}, { answerLimits });
  const ask = async (line: string) => {
    const response = (await session.handleParsed(parseJsonRpcText(line), () => {})) as Record<string, unknown>;
    const answered = stringifyJsonRpc(response);
    // Cut when the kept text, not the object, is what the transport writes.
    response.result = 'replaced';
    return { line: answered, cut: stringifyJsonRpc(response) === answered };
  };
  await ask(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: version } }));
  // The first call goes the whole way (the handlers and the validator are compiled on the way).
  await ask('{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":"lookup","arguments":{"n":99}}}');
  return { root, server, ask, close: () => session.close(0, 1_000) };
}

const callLine = (id: string, n: unknown) =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"lookup","arguments":{"n":${JSON.stringify(n)}}}}`;

describe('a precomputed call answered from its file', () => {
  it('writes the same line the serializer would, with the id as the client sent it', async () => {
    const files = Object.fromEntries(RESULTS.map((result, n) => [n, callFileText(result, { n })]));
    const tree = await openTree(files);
    for (const [n, text] of Object.entries(files)) {
      for (const id of ['7', '"a-string"', '12345678901234567890']) {
        const answer = await tree.ask(callLine(id, Number(n)));
        expect(answer).toEqual({ line: `{"jsonrpc":"2.0","id":${id},"result":${serializedResult(text)}}`, cut: true });
      }
    }
    await tree.close();
  });

  it('answers an older tree (pretty-printed files) the same, through the serializer', async () => {
    const result = {
      content: [{ type: 'text', text: 'old' }],
      _meta: { phase: 'build', 'staticmcp/arguments': { n: 1 } },
    };
    const tree = await openTree({ 1: `${JSON.stringify(result, null, 2)}\n` });
    expect(await tree.ask(callLine('3', 1))).toEqual({
      line: '{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"old"}],"_meta":{"phase":"build"}}}',
      cut: false,
    });
    await tree.close();
  });

  it('reshapes for an older protocol version instead of cutting', async () => {
    const text = callFileText({ content: [], structuredContent: { a: 1 } }, { n: 1 });
    const tree = await openTree({ 1: text }, '2025-03-26');
    expect(await tree.ask(callLine('1', 1))).toEqual({
      line: '{"jsonrpc":"2.0","id":1,"result":{"content":[]}}',
      cut: false,
    });
    await tree.close();
  });

  it('keeps the file checks: damaged, linked out of the tree, a named pipe, other arguments, too large', async () => {
    const outside = await temporaryFolder('staticmcp-cut-calls-outside-');
    await fs.writeFile(
      path.join(outside, 'secret.json'),
      callFileText({ content: [{ type: 'text', text: 'secret' }] }, { n: 2 }),
    );
    const tree = await openTree({
      1: callFileText({ content: [{ type: 'text', text: 'cut short' }] }, { n: 1 }).slice(0, 30),
      4: callFileText({ content: [{ type: 'text', text: 'answers 5' }] }, { n: 5 }),
      5: callFileText({ content: [{ type: 'text', text: 'x'.repeat(5000) }] }, { n: 5 }),
    });
    await fs.symlink(path.join(outside, 'secret.json'), path.join(tree.root, 'tools', 'lookup', '2.json'));
    execFileSync('mkfifo', [path.join(tree.root, 'tools', 'lookup', '3.json')]);
    const textOf = async (n: number) => {
      const answer = await tree.ask(callLine('1', n));
      expect(answer.cut).toBe(false);
      return JSON.parse(answer.line).result.content[0].text as string;
    };
    expect(await textOf(1)).toMatch(
      /its precomputed answer cannot be read \(tools\/lookup\/1\.json is not valid JSON\)/,
    );
    expect(await textOf(2)).toMatch(/this call was not precomputed/);
    expect(await textOf(3)).toMatch(/is not a regular file/);
    expect(await textOf(4)).toMatch(/this call was not precomputed/);
    await tree.close();
    const capped = await openTree(
      { 5: callFileText({ content: [{ type: 'text', text: 'x'.repeat(5000) }] }, { n: 5 }) },
      undefined,
      {
        maxAnswerBytes: 4096,
      },
    );
    const answer = await capped.ask(callLine('1', 5));
    expect(answer.cut).toBe(false);
    expect(JSON.parse(answer.line).error.message).toMatch(/^Answer too large/);
    await capped.close();
  });

  it.runIf(process.platform === 'linux')(
    "keeps the first tool's folder open after the preload, so the first call opens its file there",
    async () => {
      const root = await temporaryFolder('staticmcp-cut-warm-');
      await fs.mkdir(path.join(root, 'tools', 'lookup'), { recursive: true });
      await fs.writeFile(path.join(root, 'mcp.json'), JSON.stringify(LOOKUP_MANIFEST));
      const text = callFileText({ content: [{ type: 'text', text: 'one' }] }, { n: 1 });
      await fs.writeFile(path.join(root, 'tools', 'lookup', '1.json'), text);
      const server = await createNodeServerContext({ source: new FolderSource(root, 'lookup'), logProblem: () => {} });
      const folder = await fs.realpath(path.join(root, 'tools', 'lookup'));
      const descriptorsOnFolder = async () => {
        const links = await Promise.all(
          (await fs.readdir('/proc/self/fd')).map((fd) => fs.readlink(`/proc/self/fd/${fd}`).catch(() => '')),
        );
        return links.filter((link) => link === folder).length;
      };
      expect(await descriptorsOnFolder()).toBe(0);
      // As the preload runs it: with the tools' validators made.
      await prepareInputValidators(server);
      warmCutCalls(server);
      await Promise.resolve();
      // Held from the preload on (one descriptor), not opened and proven by the first call.
      expect(await descriptorsOnFolder()).toBe(1);
      expect(server.reader.readNow('tools/lookup/1.json', 4096)?.text).toBe(text);
      server.reader.source.close();
      expect(await descriptorsOnFolder()).toBe(0);
    },
  );

  it('is warmed by the preload without an answer kept, a file cached or a call changed', async () => {
    // The preload's made-up call (n: 1, past the schema's minimum) names a real file here.
    expect(sampleArguments(LOOKUP_MANIFEST.capabilities.tools[0]!.inputSchema)).toEqual({ n: 1 });
    const files = { 1: callFileText({ content: [{ type: 'text', text: 'one' }] }, { n: 1 }) };
    const tree = await openTree(files);
    const cachedBefore = tree.server.reader.size;
    warmCutCalls(tree.server);
    warmCutCalls(tree.server);
    expect(tree.server.reader.size).toBe(cachedBefore);
    expect(await tree.ask(callLine('5', 1))).toEqual({
      line: `{"jsonrpc":"2.0","id":5,"result":${serializedResult(files[1])}}`,
      cut: true,
    });
    await tree.close();
  });
  it('sends nothing from the preload, nor switches in a tree rebuilt before it: the next request does', async () => {
    const root = await temporaryFolder('staticmcp-cut-warm-switch-');
    await fs.mkdir(path.join(root, 'tools', 'lookup'), { recursive: true });
    await fs.writeFile(path.join(root, 'mcp.json'), JSON.stringify(LOOKUP_MANIFEST));
    const text = callFileText({ content: [{ type: 'text', text: 'one' }] }, { n: 1 });
    await fs.writeFile(path.join(root, 'tools', 'lookup', '1.json'), text);
    const source = new FolderSource(root, 'lookup');
    const loadedIdentity = readTreeIdentity(root);
    const server = await createNodeServerContext({ source, logProblem: () => {} });
    const sent: unknown[] = [];
    const session = new McpSession(server, (message) => sent.push(message));
    // Every request looks at mcp.json (an interval of 0), asking the clock first.
    let looks = 0;
    attachTreeSwitch(server, {
      treeRoot: root,
      source,
      loadedIdentity,
      checkIntervalMs: 0,
      nowMs: () => {
        looks += 1;
        return Date.now();
      },
      notify: (changes) => session.treeReloaded(changes),
      logProblem: () => {},
    });
    await session.handleParsed(
      { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {} } },
      () => {},
    );
    await session.handleParsed({ jsonrpc: '2.0', method: 'notifications/initialized' }, () => {});
    const rebuilt = structuredClone(LOOKUP_MANIFEST);
    Object.assign(rebuilt.capabilities.tools[0]!, { description: 'rebuilt' });
    await fs.writeFile(path.join(root, 'mcp.json.tmp'), JSON.stringify(rebuilt));
    await fs.rename(path.join(root, 'mcp.json.tmp'), path.join(root, 'mcp.json'));
    const served = server.tree;
    await prepareInputValidators(server);
    const looksBefore = looks;
    warmCutCalls(server);
    warmCutCalls(server);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(looks).toBe(looksBefore);
    expect(sent).toEqual([]);
    expect(server.tree).toBe(served);
    const answer = (await session.handleParsed(parseJsonRpcText(callLine('2', 1)), () => {})) as Record<
      string,
      unknown
    >;
    expect(stringifyJsonRpc(answer)).toBe(`{"jsonrpc":"2.0","id":2,"result":${serializedResult(text)}}`);
    expect(server.tree).not.toBe(served);
    expect(sent).toEqual([{ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }]);
    await session.close(0, 1_000);
    source.close();
  });
});

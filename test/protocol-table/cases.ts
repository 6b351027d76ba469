// One table of request → expected response over the bundled example tree, answered from
// precomputed files only (no live project), so every host must give the same answer: the core
// in-process, stdio, Node HTTP and the edge worker in workerd replay it (protocol-table.test.ts).
import { expect } from 'vitest';

export interface ProtocolResponse {
  jsonrpc: '2.0';
  id: string | number | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/** What the replayed tree carries beyond fixtures/example's own (replay-table.ts is told, never guesses). */
export interface TableTree {
  /** test/fixtures/skills-project's skills, as in the tree the runtimes tier's wrangler and Deno hosts serve. */
  skills?: boolean;
}

export interface ProtocolCase {
  name: string;
  method: string;
  params?: Record<string, unknown>;
  check(response: ProtocolResponse, tree: TableTree): void;
  /** False when the text may name the host (how to get live answers differs on the edge). */
  sameOnEveryHost?: boolean;
  /** Only meaningful on a connection with state (a stateless host starts afresh on every request). */
  needsSession?: boolean;
  /** 2026-07-28: HTTP hosts send it without a session, with the headers mirrored from the body. */
  era?: 'modern';
}

const text = (response: ProtocolResponse): string => {
  const content = response.result?.content as { type: string; text?: string }[] | undefined;
  return content?.map((item) => item.text ?? '').join('') ?? '';
};

export const PROTOCOL_CASES: ProtocolCase[] = [
  {
    name: 'ping answers an empty result',
    method: 'ping',
    check: (response) => expect(response.result).toEqual({}),
  },
  {
    name: 'tools/list without a live project lists only what the tree answers, schemas narrowed to its values',
    method: 'tools/list',
    check: (response) => {
      const tools = response.result?.tools as {
        name: string;
        inputSchema: { type: string; properties: Record<string, { enum?: unknown[] }> };
      }[];
      // counter (stateful) and divide (free numbers) have no precomputed call: only --live answers them.
      // search and fetch answer from the index every build writes of the text resources (issue #25).
      expect(tools.map((tool) => tool.name)).toEqual([
        'capital',
        'greet',
        'math_multiply',
        'word-count',
        'search',
        'fetch',
      ]);
      expect(tools.every((tool) => tool.inputSchema.type === 'object')).toBe(true);
      const byName = new Map(tools.map((tool) => [tool.name, tool.inputSchema.properties]));
      // A free string precomputed for its value list is offered with exactly those values.
      expect(byName.get('capital')?.country?.enum).toEqual([
        'France',
        'Japan',
        'Brazil',
        "Côte d'Ivoire",
        'New Zealand',
      ]);
      expect(byName.get('word-count')?.document?.enum).toEqual(['changelog.md', 'guide.md']);
      // Already finite domains stay as declared.
      expect(byName.get('math_multiply')?.a?.enum).toBeUndefined();
      expect(response.result?.nextCursor).toBeUndefined();
      expect(response.result?._meta).toEqual({ 'staticmcp/total': 6 });
    },
  },
  {
    name: 'a precomputed call answers its file',
    method: 'tools/call',
    params: { name: 'greet', arguments: { language: 'fr' } },
    check: (response) => {
      expect(response.result?.isError).toBeUndefined();
      expect(text(response)).toMatch(/Bonjour/);
    },
  },
  {
    name: 'a call that omits optional arguments is answered with the defaults applied',
    method: 'tools/call',
    params: { name: 'greet', arguments: {} },
    check: (response) => expect(text(response)).toMatch(/Hello/),
  },
  {
    name: 'a precomputed product',
    method: 'tools/call',
    params: { name: 'math_multiply', arguments: { a: 6, b: 7 } },
    check: (response) => expect(text(response).trim()).toBe('42'),
  },
  {
    name: 'a call outside the precomputed domain without a live project is an isError result that says what to do',
    method: 'tools/call',
    params: { name: 'divide', arguments: { a: 1, b: 2 } },
    sameOnEveryHost: false,
    check: (response) => {
      expect(response.result?.isError).toBe(true);
      expect(text(response)).toMatch(/not precomputed.*--live/s);
    },
  },
  {
    name: 'arguments that break the schema are an isError result naming the argument',
    method: 'tools/call',
    params: { name: 'greet', arguments: { language: 'xx' } },
    check: (response) => {
      expect(response.result?.isError).toBe(true);
      expect(text(response)).toMatch(/Invalid arguments for tool greet: arguments\.language must be one of/);
    },
  },
  {
    name: 'search finds a text resource by its words (issue #25: the index every build writes)',
    method: 'tools/call',
    params: { name: 'search', arguments: { query: 'division GREETINGS' } },
    // Each hit's url is made absolute from the origin an HTTP host was asked on (see fetch below).
    sameOnEveryHost: false,
    check: (response) => {
      const { results } = response.result!.structuredContent as { results: { id: string; title: string }[] };
      expect(results.map((hit) => hit.id)).toEqual(['resources/guide_md.json']);
      expect(text(response)).toBe(JSON.stringify(response.result?.structuredContent));
    },
  },
  {
    name: 'fetch answers a document by its id, with its whole text',
    method: 'tools/call',
    params: { name: 'fetch', arguments: { id: 'resources/guide_md.json' } },
    // Its page is the landing page's view, made absolute from the origin an HTTP host was asked
    // on; over stdio and in-process (no publicUrl, no origin) there is none.
    sameOnEveryHost: false,
    check: (response) => {
      expect(response.result?.structuredContent).toMatchObject({
        id: 'resources/guide_md.json',
        text: expect.stringContaining('division runs the script'),
        url: expect.stringMatching(/^(|https?:\/\/[^/]+\/\?doc=resources\/guide_md\.json)$/),
      });
    },
  },
  {
    name: 'an unknown tool is -32602',
    method: 'tools/call',
    params: { name: 'no-such-tool', arguments: {} },
    check: (response) => expect(response.error?.code).toBe(-32602),
  },
  {
    name: 'tools/call without a name is -32602',
    method: 'tools/call',
    params: {},
    check: (response) => expect(response.error?.code).toBe(-32602),
  },
  {
    name: 'a cursor this server never gave out is -32602',
    method: 'tools/list',
    params: { cursor: 'not-a-cursor' },
    check: (response) => expect(response.error?.code).toBe(-32602),
  },
  {
    name: 'resources/list lists the listed resources',
    method: 'resources/list',
    check: (response) => {
      const uris = (response.result!.resources as { uri: string }[]).map((resource) => resource.uri);
      expect(uris).toEqual(
        expect.arrayContaining(['resource://guide.md', 'example://data/planets', 'resource://logo.png']),
      );
      // The state resource is read by running its script: without a live project it is not offered.
      expect(uris).not.toContain('mcpd://counter/state');
    },
  },
  {
    name: 'resources/read of a text resource',
    method: 'resources/read',
    params: { uri: 'resource://guide.md' },
    check: (response) => {
      const [content] = response.result!.contents as [{ uri: string; mimeType: string; text: string }];
      expect(content.uri).toBe('resource://guide.md');
      expect(content.mimeType).toBe('text/markdown');
      expect(content.text.length).toBeGreaterThan(0);
    },
  },
  {
    name: 'resources/read of a binary resource answers base64',
    method: 'resources/read',
    params: { uri: 'resource://logo.png' },
    check: (response) => {
      const [content] = response.result!.contents as [{ mimeType: string; blob: string }];
      expect(content.mimeType).toBe('image/png');
      expect(atob(content.blob).startsWith('\x89PNG')).toBe(true);
    },
  },
  {
    name: 'resources/read of a precomputed template instance',
    method: 'resources/read',
    params: { uri: 'example://planets/mars' },
    check: (response) => {
      const [content] = response.result!.contents as [{ uri: string; text: string }];
      expect(content.uri).toBe('example://planets/mars');
      expect(content.text).toMatch(/Mars/i);
    },
  },
  {
    name: 'resources/read of an unknown URI is -32002',
    method: 'resources/read',
    params: { uri: 'resource://missing.md' },
    check: (response) => expect(response.error?.code).toBe(-32002),
  },
  {
    name: 'resources/templates/list lists the templates',
    method: 'resources/templates/list',
    check: (response) => {
      expect(
        (response.result!.resourceTemplates as { uriTemplate: string }[]).map((template) => template.uriTemplate),
      ).toEqual(['example://planets/{planet}']);
    },
  },
  {
    name: 'prompts/list lists the prompts',
    method: 'prompts/list',
    check: (response) =>
      expect((response.result!.prompts as { name: string }[]).map((prompt) => prompt.name)).toEqual([
        'explain-product',
      ]),
  },
  {
    name: 'prompts/get renders the template with the arguments',
    method: 'prompts/get',
    params: { name: 'explain-product', arguments: { a: '6', b: '7', audience: 'child' } },
    check: (response) => {
      const [message] = response.result!.messages as [{ role: string; content: { type: string; text: string } }];
      expect(message.role).toBe('user');
      expect(message.content.text).toMatch(/6/);
      expect(message.content.text).toMatch(/7/);
    },
  },
  {
    name: 'prompts/get without a required argument is -32602',
    method: 'prompts/get',
    params: { name: 'explain-product', arguments: { a: '6' } },
    check: (response) => expect(response.error?.code).toBe(-32602),
  },
  {
    name: 'completion/complete of a prompt argument',
    method: 'completion/complete',
    params: { ref: { type: 'ref/prompt', name: 'explain-product' }, argument: { name: 'audience', value: 'st' } },
    check: (response) => expect(response.result?.completion).toEqual({ values: ['student'], total: 1, hasMore: false }),
  },
  {
    name: 'completion/complete of a template variable',
    method: 'completion/complete',
    params: {
      ref: { type: 'ref/resource', uri: 'example://planets/{planet}' },
      argument: { name: 'planet', value: 'm' },
    },
    check: (response) =>
      expect(response.result?.completion).toEqual({ values: ['mercury', 'mars'], total: 2, hasMore: false }),
  },
  {
    name: 'a second initialize on an initialized connection is refused, keeping the agreed version',
    needsSession: true,
    method: 'initialize',
    params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'again', version: '1' } },
    check: (response) => {
      expect(response.error?.code).toBe(-32600);
      expect(response.error?.message).toMatch(/already initialized \(protocol version 2025-11-25\)/);
    },
  },
  {
    name: 'an unknown method is -32601',
    method: 'no/such-method',
    check: (response) => expect(response.error?.code).toBe(-32601),
  },
];

// The 2026-07-28 rows of the protocol table: requests that carry their version, capabilities and
// log level in `_meta` and need no handshake. They run on the same connection as the legacy rows
// (stdio: one process answers both eras; HTTP: no session id, headers mirrored from the body), so
// every host must answer each request in its own era and keep serving after the bad ones.
import { expect } from 'vitest';
import type { ProtocolCase, ProtocolResponse } from './cases.js';

export const MODERN_VERSION = '2026-07-28';
export const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'protocol-table', version: '1' },
};
/** The example tree sets no cache.ttlSeconds: the default, five minutes. */
const DEFAULT_TTL_MS = 300_000;

const modern = (params: Record<string, unknown> = {}): Record<string, unknown> => ({ ...params, _meta: MODERN_META });
const text = (response: ProtocolResponse): string =>
  ((response.result?.content as { text?: string }[] | undefined) ?? []).map((item) => item.text ?? '').join('');

function expectComplete(response: ProtocolResponse, cache: 'public' | 'none'): void {
  expect(response.error, JSON.stringify(response.error)).toBeUndefined();
  expect(response.result?.resultType).toBe('complete');
  expect(
    (response.result!._meta as Record<string, { name?: string }>)['io.modelcontextprotocol/serverInfo']?.name,
  ).toBeTypeOf('string');
  if (cache === 'public') {
    expect(response.result?.ttlMs).toBe(DEFAULT_TTL_MS);
    expect(response.result?.cacheScope).toBe('public');
  } else {
    expect(response.result).not.toHaveProperty('ttlMs');
    expect(response.result).not.toHaveProperty('cacheScope');
  }
}

export const MODERN_CASES: ProtocolCase[] = [
  {
    name: 'modern: server/discover lists the modern versions, the capabilities and who we are',
    era: 'modern',
    method: 'server/discover',
    params: modern(),
    check: (response, tree) => {
      expectComplete(response, 'public');
      expect(response.result?.supportedVersions).toEqual([MODERN_VERSION]);
      expect(Object.keys(response.result?.capabilities as object).sort()).toEqual([
        'completions',
        ...(tree.skills ? ['extensions'] : []),
        'logging',
        'prompts',
        'resources',
        'tools',
      ]);
      if (tree.skills)
        expect((response.result!.capabilities as { extensions: object }).extensions).toEqual({
          'io.modelcontextprotocol/skills': { directoryRead: true },
        });
      expect(response.result?.capabilities).toMatchObject({ resources: {} });
      expect((response.result!.capabilities as { resources: object }).resources).not.toHaveProperty('subscribe');
    },
  },
  {
    name: 'modern: tools/list carries resultType, serverInfo and the public cache hints',
    era: 'modern',
    method: 'tools/list',
    params: modern(),
    check: (response) => {
      expectComplete(response, 'public');
      expect((response.result!.tools as { name: string }[]).map((tool) => tool.name)).toContain('greet');
    },
  },
  {
    name: 'modern: a precomputed call is complete and has no cache hints (the schema gives CallToolResult none)',
    era: 'modern',
    method: 'tools/call',
    params: modern({ name: 'greet', arguments: { language: 'fr' } }),
    check: (response) => {
      expectComplete(response, 'none');
      expect(text(response)).toMatch(/Bonjour/);
    },
  },
  {
    name: 'modern: a call nobody precomputed is still an isError result',
    era: 'modern',
    method: 'tools/call',
    params: modern({ name: 'divide', arguments: { a: 1, b: 2 } }),
    sameOnEveryHost: false,
    check: (response) => {
      expect(response.result?.isError).toBe(true);
      expect(response.result?.resultType).toBe('complete');
    },
  },
  {
    name: 'modern: resources/read of a tree file is public for the TTL',
    era: 'modern',
    method: 'resources/read',
    params: modern({ uri: 'resource://guide.md' }),
    check: (response) => {
      expectComplete(response, 'public');
      expect((response.result!.contents as { uri: string }[])[0]?.uri).toBe('resource://guide.md');
    },
  },
  {
    name: 'modern: an unknown resource is -32602 (not the legacy -32002)',
    era: 'modern',
    method: 'resources/read',
    params: modern({ uri: 'resource://missing.md' }),
    check: (response) => expect(response.error?.code).toBe(-32602),
  },
  {
    name: 'modern: resources/list, templates and prompts/list carry cache hints',
    era: 'modern',
    method: 'resources/templates/list',
    params: modern(),
    check: (response) => expectComplete(response, 'public'),
  },
  {
    name: 'modern: prompts/list is cacheable',
    era: 'modern',
    method: 'prompts/list',
    params: modern(),
    check: (response) => expectComplete(response, 'public'),
  },
  {
    name: 'modern: prompts/get is complete without cache hints',
    era: 'modern',
    method: 'prompts/get',
    params: modern({ name: 'explain-product', arguments: { a: '6', b: '7', audience: 'child' } }),
    check: (response) => expectComplete(response, 'none'),
  },
  {
    name: 'modern: completion/complete answers',
    era: 'modern',
    method: 'completion/complete',
    params: modern({
      ref: { type: 'ref/prompt', name: 'explain-product' },
      argument: { name: 'audience', value: 'st' },
    }),
    check: (response) => {
      expectComplete(response, 'none');
      expect((response.result!.completion as { values: string[] }).values.length).toBeGreaterThan(0);
    },
  },
  {
    name: 'modern: subscriptions/listen on a served tree is acknowledged and closed at once (nothing will change)',
    era: 'modern',
    method: 'subscriptions/listen',
    params: modern({ notifications: { toolsListChanged: true, resourceSubscriptions: ['resource://guide.md'] } }),
    check: (response) => {
      expect(response.result?.resultType).toBe('complete');
      expect((response.result!._meta as Record<string, unknown>)['io.modelcontextprotocol/subscriptionId']).toBe(
        response.id,
      );
    },
  },
  ...['ping', 'initialize', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe', 'no/such-method'].map(
    (method): ProtocolCase => ({
      name: `modern: ${method} does not exist in 2026-07-28 (-32601)`,
      era: 'modern',
      method,
      params: modern(
        method === 'logging/setLevel'
          ? { level: 'debug' }
          : method.startsWith('resources/')
            ? { uri: 'resource://guide.md' }
            : {},
      ),
      check: (response) => expect(response.error?.code).toBe(-32601),
    }),
  ),
  {
    name: 'bad input: a _meta version we do not speak is -32022 with supported and requested',
    era: 'modern',
    method: 'tools/list',
    params: { _meta: { ...MODERN_META, 'io.modelcontextprotocol/protocolVersion': '1900-01-01' } },
    check: (response) => {
      expect(response.error?.code).toBe(-32022);
      expect(response.error?.data).toEqual({ supported: [MODERN_VERSION], requested: '1900-01-01' });
    },
  },
  {
    name: 'bad input: _meta without clientCapabilities is -32602',
    era: 'modern',
    method: 'tools/list',
    params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN_VERSION } },
    check: (response) => expect(response.error?.code).toBe(-32602),
  },
  {
    name: 'bad input: server/discover without _meta is -32602',
    era: 'modern',
    method: 'server/discover',
    params: {},
    check: (response) => expect(response.error?.code).toBe(-32602),
  },
  {
    name: 'bad input: a log level that does not exist is -32602',
    era: 'modern',
    method: 'tools/list',
    params: { _meta: { ...MODERN_META, 'io.modelcontextprotocol/logLevel': 'loud' } },
    check: (response) => expect(response.error?.code).toBe(-32602),
  },
  {
    name: 'legacy again after modern requests: no resultType, and -32002 for an unknown resource',
    method: 'resources/read',
    params: { uri: 'resource://missing.md' },
    check: (response) => expect(response.error?.code).toBe(-32002),
  },
  {
    name: 'legacy again: tools/list has none of the modern fields',
    method: 'tools/list',
    check: (response) => {
      expect(response.result).not.toHaveProperty('resultType');
      expect(response.result).not.toHaveProperty('ttlMs');
    },
  },
];

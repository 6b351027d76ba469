// Every MCP method this server answers, one row each: which era has it, what answers it, the
// server capability it needs, whether its modern result carries cache hints, and the body field
// the 2026-07-28 `Mcp-Name` header mirrors. The dispatch of both eras, the lifecycle rule, the
// capability check, the cache hints and the HTTP header check all read these rows, so they cannot
// disagree; `satisfies Record<McpMethod, MethodRow>` makes a method without a row a type error.
// CONTRIBUTING.md "Adding an MCP method" walks through adding one.
import type { RequestContext, ServerContext } from './server-context.js';
import type { JsonObject } from '../tree/json-object.js';

/** The methods this server answers (client → server requests; notifications are not methods here). */
export type McpMethod =
  | 'initialize'
  | 'ping'
  | 'logging/setLevel'
  | 'resources/subscribe'
  | 'resources/unsubscribe'
  | 'server/discover'
  | 'subscriptions/listen'
  | 'tools/list'
  | 'tools/call'
  | 'resources/list'
  | 'resources/templates/list'
  | 'resources/read'
  | 'prompts/list'
  | 'prompts/get'
  | 'completion/complete'
  | 'skills/list'
  | 'skills/get'
  | 'resources/directory/read';

/** A handler of request-handlers.ts (loaded lazily: handler-table.ts). */
export type RequestHandler = (
  server: ServerContext,
  params: JsonObject | undefined,
  request: RequestContext,
) => Promise<JsonObject>;

export interface MethodRow {
  /**
   * `legacy`: only with a handshake (a 2026-07-28 request naming it is -32601, HTTP 404).
   * `modern`: only in 2026-07-28 (a legacy request naming it is -32601; without `_meta` it is
   * malformed, -32602). `both`: either.
   */
  era: 'legacy' | 'modern' | 'both';
  /**
   * Who answers: the export of request-handlers.ts of that name, or `session` for what the
   * session itself answers (mcp-session.ts for the legacy era, modern-dispatch.ts for the modern
   * one; each switches over its own methods, exhaustively).
   */
  handler: string;
  /** Answered before `initialize` agreed a version (the legacy lifecycle); every other method is refused then. */
  beforeInitialize?: true;
  /** The server capability it needs: a modern request for it to a server without it is -32601. */
  capability?: 'tools' | 'resources' | 'prompts' | 'completions' | 'skills';
  /** Its modern result carries `ttlMs` and `cacheScope` (the schema's CacheableResult). */
  cacheable?: true;
  /** The body field the HTTP `Mcp-Name` header mirrors (2026-07-28, SEP-2243). */
  nameField?: 'name' | 'uri';
}

export const METHOD_TABLE = {
  initialize: { era: 'legacy', handler: 'session', beforeInitialize: true },
  ping: { era: 'legacy', handler: 'session', beforeInitialize: true },
  'logging/setLevel': { era: 'legacy', handler: 'session' },
  'resources/subscribe': { era: 'legacy', handler: 'session' },
  'resources/unsubscribe': { era: 'legacy', handler: 'session' },
  'server/discover': { era: 'modern', handler: 'session', cacheable: true },
  'subscriptions/listen': { era: 'modern', handler: 'session' },
  'tools/list': { era: 'both', handler: 'listTools', capability: 'tools', cacheable: true },
  'tools/call': { era: 'both', handler: 'callTool', capability: 'tools', nameField: 'name' },
  'resources/list': { era: 'both', handler: 'listResources', capability: 'resources', cacheable: true },
  'resources/templates/list': {
    era: 'both',
    handler: 'listResourceTemplates',
    capability: 'resources',
    cacheable: true,
  },
  'resources/read': {
    era: 'both',
    handler: 'readResource',
    capability: 'resources',
    cacheable: true,
    nameField: 'uri',
  },
  'prompts/list': { era: 'both', handler: 'listPrompts', capability: 'prompts', cacheable: true },
  'prompts/get': { era: 'both', handler: 'getPrompt', capability: 'prompts', nameField: 'name' },
  'completion/complete': { era: 'both', handler: 'complete', capability: 'completions' },
  // The Skills extension (skill-requests.ts): its capability is `extensions["io.modelcontextprotocol/skills"]`.
  'skills/list': { era: 'both', handler: 'listSkills', capability: 'skills', cacheable: true },
  'skills/get': { era: 'both', handler: 'getSkill', capability: 'skills', cacheable: true },
  // Declared with the extension (`directoryRead: true`): the skill:// folders (skill-directories.ts).
  'resources/directory/read': { era: 'both', handler: 'readResourceDirectory', capability: 'skills' },
} as const satisfies Record<McpMethod, MethodRow>;

type Table = typeof METHOD_TABLE;

/** The request-handlers.ts exports the table names: handler-table.ts checks that each exists. */
export type HandlerName = Exclude<Table[McpMethod]['handler'], 'session'>;

/** The lazily loaded handlers, by name. */
export type Handlers = Readonly<Record<HandlerName, RequestHandler>>;

/** The methods the session answers itself in `era` ('legacy' or 'modern'): its switch must cover them. */
export type SessionMethod<Era extends 'legacy' | 'modern'> = {
  [M in McpMethod]: Table[M]['handler'] extends 'session' ? (Table[M]['era'] extends Era | 'both' ? M : never) : never;
}[McpMethod];

/** One row of the table, its handler name narrowed to the names the table uses. */
export type KnownRow = Table[McpMethod] & MethodRow;

/** A Map, so a method named `constructor` or `__proto__` is just unknown. */
const ROWS: ReadonlyMap<string, KnownRow> = new Map(Object.entries(METHOD_TABLE));

/** The row of a method; undefined for one this server does not know. */
export function methodRow(method: string): KnownRow | undefined {
  return ROWS.get(method);
}

/** Whether a known method exists in this era. */
export function isInEra(row: MethodRow, era: 'legacy' | 'modern'): boolean {
  return row.era === 'both' || row.era === era;
}

/** For a `default:` of a switch that has handled every case: a new case is a type error there. */
export function unhandledMethod(method: never): never {
  throw new Error(`no answer for ${String(method)}`);
}

// The handlers behind tools/*, resources/*, prompts/* and completion/complete, by method, loaded
// on first use (request-handlers.ts): both eras' dispatch look methods up here.
export type Handlers = typeof import('./request-handlers.js');

let handlersLoading: Promise<Handlers> | undefined;
export function loadHandlers(): Promise<Handlers> {
  handlersLoading ??= import('./request-handlers.js');
  return handlersLoading;
}

/** Methods answered by the lazily loaded handlers (a Map: a method named `constructor` is just unknown). */
export const HANDLER_BY_METHOD = new Map<string, keyof Handlers>([
  ['tools/list', 'listTools'],
  ['tools/call', 'callTool'],
  ['resources/list', 'listResources'],
  ['resources/templates/list', 'listResourceTemplates'],
  ['resources/read', 'readResource'],
  ['prompts/list', 'listPrompts'],
  ['prompts/get', 'getPrompt'],
  ['completion/complete', 'complete'],
]);

// What request handling loads on first use, so that start-up does not wait for it: the handlers
// behind tools/*, resources/*, prompts/* and completion/complete (request-handlers.ts; the method
// table, method-table.ts, names which answers what), and the 2026-07-28 dispatch.
// preloadRequestHandling loads them, with the host's schema compiler, once a server is ready and
// before a client needs them.
import { encodeFilename } from '../tree/encode-filename.js';
import { answerCutCallsWith } from './precomputed-answers.js';
import type { Handlers } from './method-table.js';
import type { ServerContext } from './server-context.js';

export type { Handlers };
type ModernEra = [typeof import('./modern-dispatch.js'), typeof import('./modern-listeners.js')];

type LoadedHandlers = Handlers &
  Pick<typeof import('./request-handlers.js'), 'prepareInputValidators' | 'warmCutCalls'>;

let handlersLoading: Promise<LoadedHandlers> | undefined;
export function loadHandlers(): Promise<LoadedHandlers> {
  // `satisfies`: a handler the method table names and request-handlers.ts lacks is a type error.
  handlersLoading ??= import('./request-handlers.js').then((handlers) => {
    answerCutCallsWith(handlers.answerCutCall);
    return handlers satisfies LoadedHandlers;
  });
  return handlersLoading;
}

let modernEraLoading: Promise<ModernEra> | undefined;
/** The 2026-07-28 dispatch and its listeners, loaded once, on the first request of that era. */
export function loadModernEra(): Promise<ModernEra> {
  modernEraLoading ??= Promise.all([import('./modern-dispatch.js'), import('./modern-listeners.js')]);
  return modernEraLoading;
}

/**
 * How long after a session is ready the rest is preloaded: after the lists a client asks for as
 * it connects, before a model has decided on its first tool call (preloading holds the main thread,
 * and a request arriving meanwhile would wait for it).
 */
const PRELOAD_AFTER_MS = 250;

let preloading: Promise<void> | undefined;
/**
 * Loads what the first requests would otherwise wait for: the handlers, the Unicode tables of
 * call keys, the way of an answer cut from a call file (warmCutCalls), every tool's input validator (a schema the host's full compiler takes loads it: ajv's load and meta-schema alone
 * cost more than Node's start), and with `modern`, the 2026-07-28 dispatch. Once per process. A
 * failure is left to the request that meets it.
 */
export function preloadRequestHandling(server: ServerContext, modern: boolean): Promise<void> {
  preloading ??= (async () => {
    const handlers = await loadHandlers();
    await handlers.prepareInputValidators(server);
    // The Unicode tables a call key with a non-ASCII value needs (encode-filename.ts).
    encodeFilename('\u00e9');
    handlers.warmCutCalls(server);
  })().catch(() => undefined);
  if (!modern) return preloading;
  return preloading.then(loadModernEra).then(
    () => undefined,
    () => undefined,
  );
}

let preloadPlanned = false;
/**
 * Runs preloadRequestHandling a moment from now, the first time a session is ready (a stateless
 * HTTP host makes a session per request: only the first plans anything).
 */
export function planPreload(server: ServerContext, modern: boolean): void {
  if (preloadPlanned || server.preloadWhenIdle === false) return;
  preloadPlanned = true;
  const timer: unknown = setTimeout(() => void preloadRequestHandling(server, modern), PRELOAD_AFTER_MS);
  // On Node, a planned preload must not keep the process alive.
  (timer as { unref?: () => void }).unref?.();
}

// A repeated precomputed tool call, answered without going through dispatch again. A session keeps,
// per exact `tools/call` params, the result a precomputed file gave, with the tree, reader and
// file it came from; the next identical call of that session is answered from it while the reader
// still holds that same file, so an evicted or reread file, or a switched or reloaded tree, goes
// the whole way again. Only plain calls qualify: the legacy era, a request alone (not a batch
// entry), params holding nothing but `name` and `arguments` (no progress token, no other _meta),
// and a tree in a local folder (the reader revalidates a downloaded file on its own schedule). It
// keeps no more answers than the reader keeps files. A call with no kept answer is answered from
// its file's bytes at once when it can be (cut-call-answers.ts, once the handlers are loaded).
import { type JsonRpcRequest, resultResponse } from './json-rpc.js';
import type { ProtocolVersion } from './protocol-versions.js';
import type { ServerContext } from './server-context.js';

type Result = Record<string, unknown>;

/** answerCutCall (cut-call-answers.ts), which loads with the handlers: the type, without importing it. */
type CutCallAnswerer = (
  server: ServerContext,
  request: JsonRpcRequest,
  version: ProtocolVersion,
  maxAnswerBytes: number,
) => Result | undefined;

let answerCutCall: CutCallAnswerer | undefined;

/** The keep of an answer that is not kept (already kept, or cut from its file): one function, not one per call. */
const KEEP_NOTHING = (): void => {};

/** Called once the handlers are loaded (handler-table.ts): from then on, lookUp answers calls from their files' bytes. */
export function answerCutCallsWith(answerer: CutCallAnswerer): void {
  answerCutCall = answerer;
}

/** Where a precomputed answer came from: its tree-relative path and the reader's parsed file. */
interface FileAnswered {
  path: string;
  file: unknown;
}

/**
 * Where a result object carries its FileAnswered: a symbol key, which JSON leaves out, and not
 * enumerable, so a copy or comparison of the result (an in-process host's) sees only the answer.
 * Not a WeakMap: one entry per answered call made every garbage collection walk a table of dead keys.
 */
const FILE_ANSWERED = Symbol('staticmcp.fileAnswered');

/** Marks `result` as the answer of the precomputed file at `path`, as the reader gave it (tool-calls.ts). */
export function markPrecomputed<T extends object>(result: T, path: string, file: unknown): T {
  return Object.defineProperty(result, FILE_ANSWERED, { value: { path, file } satisfies FileAnswered });
}

interface KeptAnswer extends FileAnswered {
  server: ServerContext;
  tree: unknown;
  reader: unknown;
  version: ProtocolVersion | undefined;
  result: Result;
}

/** What lookUp found: the response (a kept result, or one cut from the file), or how to keep the one the call is about to get. */
export interface QuickAnswer {
  response?: Result;
  keep(result: unknown): void;
}

export class PrecomputedAnswers {
  private readonly kept = new Map<string, KeptAnswer>();

  /**
   * For a plain tools/call: its kept answer when still good, or one cut from its file now (within
   * the answer cap), or else a way to keep the answer the whole way gives.
   */
  lookUp(
    request: JsonRpcRequest,
    server: ServerContext,
    version: ProtocolVersion | undefined,
    { maxAnswerBytes }: { maxAnswerBytes: number },
  ): QuickAnswer | undefined {
    const params = request.params;
    if (request.method !== 'tools/call' || params === undefined) return undefined;
    for (const name in params) if (name !== 'name' && name !== 'arguments') return undefined;
    // A rebuild may be due to be switched in: the whole way looks for it.
    if (server.treeSwitch?.checkIfDue() !== undefined) return undefined;
    // Made only where it is looked up or kept: a new call cut from its file needs none.
    let key: string | undefined;
    if (this.kept.size > 0) {
      key = JSON.stringify(params);
      const kept = this.kept.get(key);
      if (kept !== undefined && this.isCurrent(kept, server, version))
        return { response: resultResponse(request.id, kept.result), keep: KEEP_NOTHING };
      if (kept !== undefined) this.kept.delete(key);
    }
    const cut = version && answerCutCall?.(server, request, version, maxAnswerBytes);
    if (cut) return { response: cut, keep: KEEP_NOTHING };
    // Taken now: the params are the request's, which the whole way may still change.
    const keptKey = key ?? JSON.stringify(params);
    return { keep: (result) => this.keep(keptKey, server, version, result) };
  }

  private isCurrent(kept: KeptAnswer, server: ServerContext, version: ProtocolVersion | undefined): boolean {
    return (
      kept.server === server &&
      kept.tree === server.tree &&
      kept.reader === server.reader &&
      kept.version === version &&
      server.reader.peek(kept.path) === kept.file
    );
  }

  private keep(key: string, server: ServerContext, version: ProtocolVersion | undefined, result: unknown): void {
    const answered =
      typeof result === 'object' && result !== null
        ? (result as { [FILE_ANSWERED]?: FileAnswered })[FILE_ANSWERED]
        : undefined;
    const { reader } = server;
    // Not (or no longer) held by the reader: nothing would tell this answer is still the file's.
    if (answered === undefined || reader.source.revalidateAfterMs !== undefined) return;
    if (reader.peek(answered.path) !== answered.file) return;
    this.kept.set(key, { ...answered, server, tree: server.tree, reader, version, result: result as Result });
    if (this.kept.size > reader.maxEntries) this.kept.delete(this.kept.keys().next().value as string);
  }
}

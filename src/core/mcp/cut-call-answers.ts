// A precomputed tools/call answered in one synchronous step, its result cut from the call file's
// bytes (core/tree/call-file-text.ts) instead of serialized from a parsed copy. Taken only for
// the plainest requests of an initialized legacy session on a tree read synchronously (a local
// folder), where the whole way (tool-calls.ts) would end in the same file: a tool of our tree
// with nothing to refuse, arguments its compiled validator accepts, a call that could have been
// precomputed, and a file that records exactly these arguments. Everything else, and every file
// that is missing, damaged, larger than the answer may be, or not laid out for cutting, goes the
// whole way, which says what is wrong. The checks are the whole way's: the tree path's rules,
// containment, the regular-file test and the answer's byte cap (the reader and its source), the
// arguments' validation and the recorded-arguments match; the file is parsed, so what is cut
// from it is JSON, and the id is written as the client sent it.
import { applyDefaults, callFilePath } from '../tree/call-key.js';
import { cutCallResult } from '../tree/call-file-text.js';
import { sameJson } from '../tree/canonical-json.js';
import { isObject } from '../tree/json-object.js';
import { readCallFile } from '../tree/lenient-files.js';
import { keepSerialized, stringifyJsonRpc } from './exact-ids.js';
import { type JsonRpcRequest, resultResponse } from './json-rpc.js';
import { couldBePrecomputed } from './precomputable-call.js';
import { LATEST_VERSION, type ProtocolVersion, shapeCallResult } from './protocol-versions.js';
import { peekValidator } from './schema-validators.js';
import type { ServerContext } from './server-context.js';
import { declaredOnly } from './tool-calls.js';

/**
 * The response to a plain `tools/call` (params of `name` and `arguments` only) answered from its
 * call file now, or undefined when it must go the whole way. Its serialized text is kept
 * (exact-ids.ts), so the transport writes the cut bytes.
 */
export function answerCutCall(
  server: ServerContext,
  request: JsonRpcRequest,
  version: ProtocolVersion,
  maxAnswerBytes: number,
): Record<string, unknown> | undefined {
  const params = request.params;
  if (params === undefined) return undefined;
  for (const key in params) if (key !== 'name' && key !== 'arguments') return undefined;
  const { tree } = server;
  const name = params.name;
  const tool = typeof name === 'string' ? tree.toolsByName.get(name) : undefined;
  const extension = tool?.extension;
  if (tool === undefined || extension === undefined || tool.searchTool !== undefined) return undefined;
  const required = extension.requiredClientCapabilities;
  if (required !== undefined && Object.keys(required).length > 0) return undefined;
  const given = params.arguments ?? {};
  if (!isObject(given)) return undefined;
  const validate = peekValidator(tree, `input:${tool.definition.name}`);
  if (validate === undefined || (validate !== null && validate(given).length > 0)) return undefined;
  const withDefaults = declaredOnly(tool, applyDefaults(tool.definition.inputSchema, given));
  if (!couldBePrecomputed(tool, withDefaults)) return undefined;
  // A rebuild due to be switched in: the whole way switches first.
  if (server.treeSwitch?.checkIfDue() !== undefined) return undefined;
  const path = callFilePath(tool.definition.name, extension.parameterOrder, withDefaults);
  const file = server.reader.readNow(path, maxAnswerBytes);
  if (file === undefined) return undefined;
  const { result, recordedArguments } = readCallFile(file.value);
  if (
    recordedArguments === undefined ||
    (!sameJson(recordedArguments, withDefaults) && !sameJson(recordedArguments, declaredOnly(tool, given)))
  )
    return undefined;
  const shaped = shapeCallResult(result, version);
  const response = resultResponse(request.id, shaped);
  // A result the version reshapes is no longer the file's bytes: it is serialized as usual.
  const cut = shaped === result ? cutCallResult(file.text, file.value) : undefined;
  if (cut !== undefined)
    keepSerialized(response, `{"jsonrpc":"2.0","id":${stringifyJsonRpc(request.id)},"result":${cut}}`);
  return response;
}

/** A call file as a build writes it, for warmCutCalls. */
const WARM_FILE_TEXT = '{"content":[{"type":"text","text":"warm"}],"_meta":{"staticmcp/arguments":{}}}\n';

/**
 * Runs the way of a cut answer once on a made-up file, the first tool's validator on its default
 * arguments, and two reads now of its call path (answering nothing: no byte may be taken), so the
 * first call of a new server does not compile each of these functions as it meets them, nor open
 * its tool's folder (bench/first-call.mjs). For the preload (handler-table.ts): nothing is
 * written or cached, and only that one folder is held open.
 */
export function warmCutCalls(server: ServerContext): void {
  const value: unknown = JSON.parse(WARM_FILE_TEXT);
  const { result, recordedArguments } = readCallFile(value);
  sameJson(recordedArguments, {});
  const response = resultResponse(0, shapeCallResult(result, LATEST_VERSION));
  const cut = cutCallResult(WARM_FILE_TEXT, value);
  if (cut !== undefined) keepSerialized(response, `{"jsonrpc":"2.0","id":0,"result":${cut}}`);
  stringifyJsonRpc(response);
  const [tool] = server.tree.toolsByName.values();
  const extension = tool?.extension;
  if (tool === undefined || extension === undefined) return;
  const args = declaredOnly(tool, applyDefaults(tool.definition.inputSchema, {}));
  // The validator's first run (pure: it only answers whether these arguments pass).
  peekValidator(server.tree, `input:${tool.definition.name}`)?.(args);
  const file = callFilePath(tool.definition.name, extension.parameterOrder, args);
  server.reader.readNow(file, 0);
  // Asked twice, the tool's folder is kept open (hosts/node/kept-folders.ts) now: the first call
  // opens its file there at once, instead of opening and proving the folder first.
  server.reader.readNow(file, 0);
}

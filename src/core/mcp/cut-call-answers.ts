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
import { type ProtocolVersion, shapeCallResult } from './protocol-versions.js';
import { peekValidator } from './schema-validators.js';
import type { ServerContext } from './server-context.js';
import { declaredOnly } from './tool-calls.js';

/**
 * The response to a plain `tools/call` (params of `name` and `arguments` only) answered from its
 * call file now, or undefined when it must go the whole way. Its serialized text is kept
 * (exact-ids.ts), so the transport writes the cut bytes. The caller (precomputed-answers.ts) has
 * already looked for a rebuilt tree due to be switched in, and asks only when none is.
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

// What the preload (handler-table.ts) runs so that the first precomputed tools/call of a new server
// does not compile, as it meets them, the functions an answer cut from its call file goes through
// (bench/first-call.mjs): answerCutCall itself, on made-up arguments for the first tool and with no
// room for a byte of the file they name, one byte of a real tree file read and closed the way a call
// file is, and the cutting of a made-up file. Invisible to the protocol: nothing is sent, kept or
// cached, and no look for a rebuilt tree is made (that look may switch trees and notify the client).
import { MANIFEST_FILE } from '../tree/manifest.js';
import { cutCallResult } from '../tree/call-file-text.js';
import { sameJson } from '../tree/canonical-json.js';
import { isObject, type JsonObject } from '../tree/json-object.js';
import { readCallFile } from '../tree/lenient-files.js';
import { answerCutCall } from './cut-call-answers.js';
import { keepSerialized, stringifyJsonRpc } from './exact-ids.js';
import { resultResponse } from './json-rpc.js';
import { LATEST_VERSION, shapeCallResult } from './protocol-versions.js';
import type { ServerContext } from './server-context.js';

/** A call file as a build writes it. */
const WARM_FILE_TEXT = '{"content":[{"type":"text","text":"warm"}],"_meta":{"staticmcp/arguments":{}}}\n';

/**
 * Runs the way of a cut answer before the first call needs it. For the preload only: it holds the
 * main thread for well under a millisecond, reads one byte of `mcp.json` and at most one of a call
 * file, and keeps the first tool's folder open (hosts/node/kept-folders.ts) so that the first call
 * opens its file there at once.
 */
export function warmCutCalls(server: ServerContext): void {
  const value: unknown = JSON.parse(WARM_FILE_TEXT);
  const { result, recordedArguments } = readCallFile(value);
  sameJson(recordedArguments, {});
  const response = resultResponse(0, shapeCallResult(result, LATEST_VERSION));
  const cut = cutCallResult(WARM_FILE_TEXT, value);
  if (cut !== undefined) keepSerialized(response, `{"jsonrpc":"2.0","id":0,"result":${cut}}`);
  stringifyJsonRpc(response);
  // A real file opened, read and closed (in a microtask) as readNow does a call's: zero bytes may be
  // taken, so one is read and nothing is answered or cached.
  server.reader.source.readNow?.(MANIFEST_FILE, 0);
  const [tool] = server.tree.toolsByName.values();
  if (tool?.extension === undefined || tool.searchTool !== undefined) return;
  const request = {
    jsonrpc: '2.0' as const,
    id: 0,
    method: 'tools/call',
    params: { name: tool.definition.name, arguments: sampleArguments(tool.definition.inputSchema) },
  };
  // Twice: a folder asked for twice is kept open. Within zero bytes, every call is answered the whole way.
  answerCutCall(server, request, LATEST_VERSION, 0);
  answerCutCall(server, request, LATEST_VERSION, 0);
}

/**
 * Arguments the schema's own checks are likely to accept (a default, the first allowed value, a
 * bound), so that the made-up call goes as far as a real one: the validator's checks of each
 * property, the call key and the read of its file. Arguments it refuses only warm less.
 */
export function sampleArguments(inputSchema: JsonObject): JsonObject {
  const properties = isObject(inputSchema.properties) ? inputSchema.properties : {};
  const args: JsonObject = {};
  for (const [name, property] of Object.entries(properties)) {
    if (isObject(property)) args[name] = sampleValue(property);
  }
  return args;
}

function sampleValue(property: JsonObject): unknown {
  if ('default' in property) return property.default;
  if (Array.isArray(property.enum) && property.enum.length > 0) return property.enum[0];
  const bound = [property.minimum, property.exclusiveMinimum].find((value) => typeof value === 'number');
  switch (property.type) {
    case 'integer':
      return typeof bound === 'number' ? Math.floor(bound) + 1 : 1;
    case 'number':
      return typeof bound === 'number' ? bound + 1 : 1;
    case 'string':
      return 'a'.repeat(typeof property.minLength === 'number' ? Math.min(property.minLength, 64) : 1);
    case 'boolean':
      return false;
    default:
      return null;
  }
}

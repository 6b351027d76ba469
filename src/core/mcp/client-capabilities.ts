// What a request's client declared it can do, and what a call needs from it: the capability each
// server→client question needs (sampling, elicitation, roots), and MCP 2026-07-28's
// MissingRequiredClientCapabilityError (-32021) for a tool whose metadata names capabilities the
// request did not declare. Pure and portable: every host (Node, the edge worker) refuses alike.
import { RpcError } from './json-rpc.js';
import { isObject, type JsonObject } from '../tree/json-object.js';

/** MissingRequiredClientCapabilityError (2026-07-28); HTTP answers it with 400. */
export const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;

/** The client capability a script's question needs, by the method it asks. */
export const CLIENT_CAPABILITY_BY_METHOD: ReadonlyMap<string, string> = new Map([
  ['sampling/createMessage', 'sampling'],
  ['elicitation/create', 'elicitation'],
  ['roots/list', 'roots'],
]);

/**
 * The part of `required` that `declared` lacks, as a ClientCapabilities object (`{"sampling": {}}`);
 * empty when nothing is missing. A nested requirement (`{"elicitation": {"url": {}}}`) needs the
 * nested declaration too. Values that are not objects in `required` are ignored (a lenient tree).
 */
export function findMissingCapabilities(required: unknown, declared: unknown): JsonObject {
  if (!isObject(required)) return {};
  const have = isObject(declared) ? declared : {};
  const missing: JsonObject = {};
  for (const [name, need] of Object.entries(required)) {
    if (!isObject(need)) continue;
    if (!isObject(have[name])) {
      missing[name] = need;
      continue;
    }
    const deeper = findMissingCapabilities(need, have[name]);
    if (Object.keys(deeper).length > 0) missing[name] = deeper;
  }
  return missing;
}

/** The -32021 error for a tool call whose client lacks `missing` (data.requiredCapabilities). */
export function missingCapabilityError(toolName: string, missing: JsonObject): RpcError {
  const names = Object.keys(missing).join(', ');
  return new RpcError(
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    `Missing required client capability: tool ${toolName} needs ${names}, which the client did not declare`,
    { requiredCapabilities: missing },
  );
}

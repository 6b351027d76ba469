// The JSON object type and its guard, shared by every layer (portable: the core and the edge host use it).

export type JsonObject = Record<string, unknown>;

/** True for a plain JSON object: not null, not an array. */
export function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

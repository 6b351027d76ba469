// The shape of one thing `staticmcp check` finds wrong, and the helpers every part of the check
// uses to name a place and say what to do.
import { isObject, type JsonObject } from '../core/tree/json-object.js';
import { MANIFEST_FILE } from '../core/tree/manifest.js';

export interface TreeProblem {
  /** A tree-relative file, or a place in the manifest as `mcp.json#/json/pointer`. */
  path: string;
  /** What is wrong. */
  message: string;
  /** What to do about it. */
  hint: string;
}

/** Records one problem. */
export type Report = (path: string, message: string, hint: string) => void;

export const REBUILD = 'rebuild the tree with staticmcp build';

/** A place in the manifest, as a JSON Pointer. */
export function at(...parts: (string | number)[]): string {
  return `${MANIFEST_FILE}#/${parts.map((part) => String(part).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
}

export interface CheckCounts {
  tools: number;
  resources: number;
  resourceTemplates: number;
  prompts: number;
  callFiles: number;
  /** Files that went into the content hash (0 when it was not recomputed). */
  hashedFiles: number;
}

/** A manifest's list (`tools`, `resources`, …), under `capabilities` or at the top level. */
export function listOf(manifest: JsonObject, key: string): unknown[] {
  const capabilities = isObject(manifest.capabilities) ? manifest.capabilities : {};
  const list = Array.isArray(capabilities[key]) ? capabilities[key] : manifest[key];
  return Array.isArray(list) ? list : [];
}

/** Where that list is, as JSON Pointer parts. */
export function listPath(manifest: JsonObject, key: string): (string | number)[] {
  const capabilities = isObject(manifest.capabilities) ? manifest.capabilities : {};
  return Array.isArray(capabilities[key]) || !Array.isArray(manifest[key]) ? ['capabilities', key] : [key];
}

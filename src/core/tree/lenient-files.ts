// Reading call files and resource files leniently: our own shapes, the shapes other StaticMCP
// generators write, and plain JSON (wrapped as text), so any tree serves.
import { ARGUMENTS_META_KEY } from './manifest.js';
import { isObject, type JsonObject } from './json-object.js';

export interface ReadCallFile {
  /** The CallToolResult to send, internal `_meta` keys removed. */
  result: JsonObject;
  /** The arguments the file says it answers, when it records them. */
  recordedArguments?: JsonObject;
}

/** Resource contents (`{uri, mimeType, text|blob}`) → MCP content items. */
function contentsToContent(contents: unknown[]): JsonObject[] {
  return contents.map((item) => {
    if (isObject(item) && typeof item.text === 'string') return { type: 'text', text: item.text };
    if (isObject(item) && typeof item.blob === 'string') return { type: 'resource', resource: item };
    return { type: 'text', text: typeof item === 'string' ? item : JSON.stringify(item, null, 2) };
  });
}

export function readCallFile(value: unknown): ReadCallFile {
  if (isObject(value) && Array.isArray(value.content)) {
    const { _meta, ...rest } = value;
    let recordedArguments: JsonObject | undefined;
    const result: JsonObject = rest;
    if (isObject(_meta)) {
      const { [ARGUMENTS_META_KEY]: recorded, ...otherMeta } = _meta;
      if (isObject(recorded)) recordedArguments = recorded;
      if (Object.keys(otherMeta).length > 0) result._meta = otherMeta;
    }
    return { result, recordedArguments };
  }
  if (isObject(value) && Array.isArray(value.contents)) {
    return {
      result: { content: contentsToContent(value.contents), ...(value.isError === true ? { isError: true } : {}) },
    };
  }
  return {
    result: { content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value, null, 2) }] },
  };
}

/** A resource file → the `contents` of a ReadResourceResult for `uri`. */
export function readResourceFile(value: unknown, uri: string, mimeType: string | undefined): JsonObject[] {
  if (isObject(value) && Array.isArray(value.contents)) {
    return value.contents.filter(isObject).map((item) => ({ uri, ...(mimeType ? { mimeType } : {}), ...item }));
  }
  if (isObject(value) && (typeof value.text === 'string' || typeof value.blob === 'string')) {
    const content: JsonObject = {
      uri,
      mimeType: typeof value.mimeType === 'string' ? value.mimeType : (mimeType ?? 'text/plain'),
    };
    if (typeof value.text === 'string') content.text = value.text;
    else content.blob = value.blob;
    // An MCP App's page carries its `_meta.ui` (CSP, domain, border) here, where hosts read it.
    if (isObject(value._meta)) content._meta = value._meta;
    return [content];
  }
  return [{ uri, mimeType: 'application/json', text: JSON.stringify(value, null, 2) }];
}

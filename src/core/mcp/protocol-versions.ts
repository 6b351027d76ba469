// The MCP protocol versions the bridge speaks, and what each one knows: a field a negotiated
// version does not define is left out of what we send (an older client may reject it). Two eras:
// the legacy versions are agreed once by `initialize` (per connection or HTTP session); the modern
// ones are named by every request in its `_meta` and answered statelessly (see request-meta.ts).

/** Versions `initialize` can agree on (and the MCP-Protocol-Version header of a legacy session). */
export const SUPPORTED_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
export type LegacyVersion = (typeof SUPPORTED_VERSIONS)[number];
/** Versions a request may name in `_meta` (`io.modelcontextprotocol/protocolVersion`), newest first. */
export const MODERN_VERSIONS = ['2026-07-28'] as const;
export type ModernVersion = (typeof MODERN_VERSIONS)[number];
export type ProtocolVersion = LegacyVersion | ModernVersion;
/** The newest version `initialize` agrees on (an initialize naming a modern version gets this). */
export const LATEST_VERSION: LegacyVersion = '2025-11-25';

/** Echo a legacy version we speak; anything else is answered with the latest (the client then decides). */
export function negotiateVersion(requested: unknown): LegacyVersion {
  return (SUPPORTED_VERSIONS as readonly unknown[]).includes(requested) ? (requested as LegacyVersion) : LATEST_VERSION;
}

export function isModernVersion(version: unknown): version is ModernVersion {
  return (MODERN_VERSIONS as readonly unknown[]).includes(version);
}

/** Versions compare as dates, so string order is release order. */
export function versionAtLeast(version: ProtocolVersion, minimum: ProtocolVersion): boolean {
  return version >= minimum;
}

/** Batches were added in 2025-03-26 and removed in 2025-06-18. */
export function acceptsBatches(version: ProtocolVersion | undefined): boolean {
  return version === '2025-03-26';
}

type Shape = Record<string, ProtocolVersion>;

/** Fields per object kind that appeared after 2024-11-05, with the version that introduced them. */
const TOOL_FIELDS: Shape = {
  annotations: '2025-03-26',
  title: '2025-06-18',
  outputSchema: '2025-06-18',
  _meta: '2025-06-18',
  icons: '2025-11-25',
  execution: '2025-11-25',
};
const RESOURCE_FIELDS: Shape = { size: '2025-03-26', title: '2025-06-18', _meta: '2025-06-18', icons: '2025-11-25' };
const TEMPLATE_FIELDS: Shape = { title: '2025-06-18', _meta: '2025-06-18', icons: '2025-11-25' };
const PROMPT_FIELDS: Shape = { title: '2025-06-18', _meta: '2025-06-18', icons: '2025-11-25' };
const SERVER_INFO_FIELDS: Shape = {
  title: '2025-06-18',
  description: '2025-11-25',
  icons: '2025-11-25',
  websiteUrl: '2025-11-25',
};
const CALL_RESULT_FIELDS: Shape = { structuredContent: '2025-06-18' };
/** Content types newer than 2024-11-05 (text, image and resource are always known). */
const CONTENT_TYPES: Shape = { audio: '2025-03-26', resource_link: '2025-06-18' };

function dropNewerFields<T extends object>(value: T, shape: Shape, version: ProtocolVersion): T {
  let copy: Record<string, unknown> | undefined;
  // for…in, not Object.entries: no array per answer (a shape is a plain literal of its own fields).
  for (const field in shape) {
    if (field in value && !versionAtLeast(version, shape[field]!)) {
      copy ??= { ...(value as Record<string, unknown>) };
      delete copy[field];
    }
  }
  return (copy ?? value) as T;
}

export function shapeTool<T extends object>(tool: T, version: ProtocolVersion): T {
  return dropNewerFields(tool, TOOL_FIELDS, version);
}

export function shapeResource<T extends object>(resource: T, version: ProtocolVersion): T {
  return dropNewerFields(resource, RESOURCE_FIELDS, version);
}

export function shapeTemplate<T extends object>(template: T, version: ProtocolVersion): T {
  return dropNewerFields(template, TEMPLATE_FIELDS, version);
}

export function shapePrompt<T extends object>(prompt: T, version: ProtocolVersion): T {
  return dropNewerFields(prompt, PROMPT_FIELDS, version);
}

/** The `completions` capability appeared in 2025-03-26 (the method itself is older). */
export function knowsCompletionsCapability(version: ProtocolVersion): boolean {
  return versionAtLeast(version, '2025-03-26');
}

export function shapeServerInfo<T extends object>(info: T, version: ProtocolVersion): T {
  return dropNewerFields(info, SERVER_INFO_FIELDS, version);
}

/** A content block for this version: a type the version does not know becomes text that says what it was. */
export function shapeContentBlock(item: unknown, version: ProtocolVersion): unknown {
  if (!item || typeof item !== 'object') return item;
  const type = (item as { type?: unknown }).type;
  const since = typeof type === 'string' ? CONTENT_TYPES[type] : undefined;
  if (since === undefined || versionAtLeast(version, since)) return item;
  // An older client cannot show this content type: say what it was rather than drop it silently.
  const link = item as { uri?: string; name?: string; mimeType?: string };
  return {
    type: 'text',
    text:
      type === 'resource_link'
        ? `[resource ${link.uri ?? ''}]`
        : `[${String(type)} content (${link.mimeType ?? 'unknown type'}) not shown: it needs a newer protocol version]`,
  };
}

/** A CallToolResult for this version: newer fields dropped, newer content types turned into text. */
export function shapeCallResult(result: Record<string, unknown>, version: ProtocolVersion): Record<string, unknown> {
  const shaped = dropNewerFields(result, CALL_RESULT_FIELDS, version);
  const blocks = shaped.content;
  if (!Array.isArray(blocks)) return shaped;
  // A new array only once a block changes: most results keep every block as it is.
  for (let index = 0; index < blocks.length; index += 1) {
    if (shapeContentBlock(blocks[index], version) === blocks[index]) continue;
    return { ...shaped, content: blocks.map((item: unknown) => shapeContentBlock(item, version)) };
  }
  return shaped;
}

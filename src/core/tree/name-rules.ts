// What a tool, prompt or resource may be called, in one place: the project's readers check what
// users write against these (as RegExps or as the JSON Schema fragments below), the build derives
// tool names inside them, and `staticmcp check` holds any tree to them. Portable (plain data), so
// the core can use them too.

/**
 * Tool names: MCP clients reject a whole server when one tool name breaks this, so a tree of ours
 * never holds one and `check` reports one in anyone's tree.
 */
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
export const MAX_TOOL_NAME_LENGTH = 64;
/** TOOL_NAME in words, for messages. */
export const TOOL_NAME_IN_WORDS = 'letters, digits, _ and - (at most 64 characters)';

/**
 * Prompt names may also hold dots (`review.code`, as mcp-bash projects name them), but not first,
 * so the file a prompt is stored in is never hidden.
 */
export const PROMPT_NAME = /^[a-zA-Z0-9_-][a-zA-Z0-9_.-]{0,63}$/;
/** PROMPT_NAME in words, for messages. */
export const PROMPT_NAME_IN_WORDS = 'letters, digits, _ - and dots, not first; at most 64 characters';

/** A resource's URI must be absolute: a scheme (RFC 3986 §3.1) and a colon first. */
export const URI_WITH_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/** The same rules as JSON Schema properties, for the validators of sidecars and register.json. */
export const TOOL_NAME_SCHEMA = { type: 'string', pattern: TOOL_NAME.source } as const;
export const PROMPT_NAME_SCHEMA = { type: 'string', pattern: PROMPT_NAME.source } as const;
/** Resource names are free text (a resource is identified by its URI): only an empty one is refused. */
export const RESOURCE_NAME_SCHEMA = { type: 'string', minLength: 1 } as const;
export const RESOURCE_URI_SCHEMA = { type: 'string', pattern: URI_WITH_SCHEME.source } as const;

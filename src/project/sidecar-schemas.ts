// The JSON Schemas of a project's own metadata files: tool, resource and prompt sidecars,
// `ui.meta.json`, and the entries of `server.d/register.json`. Data only: sidecar-validators.ts
// checks files against them, and scripts/compile-validators.mjs compiles them ahead of time.
// Every length bound here is "not empty" (minLength 1): the ahead-of-time compile counts string
// length in UTF-16 units, which agrees with ajv's code points only for that bound (the script
// refuses any other).
import { OUTPUT_FORMATS } from '../core/results/mcp-output.js';
import {
  PROMPT_NAME_SCHEMA,
  RESOURCE_NAME_SCHEMA,
  RESOURCE_URI_SCHEMA,
  TOOL_NAME_SCHEMA,
} from '../core/tree/name-rules.js';

export const CSP_KEYS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const;
const PERMISSIONS = ['camera', 'microphone', 'geolocation', 'clipboardWrite'] as const;

/** `<script>.meta.json`, merged over the extra keys of the script's `--help` JSON (tool-meta.ts). */
const toolMeta = {
  type: 'object',
  properties: {
    name: TOOL_NAME_SCHEMA,
    title: { type: 'string' },
    description: { type: 'string' },
    version: { type: 'string' },
    state: { type: 'boolean' },
    inputSchema: {
      type: 'object',
      required: ['type'],
      properties: { type: { const: 'object' }, properties: { type: 'object' } },
    },
    outputSchema: { type: 'object', required: ['type'], properties: { type: { const: 'object' } } },
    annotations: { type: 'object' },
    icons: {
      type: 'array',
      items: { type: 'object', required: ['src'], properties: { src: { type: 'string', minLength: 1 } } },
    },
    timeoutSecs: { type: 'number', exclusiveMinimum: 0 },
    precompute: { type: 'boolean' },
    outputFormat: { enum: OUTPUT_FORMATS },
    requiredClientCapabilities: { type: 'object', additionalProperties: { type: 'object' } },
    inputs: { type: 'array', items: { type: 'string', minLength: 1 } },
    values: {
      type: 'object',
      additionalProperties: {
        oneOf: [
          { type: 'array' },
          {
            type: 'object',
            required: ['command'],
            additionalProperties: false,
            properties: { command: { type: 'string', minLength: 1 } },
          },
        ],
      },
    },
  },
};

/** A resource's `.meta.json` (discover-resources.ts). */
const resourceSidecar = {
  type: 'object',
  properties: {
    name: RESOURCE_NAME_SCHEMA,
    title: { type: 'string' },
    description: { type: 'string' },
    uri: RESOURCE_URI_SCHEMA,
    uriTemplate: { type: 'string' },
    mimeType: { type: 'string', pattern: '^[^/\\s]+/[^/\\s]+$' },
    url: { type: 'string' },
  },
};

/** A prompt's `.meta.json`, or the same keys inline in a message prompt (discover-prompts.ts). */
const promptMeta = {
  type: 'object',
  properties: {
    name: PROMPT_NAME_SCHEMA,
    title: { type: 'string' },
    description: { type: 'string' },
    role: { enum: ['user', 'assistant'] },
    arguments: {
      type: 'object',
      properties: {
        type: { const: 'object' },
        properties: { type: 'object' },
        required: { type: 'array', items: { type: 'string' } },
      },
    },
  },
};

/** ui.meta.json as mcp-bash writes it (its `template`s are refused with a clear reason, below). */
const uiMeta = {
  type: 'object',
  additionalProperties: false,
  properties: {
    // The resource's name only: the URI comes from the tool or the folder.
    name: { type: 'string', minLength: 1 },
    title: { type: 'string' },
    description: { type: 'string' },
    entrypoint: { type: 'string', pattern: '^[^/\\\\]+\\.html?$' },
    template: { type: 'string' },
    config: { type: 'object' },
    meta: {
      type: 'object',
      additionalProperties: false,
      properties: {
        csp: {
          type: 'object',
          additionalProperties: false,
          properties: Object.fromEntries(CSP_KEYS.map((key) => [key, { type: 'array', items: { type: 'string' } }])),
        },
        permissions: {
          type: 'object',
          additionalProperties: false,
          properties: Object.fromEntries(PERMISSIONS.map((key) => [key, { type: 'object' }])),
        },
        prefersBorder: { type: 'boolean' },
        domain: { type: 'string' },
        // mcp-bash's name for `domain` (null: the host's default).
        sandboxDomain: { type: ['string', 'null'] },
      },
    },
  },
};

const RELATIVE_PATH = { type: 'string', minLength: 1 };
/** An entry of each kind in `server.d/register.json` (register-json.ts; resourceTemplates are checked by their reader). */
const registerEntries = {
  tools: {
    type: 'object',
    required: ['name', 'path'],
    properties: {
      name: TOOL_NAME_SCHEMA,
      path: RELATIVE_PATH,
      title: { type: 'string' },
      description: { type: 'string' },
      inputSchema: { type: 'object' },
      outputSchema: { type: 'object' },
      annotations: { type: 'object' },
      icons: { type: 'array' },
      timeoutSecs: { type: 'number', exclusiveMinimum: 0 },
      precompute: { type: 'boolean' },
      inputs: { type: 'array', items: { type: 'string' } },
      values: { type: 'object' },
    },
  },
  resources: {
    type: 'object',
    required: ['name', 'uri', 'path'],
    properties: {
      name: RESOURCE_NAME_SCHEMA,
      uri: RESOURCE_URI_SCHEMA,
      path: RELATIVE_PATH,
      title: { type: 'string' },
      description: { type: 'string' },
      mimeType: { type: 'string' },
    },
  },
  prompts: {
    type: 'object',
    required: ['name', 'path'],
    properties: {
      name: PROMPT_NAME_SCHEMA,
      path: RELATIVE_PATH,
      title: { type: 'string' },
      description: { type: 'string' },
      arguments: { type: 'object' },
      role: { enum: ['user', 'assistant'] },
    },
  },
  // Two shapes: a static list `{ref, argument, values}`, or mcp-bash's script-backed provider
  // `{name, path, timeoutSecs?}` (a script under the project root that computes completions for
  // the prompt, resource template or tool of that name).
  completions: {
    oneOf: [
      {
        type: 'object',
        required: ['ref', 'argument', 'values'],
        properties: {
          ref: {
            oneOf: [
              {
                type: 'object',
                required: ['type', 'name'],
                properties: { type: { const: 'ref/prompt' }, name: { type: 'string' } },
              },
              {
                type: 'object',
                required: ['type', 'uri'],
                properties: { type: { const: 'ref/resource' }, uri: { type: 'string' } },
              },
              {
                type: 'object',
                required: ['type', 'name'],
                properties: { type: { const: 'ref/tool' }, name: { type: 'string' } },
              },
            ],
          },
          argument: { type: 'string', minLength: 1 },
          values: { type: 'array', items: { type: 'string' } },
        },
      },
      {
        type: 'object',
        required: ['name', 'path'],
        properties: {
          name: { type: 'string', minLength: 1 },
          path: RELATIVE_PATH,
          timeoutSecs: { type: 'number', exclusiveMinimum: 0, maximum: 300 },
        },
        not: { anyOf: [{ required: ['ref'] }, { required: ['values'] }] },
      },
    ],
  },
};

/** Each schema by the name sidecar-validators.ts and the compiled file know it by. */
export const SIDECAR_SCHEMAS = {
  toolMeta,
  resourceSidecar,
  promptMeta,
  uiMeta,
  registerTools: registerEntries.tools,
  registerResources: registerEntries.resources,
  registerPrompts: registerEntries.prompts,
  registerCompletions: registerEntries.completions,
} as const;

export type SidecarSchemaName = keyof typeof SIDECAR_SCHEMAS;

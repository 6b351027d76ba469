// The JSON Schemas of a script's two `--help` documents (script convention): stdout, the metadata,
// and stderr, the options. Data only: scripts/compile-validators.mjs compiles them ahead of time
// for read-help.ts.

export const HELP_METADATA_SCHEMA = {
  type: 'object',
  properties: {
    title: { type: 'string' },
    description: { type: 'string' },
    version: { type: 'string' },
    state: { type: 'boolean' },
    precompute: { type: 'boolean' },
    timeoutSecs: { type: 'number', exclusiveMinimum: 0 },
    outputFormat: { enum: ['text', 'mcp'] },
    // The client capabilities a call cannot do without (e.g. {"sampling": {}}): -32021 when undeclared.
    requiredClientCapabilities: { type: 'object', additionalProperties: { type: 'object' } },
  },
};

export const HELP_OPTIONS_SCHEMA = {
  type: 'object',
  additionalProperties: {
    type: 'object',
    required: ['value_type'],
    properties: {
      description: { type: 'string' },
      required: { type: 'boolean' },
      value_type: {
        oneOf: [
          { enum: ['string', 'integer', 'float', 'boolean', 'any'] },
          {
            type: 'object',
            required: ['enum'],
            additionalProperties: false,
            properties: { enum: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string' } } },
          },
        ],
      },
      size: {
        type: 'object',
        additionalProperties: false,
        properties: { min: { type: 'number' }, max: { type: 'number' } },
      },
    },
  },
};

// Script options (script convention) → the MCP tool's `inputSchema` (JSON Schema), as DESIGN.md maps them.
import type { ScriptOption } from './read-help.js';
import type { ToolDefinition } from '../core/tree/manifest.js';

function propertyFor(option: ScriptOption): Record<string, unknown> {
  const property: Record<string, unknown> = {};
  const { valueType, size } = option;
  if (typeof valueType === 'object') {
    property.type = 'string';
    property.enum = [...valueType.enum];
  } else if (valueType === 'string') {
    property.type = 'string';
    if (size?.min !== undefined) property.minLength = size.min;
    if (size?.max !== undefined) property.maxLength = size.max;
  } else if (valueType === 'integer' || valueType === 'float') {
    property.type = valueType === 'integer' ? 'integer' : 'number';
    if (size?.min !== undefined) property.minimum = size.min;
    if (size?.max !== undefined) property.maximum = size.max;
  } else if (valueType === 'boolean') {
    property.type = 'boolean';
  }
  if (option.description !== undefined) property.description = option.description;
  if (!option.required && option.defaultValue !== undefined) property.default = option.defaultValue;
  return property;
}

/** Properties in declaration order; `required` in declaration order too, so output is stable. */
export function optionsToInputSchema(options: readonly ScriptOption[]): ToolDefinition['inputSchema'] {
  const properties: Record<string, Record<string, unknown>> = {};
  for (const option of options) properties[option.name] = propertyFor(option);
  const required = options.filter((option) => option.required).map((option) => option.name);
  return required.length > 0 ? { type: 'object', properties, required } : { type: 'object', properties };
}

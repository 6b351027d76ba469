// Which values each parameter of a tool can take at build time (pure): finite domains are
// enumerated, optional parameters otherwise take their default, and a required parameter with
// an infinite domain makes precomputing impossible.

export interface ParameterSchema {
  type?: unknown;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  default?: unknown;
}

export interface DomainInput {
  properties: Record<string, ParameterSchema>;
  required: readonly string[];
  /** Value lists from config or meta, already resolved to arrays. */
  valueLists: Record<string, unknown[]>;
  maxIntegerRange: number;
}

export type ParameterDomain =
  | { kind: 'enumerated'; values: unknown[] }
  | { kind: 'default'; values: unknown[] }
  | { kind: 'omitted' }
  | { kind: 'infinite'; reason: string };

function typeOf(schema: ParameterSchema): string | undefined {
  return typeof schema.type === 'string' ? schema.type : undefined;
}

export function findParameterDomain(name: string, schema: ParameterSchema, input: DomainInput): ParameterDomain {
  const valueList = input.valueLists[name];
  if (valueList) return { kind: 'enumerated', values: valueList };
  if (Array.isArray(schema.enum)) return { kind: 'enumerated', values: [...schema.enum] };
  const type = typeOf(schema);
  if (type === 'boolean') return { kind: 'enumerated', values: [false, true] };
  if (type === 'integer' && Number.isFinite(schema.minimum) && Number.isFinite(schema.maximum)) {
    const low = Math.ceil(schema.minimum!);
    const high = Math.floor(schema.maximum!);
    const size = high - low + 1;
    if (size >= 0 && size <= input.maxIntegerRange) {
      return { kind: 'enumerated', values: Array.from({ length: size }, (_, index) => low + index) };
    }
  }
  if (!input.required.includes(name)) {
    return 'default' in schema ? { kind: 'default', values: [schema.default] } : { kind: 'omitted' };
  }
  return {
    kind: 'infinite',
    reason: `parameter "${name}" is required and has no finite domain (give it a value list under tools.<tool>.values in staticmcp.json)`,
  };
}

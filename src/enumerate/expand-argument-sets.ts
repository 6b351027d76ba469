// Expands parameter domains into argument sets (pure), counting the cartesian product first so a
// huge domain is refused before a single set is built. The sets are generated lazily, one at a
// time: a build of a million calls never holds a million argument objects.
import { formatCount } from '../shared/format-count.js';
import { findParameterDomain, type DomainInput, type ParameterDomain } from './parameter-domains.js';

export type Enumeration =
  | {
      precomputable: true;
      /** How many sets `argumentSets()` yields. */
      count: number;
      /** Every set, generated on demand (a new generator per call). */
      argumentSets: () => Generator<Record<string, unknown>>;
      /** Where `args` comes in `argumentSets()` (-1 when it does not): which of two sets is first. */
      positionOf: (args: Record<string, unknown>) => number;
      /** The values each enumerated parameter takes, in order. */
      values: Record<string, readonly unknown[]>;
      enumerated: string[];
    }
  | { precomputable: false; reason: string; enumerated: string[]; count?: number };

export function countArgumentSets(domains: readonly ParameterDomain[]): number {
  let count = 1;
  for (const domain of domains) {
    if (domain.kind === 'infinite') return Infinity;
    if (domain.kind !== 'omitted') count *= domain.values.length;
  }
  return count;
}

/** One parameter of the product and the values it takes, in order. */
interface Column {
  name: string;
  values: readonly unknown[];
}

/** The cartesian product as an odometer: the last parameter turns fastest. */
function* generateProduct(columns: readonly Column[]): Generator<Record<string, unknown>> {
  if (columns.some((column) => column.values.length === 0)) return;
  const positions = columns.map(() => 0);
  while (true) {
    const args: Record<string, unknown> = {};
    columns.forEach((column, index) => {
      args[column.name] = column.values[positions[index]!];
    });
    yield args;
    let turning = columns.length - 1;
    for (; turning >= 0; turning--) {
      // positions and columns have the same length, and turning is within it.
      const next = positions[turning]! + 1;
      if (next < columns[turning]!.values.length) {
        positions[turning] = next;
        break;
      }
      positions[turning] = 0;
    }
    if (turning < 0) return;
  }
}

/** The odometer reading of `args`: value indexes looked up by their JSON, built on first use. */
function createPositionOf(columns: readonly Column[]): (args: Record<string, unknown>) => number {
  let indexes: Map<string, number>[] | undefined;
  return (args) => {
    indexes ??= columns.map((column) => {
      const byJson = new Map<string, number>();
      column.values.forEach((value, index) => {
        if (!byJson.has(JSON.stringify(value))) byJson.set(JSON.stringify(value), index);
      });
      return byJson;
    });
    const byColumn = indexes;
    let position = 0;
    for (const [index, column] of columns.entries()) {
      const found = byColumn[index]!.get(JSON.stringify(args[column.name]));
      if (found === undefined) return -1;
      position = position * column.values.length + found;
    }
    return position;
  };
}

/** Every argument set for the parameters in declaration order; the first parameter varies slowest. */
export function expandArgumentSets(input: DomainInput, maxArgumentSets: number): Enumeration {
  const parameters = Object.entries(input.properties).map(([name, schema]) => ({
    name,
    domain: findParameterDomain(name, schema, input),
  }));
  const domains = parameters.map((parameter) => parameter.domain);
  const enumerated = parameters.filter((parameter) => parameter.domain.kind === 'enumerated').map(({ name }) => name);
  const infinite = domains.find((domain) => domain.kind === 'infinite');
  if (infinite && infinite.kind === 'infinite') return { precomputable: false, reason: infinite.reason, enumerated };
  const count = countArgumentSets(domains);
  if (count > maxArgumentSets) {
    return {
      precomputable: false,
      reason: `${formatCount(count)} argument sets exceed the limit of ${formatCount(maxArgumentSets)} (raise limits.maxCallsPerTool in staticmcp.json, or shorten value lists)`,
      enumerated,
      count,
    };
  }
  const columns: Column[] = [];
  const enumeratedValues: [string, readonly unknown[]][] = [];
  for (const { name, domain } of parameters) {
    if (domain.kind === 'omitted' || domain.kind === 'infinite') continue;
    columns.push({ name, values: domain.values });
    if (domain.kind === 'enumerated') enumeratedValues.push([name, domain.values]);
  }
  return {
    precomputable: true,
    count,
    argumentSets: () => generateProduct(columns),
    positionOf: createPositionOf(columns),
    values: count === 0 ? {} : Object.fromEntries(enumeratedValues),
    enumerated,
  };
}

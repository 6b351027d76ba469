// Expands parameter domains into argument sets (pure), counting the cartesian product first so a
// huge domain is refused before a single set is built. The sets are generated lazily, one at a
// time: a build of a million calls never holds a million argument objects.
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

/** The cartesian product as an odometer: the last parameter turns fastest. */
function* generateProduct(
  names: readonly string[],
  values: readonly (readonly unknown[])[],
): Generator<Record<string, unknown>> {
  if (values.some((list) => list.length === 0)) return;
  const positions = names.map(() => 0);
  while (true) {
    const args: Record<string, unknown> = {};
    names.forEach((name, index) => {
      args[name] = values[index][positions[index]];
    });
    yield args;
    let turning = names.length - 1;
    while (turning >= 0 && ++positions[turning] === values[turning].length) positions[turning--] = 0;
    if (turning < 0) return;
  }
}

/** The odometer reading of `args`: value indexes looked up by their JSON, built on first use. */
function createPositionOf(
  names: readonly string[],
  values: readonly (readonly unknown[])[],
): (args: Record<string, unknown>) => number {
  let indexes: Map<string, number>[] | undefined;
  return (args) => {
    indexes ??= values.map((list) => {
      const byJson = new Map<string, number>();
      list.forEach((value, index) => {
        if (!byJson.has(JSON.stringify(value))) byJson.set(JSON.stringify(value), index);
      });
      return byJson;
    });
    let position = 0;
    for (let index = 0; index < names.length; index++) {
      const found = indexes[index].get(JSON.stringify(args[names[index]]));
      if (found === undefined) return -1;
      position = position * values[index].length + found;
    }
    return position;
  };
}

/** Every argument set for the parameters in declaration order; the first parameter varies slowest. */
export function expandArgumentSets(input: DomainInput, maxArgumentSets: number): Enumeration {
  const names = Object.keys(input.properties);
  const domains = names.map((name) => findParameterDomain(name, input.properties[name], input));
  const enumerated = names.filter((_, index) => domains[index].kind === 'enumerated');
  const infinite = domains.find((domain) => domain.kind === 'infinite');
  if (infinite && infinite.kind === 'infinite') return { precomputable: false, reason: infinite.reason, enumerated };
  const count = countArgumentSets(domains);
  if (count > maxArgumentSets) {
    return {
      precomputable: false,
      reason: `${count.toLocaleString('en-US')} argument sets exceed the limit of ${maxArgumentSets.toLocaleString('en-US')} (raise limits.maxCallsPerTool in staticmcp.json, or shorten value lists)`,
      enumerated,
      count,
    };
  }
  const included: string[] = [];
  const values: Record<string, readonly unknown[]> = {};
  names.forEach((name, index) => {
    const domain = domains[index];
    if (domain.kind === 'omitted' || domain.kind === 'infinite') return;
    included.push(name);
    values[name] = domain.values;
  });
  const lists = included.map((name) => values[name]);
  return {
    precomputable: true,
    count,
    argumentSets: () => generateProduct(included, lists),
    positionOf: createPositionOf(included, lists),
    values: count === 0 ? {} : Object.fromEntries(enumerated.map((name) => [name, values[name]])),
    enumerated,
  };
}

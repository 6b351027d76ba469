// Expands parameter domains into argument sets (pure), counting the cartesian product first so a
// huge domain is refused before a single set is built.
import { findParameterDomain, type DomainInput, type ParameterDomain } from './parameter-domains.js';

export type Enumeration =
  | { precomputable: true; argumentSets: Record<string, unknown>[]; enumerated: string[] }
  | { precomputable: false; reason: string; enumerated: string[]; count?: number };

export function countArgumentSets(domains: readonly ParameterDomain[]): number {
  let count = 1;
  for (const domain of domains) {
    if (domain.kind === 'infinite') return Infinity;
    if (domain.kind !== 'omitted') count *= domain.values.length;
  }
  return count;
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
  let argumentSets: Record<string, unknown>[] = [{}];
  names.forEach((name, index) => {
    const domain = domains[index];
    if (domain.kind === 'omitted' || domain.kind === 'infinite') return;
    const next: Record<string, unknown>[] = [];
    for (const partial of argumentSets) {
      for (const value of domain.values) next.push({ ...partial, [name]: value });
    }
    argumentSets = next;
  });
  return { precomputable: true, argumentSets, enumerated };
}

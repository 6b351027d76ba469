// Whether a build could have written a file for a call, decided from the tree's own record before
// any key is computed (issue 21, item 5: a 4 MB argument cost seconds of event loop because its
// key, with a hash over every byte, was computed for a value no build could have used).
//
// The rule is exact for trees we wrote: a build gives every parameter it did not enumerate its
// schema default, or leaves it out when there is none (parameter-domains.ts), and writes no other
// call; so a call whose value for such a parameter is anything else has no file, and reading one
// could only miss. Enumerated parameters are left to the lookup (their values are in the schema,
// which validation already enforced, or in a value list the manifest does not hold). A tree that
// does not record which parameters were enumerated (another generator's, a hand-written
// extension) is always looked up.
import { isSameJsonAs } from '../tree/canonical-json.js';
import { isObject, type JsonObject } from '../tree/json-object.js';
import type { TreeTool } from '../tree-reading/loaded-tree.js';

/** False only when no build of this tree can have written a file answering `withDefaults`. */
export function couldBePrecomputed(tool: TreeTool, withDefaults: JsonObject): boolean {
  const extension = tool.extension;
  if (!extension?.recordsEnumerated) return true;
  const schema = tool.definition.inputSchema;
  const properties = isObject(schema.properties) ? schema.properties : {};
  for (const name of extension.parameterOrder) {
    if (extension.enumerated.includes(name)) continue;
    const property = properties[name];
    const value = withDefaults[name];
    if (isObject(property) && 'default' in property) {
      if (!isSameJsonAs(value, property.default)) return false;
    } else if (value !== undefined) return false;
  }
  return true;
}

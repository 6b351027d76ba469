// Extra copies of call files at the keys other StaticMCP bridges compute when a client leaves out
// optional arguments that hold their default (`greet {}` → `tools/greet.json`): those bridges key
// on the arguments as sent, while our key has every default applied. Our bridge never reads them.
//
// Cost cap: a tool gets every combination of left-out defaults when that at most doubles its call
// files, else only the key with all of them left out (at most one extra file per call). A key two
// argument sets would share (`t/true.json` from {a: true, b: false} and {a: false, b: true}) is
// ambiguous and not written.
import { omittedDefaultCallFilePaths } from '../core/tree/call-key.js';
import { ExtraCopies } from './extra-copies.js';
import type { ToolPlan } from './plan-tools.js';

export class OmittedDefaultKeys extends ExtraCopies {
  private readonly everyByTool = new Map<string, boolean>();

  /** Whether a tool gets every combination of left-out defaults (decided once, from its plan). */
  private everyFor(plan: ToolPlan): boolean {
    let every = this.everyByTool.get(plan.name);
    if (every === undefined) {
      const schema = plan.definition.inputSchema;
      const order = Object.keys(schema.properties ?? {});
      let extra = 0;
      let calls = 0;
      if (plan.enumeration.precomputable) {
        for (const args of plan.enumeration.argumentSets()) {
          calls += 1;
          extra += omittedDefaultCallFilePaths(plan.name, order, schema, args, true).length;
        }
      }
      every = extra <= calls;
      this.everyByTool.set(plan.name, every);
    }
    return every;
  }

  /** Records the keys of one written call file (`canonicalPath`). */
  add(plan: ToolPlan, args: Record<string, unknown>, canonicalPath: string): void {
    const schema = plan.definition.inputSchema;
    const order = Object.keys(schema.properties ?? {});
    for (const alias of omittedDefaultCallFilePaths(plan.name, order, schema, args, this.everyFor(plan)))
      this.claim(alias, canonicalPath);
  }
}

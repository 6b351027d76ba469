// Writes the resource list past mcp.json's inline entries as part files (core/tree/resource-list.ts),
// each named by the sha256 of its bytes, and gives the inline entries and our extension's
// `resourceList`. A list within the inline count writes nothing and leaves mcp.json as before.
// Entries come one at a time and a part is written as soon as it is full, so the build holds one
// part's entries, never the whole list (issue #39, "Memory"); the parts are splitResourceList's.
import { createHash } from 'node:crypto';
import { treeJsonFile } from '../core/tree/canonical-json.js';
import { RESOURCE_LIST_FOLDER, type ResourceListParts } from '../core/tree/resource-list.js';
import type { Limits } from '../project/config.js';
import type { TreeOutput } from './tree-output.js';

export class ResourceListWriter<T> {
  private readonly inline: T[] = [];
  private pending: T[] = [];
  private readonly written: ResourceListParts['parts'] = [];
  private total = 0;

  constructor(
    private readonly output: TreeOutput,
    private readonly limits: Pick<Limits, 'resourcesInManifest' | 'resourcesPerListPart'>,
  ) {}

  /** How many entries were added. */
  get count(): number {
    return this.total;
  }

  async add(entry: T): Promise<void> {
    this.total += 1;
    if (this.total <= this.limits.resourcesInManifest) {
      this.inline.push(entry);
      return;
    }
    this.pending.push(entry);
    if (this.pending.length >= this.limits.resourcesPerListPart) await this.writePart();
  }

  private async writePart(): Promise<void> {
    const entries = this.pending;
    this.pending = [];
    const text = treeJsonFile({ resources: entries });
    const path = `${RESOURCE_LIST_FOLDER}${createHash('sha256').update(text).digest('hex').slice(0, 16)}.json`;
    await this.output.write(path, text);
    this.written.push({ path, count: entries.length });
  }

  /** The inline entries, and the parts when the list passed them (after the last part is written). */
  async finish(): Promise<{ inline: T[]; resourceList?: ResourceListParts }> {
    if (this.pending.length > 0) await this.writePart();
    if (this.written.length === 0) return { inline: this.inline };
    return { inline: this.inline, resourceList: { total: this.total, parts: this.written } };
  }
}

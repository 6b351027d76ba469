// Writes the resource list past mcp.json's inline entries as part files (core/tree/resource-list.ts),
// each named by the sha256 of its bytes, and gives the inline entries and our extension's
// `resourceList`. A list within the inline count writes nothing and leaves mcp.json as before.
// Entries come one at a time and a part is written as soon as it is full, so the build holds one
// part's entries, never the whole list (issue #39, "Memory"); the parts are splitResourceList's.
// A part's bytes are made an entry at a time into one buffer kept for every part, not as one
// string: a part is ~0.5 MB of text, a string that size lives in V8's large-object space, and
// under load the collector kept most parts of a 100,000-document build there until the list was
// done (~30 MB of RSS at the assembly's peak).
import { createHash } from 'node:crypto';
import { RESOURCE_LIST_FOLDER, type ResourceListParts } from '../core/tree/resource-list.js';
import type { Limits } from '../project/config.js';
import { grownTypedArray, releaseGrown } from '../tree-writer/grown-typed-array.js';
import type { TreeOutput } from './tree-output.js';

/** treeJsonFile({ resources: [...] })'s text around its entries, each indented by ENTRY_INDENT. */
const PART_HEAD = '{\n  "resources": [\n';
const PART_TAIL = '\n  ]\n}\n';
const ENTRY_INDENT = '    ';
const ENTRY_SEPARATOR = ',\n';

export class ResourceListWriter<T> {
  private readonly inline: T[] = [];
  /** The part being filled: its bytes so far (from PART_HEAD on) and its entry count. */
  private bytes = Buffer.alloc(0);
  private length = 0;
  private pending = 0;
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

  /** Whether the next entry goes inline (into mcp.json), not into a part. */
  get nextIsInline(): boolean {
    return this.total < this.limits.resourcesInManifest;
  }

  /** An entry's text as a part holds it (after its indent): what addEncoded takes as bytes. */
  entryText(entry: T): string {
    // JSON.stringify indents a nested value by its depth at each line break, so an entry's own
    // text with every line indented once more is its text inside the part.
    return JSON.stringify(entry, null, 2).replaceAll('\n', `\n${ENTRY_INDENT}`);
  }

  async add(entry: T): Promise<void> {
    if (this.nextIsInline) {
      this.total += 1;
      this.inline.push(entry);
      return;
    }
    this.total += 1;
    // One append an entry: each measures, grows and writes the buffer once.
    this.append(`${this.pending === 0 ? PART_HEAD : ENTRY_SEPARATOR}${ENTRY_INDENT}${this.entryText(entry)}`);
    await this.added();
  }

  /** Adds an entry past the inline ones by its entryText's UTF-8 bytes (tree-state.ts keeps them). */
  async addEncoded(bytes: Uint8Array): Promise<void> {
    if (this.nextIsInline) throw new Error('an inline resource entry must be added as an object');
    this.total += 1;
    this.append(`${this.pending === 0 ? PART_HEAD : ENTRY_SEPARATOR}${ENTRY_INDENT}`);
    this.bytes = grownTypedArray(this.bytes, this.length + bytes.length);
    this.bytes.set(bytes, this.length);
    this.length += bytes.length;
    await this.added();
  }

  private async added(): Promise<void> {
    this.pending += 1;
    if (this.pending >= this.limits.resourcesPerListPart) await this.writePart();
  }

  private append(text: string): void {
    this.bytes = grownTypedArray(this.bytes, this.length + Buffer.byteLength(text));
    this.length += this.bytes.write(text, this.length);
  }

  private async writePart(): Promise<void> {
    this.append(PART_TAIL);
    const bytes = this.bytes.subarray(0, this.length);
    const path = `${RESOURCE_LIST_FOLDER}${createHash('sha256').update(bytes).digest('hex').slice(0, 16)}.json`;
    await this.output.write(path, bytes);
    // The buffer is filled again for the next part: this one's write must be done with it.
    await this.output.writer.flush();
    this.written.push({ path, count: this.pending });
    this.length = 0;
    this.pending = 0;
  }

  /** The inline entries, and the parts when the list passed them (after the last part is written). */
  async finish(): Promise<{ inline: T[]; resourceList?: ResourceListParts }> {
    if (this.pending > 0) await this.writePart();
    this.bytes = releaseGrown(this.bytes);
    if (this.written.length === 0) return { inline: this.inline };
    return { inline: this.inline, resourceList: { total: this.total, parts: this.written } };
  }
}

// A pack's records digest (pack-writer.ts): each record's names and body digest, in pack order,
// hashed as `name \0 … body-digest \n` a record. A pack's bytes are a function of its records alone
// (pack-format.ts), so two packs of one digest are the same bytes: a build links a pack of the
// previous build's records digest (.staticmcp/packs.json, builder/pack-reuse.ts) instead of
// encoding it again. Every pack of an edited tool is digested, so the bytes are gathered and
// hashed a few thousand at a time, not in four or six hash updates a record.
import { createHash } from 'node:crypto';
import type { PackRecordList } from './pack-record-list.js';

/** What a records digest gathers before it hashes it. */
const PENDING_DIGEST_BYTES = 8192;

/** One pack's records digest, fed record by record: its names, then its body digest. */
class PackRecordsDigest {
  private readonly hash = createHash('sha256');
  /** The bytes not yet hashed: one update a few thousand bytes, not four or six a record. */
  private readonly pending = new Uint8Array(PENDING_DIGEST_BYTES);
  private used = 0;

  /** One of a record's names, in order (a view need not outlive the call). */
  addName(name: Uint8Array): void {
    this.push(name);
    this.pushByte(0);
  }

  /** The record's body digest, after its names. */
  addBodyDigest(bodyDigest: Uint8Array): void {
    this.push(bodyDigest);
    this.pushByte(0x0a);
  }

  private push(bytes: Uint8Array): void {
    if (bytes.length > this.pending.length - this.used) this.flush();
    if (bytes.length > this.pending.length) this.hash.update(bytes);
    else {
      this.pending.set(bytes, this.used);
      this.used += bytes.length;
    }
  }

  private pushByte(byte: number): void {
    if (this.used === this.pending.length) this.flush();
    this.pending[this.used++] = byte;
  }

  private flush(): void {
    this.hash.update(this.pending.subarray(0, this.used));
    this.used = 0;
  }

  digest(): string {
    this.flush();
    return this.hash.digest('hex');
  }
}

/** The records digest of the pack of `order[start..end)`. */
export function recordsDigestOf(
  list: PackRecordList,
  order: Uint32Array,
  start: number,
  end: number,
  /** The body digest of the record whose first name is at this position. */
  bodyDigest: (firstName: number) => Uint8Array,
): string {
  const digest = new PackRecordsDigest();
  for (let position = start; position < end; position += 1) {
    const record = order[position]!;
    // Each name's view hashed before the next is made (no copy of a record's names).
    const [first, last] = list.nameRangeOf(record);
    for (let name = first; name < last; name++) digest.addName(list.nameViewAt(name));
    digest.addBodyDigest(bodyDigest(first));
  }
  return digest.digest();
}

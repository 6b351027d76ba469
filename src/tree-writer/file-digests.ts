// What a tree writer knows of each file it wrote: its path and the sha256 of its content
// (content-hash.ts), so the tree's content hash is computed at the end without reading a
// single file back. Kept out of the JavaScript heap for trees of hundreds of thousands of files: the
// paths' UTF-8 bytes front-coded in one growing buffer (prefix-coded-paths.ts), the digests past the newest few
// thousand in a file beside the output folder (spilled-digests.ts), and an open-addressing table of
// slot numbers finds a path again (packed-slot-table.ts). A Map of path strings
// cost ~100 bytes of heap a file, and the heap grows to a multiple of what it holds: a 40,000-call
// build peaked ~25 MB above a 4,000-call one. What stays per file is held to the bytes it needs
// (a tree of 650,000 files keeps it from the first call to the last pack): one byte, 6 bits of the
// path's hash to skip most wrong slots in a probe (the rest is recomputed from the path when the
// table grows) and the file's two flags, and a spooled file's place in ~2.3 bytes (spool-places.ts). A
// deferred file (tree-writer.ts writeDeferred: its digest and size known, its bytes made only if
// asked) keeps its owner's number.
import { grownTypedArray } from './grown-typed-array.js';
import { HashWalkOrder } from './hash-walk-order.js';
import { PackedSlotTable } from './packed-slot-table.js';
import { PrefixCodedPaths } from './prefix-coded-paths.js';
import { sortedPositionsOf } from './sort-positions.js';
import { SpilledDigests } from './spilled-digests.js';
import { SpoolPlaces } from './spool-places.js';
import { fnv1aOf } from '../shared/fnv1a-hash.js';

const INITIAL_SLOTS = 1024;
const EMPTY = 0;

/** A file's flags (the low bits of its slot's byte): left where the previous tree has it (tree-writer.ts). */
const UNCHANGED = 1;
/** A file's flags: taken out of the tree again (a call file replaced by packs, build's pack step). */
const DROPPED = 2;
const FLAG_BITS = UNCHANGED | DROPPED;

/** The tag kept in a slot's byte above its flags: the hash's top 6 bits (the table's position takes the low ones). */
function tagOf(hash: number): number {
  return (hash >>> 26) << 2;
}

export class FileDigests {
  private count = 0;
  /** The slots in the content hash's order, until a path is added or dropped, or forgetOrder. */
  private readonly hashOrder: HashWalkOrder;
  /** Each slot's path, by slot number. */
  private readonly pathList = new PrefixCodedPaths();
  /** Each slot's digest (content-hash-state.ts compares every one with its record's). */
  readonly digests: SpilledDigests;
  /** Per slot, one byte: tagOf(hash of its path) | its flags (UNCHANGED, DROPPED). */
  private flags = new Uint8Array(INITIAL_SLOTS);
  private droppedCount = 0;
  /** Where each spooled file (tree-writer.ts: held in the spool file, not yet a file of the tree) is. */
  private readonly spoolPlaces = new SpoolPlaces();
  /** A deferred file's owner number + 1 (0: not deferred) and size; grown at the first one. */
  private deferredOwners = new Uint32Array(0);
  private deferredLengths = new Uint32Array(0);
  /** The slot + 1 of the file a held file was recorded as a copy of (0: none); grown at the first. */
  private copyOfSlots = new Uint32Array(0);
  /** The UTF-8 bytes of the path being looked up (probeLength of them). */
  private probe = Buffer.alloc(256);
  private probeLength = 0;
  /** addHeldCopy's digest, copied out of the digests' view before it is recorded again. */
  private readonly copiedDigest = Buffer.alloc(32);
  /**
   * The last path not found, its UTF-8 bytes, their hash and the table position it would take:
   * a new path is asked about several times before it is set (has, then set; a raw copy's name
   * four times), and the answer holds until a path is added to the table.
   */
  private missedPath = '';
  private missedPosition = -1;
  private missedBytes = Buffer.alloc(256);
  private missedLength = 0;
  private missedHash = 0;
  /**
   * The last two paths found and their slots: the build asks about one path several times in a row
   * (has, set, then its flags; a copy and its first name by turns), and a slot never moves.
   */
  private foundPaths: [string, string] = ['', ''];
  private foundSlots: [number, number] = [-1, -1];
  private foundNext = 0;
  /**
   * Slot number + 1 of each path, EMPTY where none; at most three quarters full (a probe compares
   * hash tags before paths, so a longer run costs little; half full cost twice the table).
   */
  private readonly table = new PackedSlotTable(INITIAL_SLOTS * 2);

  /** `digestFile`: where the digests past the newest few thousand go (none: all kept in memory). */
  constructor(digestFile?: string) {
    this.digests = new SpilledDigests(digestFile);
    const byPath = (left: number, right: number) => this.pathList.compare(left, right, false);
    const sort = () => sortedPositionsOf(this.count, this.size, (slot) => !this.isDropped(slot), byPath);
    this.hashOrder = new HashWalkOrder(sort, this.digests);
  }

  get size(): number {
    return this.count - this.droppedCount;
  }

  private pathAt(slot: number): string {
    return this.pathList.stringAt(slot);
  }

  /** How many slots there are, dropped ones included: slot numbers run from 0 to this - 1. */
  get slotCount(): number {
    return this.count;
  }

  /** The slot number of `filePath` (stable for the writer's life), or -1 when it is not recorded. */
  slotOf(filePath: string): number {
    const slot = this.find(filePath);
    return slot < 0 || this.isDropped(slot) ? -1 : slot;
  }

  /** Whether the slot's file is still in the tree (not dropped). */
  isLive(slot: number): boolean {
    return slot < this.count && !this.isDropped(slot);
  }

  private isDropped(slot: number): boolean {
    return (this.flags[slot]! & DROPPED) !== 0;
  }

  private isSpooled(slot: number): boolean {
    return this.spoolPlaces.has(slot);
  }

  /** The path recorded in `slot` (pack-record-list.ts reads the build's packed names from here). */
  at(slot: number): string {
    return this.pathAt(slot);
  }

  /** The UTF-8 bytes of the path in `slot` (a view: valid until the next bytesAt or new path). */
  bytesAt(slot: number): Uint8Array {
    return this.pathList.bytesAt(slot);
  }

  /** The length of the UTF-8 bytes of the path in `slot`. */
  byteLengthAt(slot: number): number {
    return this.pathList.byteLengthAt(slot);
  }

  /** Compares the paths of two slots as `<` compares strings. */
  compare(left: number, right: number): number {
    return this.pathList.compare(left, right, true);
  }

  /**
   * The slot of `filePath`, or where in the table it would go (as a negative number - 1); leaves
   * a path not found as the missed one (its UTF-8 bytes and hash, for set).
   */
  private find(filePath: string): number {
    if (filePath === this.foundPaths[0] && this.foundSlots[0] >= 0) return this.foundSlots[0];
    if (filePath === this.foundPaths[1] && this.foundSlots[1] >= 0) return this.foundSlots[1];
    if (filePath === this.missedPath && this.missedPosition >= 0) return -this.missedPosition - 1;
    // A UTF-8 character takes at most 3 bytes per UTF-16 code unit.
    if (this.probe.length < filePath.length * 3) this.probe = Buffer.alloc(filePath.length * 3);
    const length = this.probe.write(filePath, 0, 'utf8');
    this.probeLength = length;
    const hash = fnv1aOf(this.probe, 0, length);
    const tag = tagOf(hash);
    const mask = this.table.length - 1;
    for (let position = hash & mask; ; position = (position + 1) & mask) {
      const entry = this.table.at(position);
      if (entry === EMPTY) return this.rememberMissed(filePath, position, hash);
      const slot = entry - 1;
      if ((this.flags[slot]! & ~FLAG_BITS) === tag && this.pathList.equals(slot, this.probe, length)) {
        this.remember(filePath, slot);
        return slot;
      }
    }
  }

  /** Keeps the probe's bytes as the missed path's (swapping buffers: nothing copied). */
  private rememberMissed(filePath: string, position: number, hash: number): number {
    const bytes = this.missedBytes;
    this.missedBytes = this.probe;
    this.probe = bytes;
    this.missedLength = this.probeLength;
    this.missedHash = hash;
    this.missedPosition = position;
    this.missedPath = filePath;
    return -position - 1;
  }

  private remember(filePath: string, slot: number): void {
    this.foundPaths[this.foundNext] = filePath;
    this.foundSlots[this.foundNext] = slot;
    this.foundNext ^= 1;
  }

  private placeInTable(slot: number): void {
    const mask = this.table.length - 1;
    const bytes = this.pathList.bytesAt(slot);
    let position = fnv1aOf(bytes, 0, bytes.length) & mask;
    while (this.table.at(position) !== EMPTY) position = (position + 1) & mask;
    this.table.put(position, slot + 1);
  }

  /**
   * Makes room for `more` paths past those recorded: every slot is placed again once, not at each
   * doubling (a content build knows its documents' count before it records their files).
   */
  reserve(more: number): void {
    if ((this.count + more) * 4 <= this.table.length * 3) return;
    while ((this.count + more) * 4 > this.table.length * 3) this.table.growEmpty();
    for (let placed = 0; placed < this.count; placed++) this.placeInTable(placed);
  }

  has(filePath: string): boolean {
    const slot = this.find(filePath);
    return slot >= 0 && !this.isDropped(slot);
  }

  /** Takes a recorded file out: it is no longer listed, hashed or had (its slot stays, unused). */
  drop(filePath: string): void {
    const slot = this.find(filePath);
    if (slot >= 0) this.dropSlot(slot);
  }

  /** drop, by the file's slot (a dropped one is left as it is). */
  dropSlot(slot: number): void {
    if (slot >= this.count || this.isDropped(slot)) return;
    this.flags[slot]! |= DROPPED;
    this.forgetOrder();
    this.droppedCount += 1;
  }

  /** Records (or, for a path written again, replaces) the digest of the file at `filePath`, as not unchanged. */
  set(filePath: string, digest: Uint8Array): void {
    let slot = this.find(filePath);
    if (slot < 0) {
      const position = -slot - 1;
      slot = this.count;
      this.count += 1;
      this.forgetOrder();
      const slots = this.count;
      this.flags = grownTypedArray(this.flags, slots);
      // find left the path's bytes and hash as the missed ones; the table changes now.
      this.missedPosition = -1;
      this.pathList.push(this.missedBytes, this.missedLength);
      this.flags[slot] = tagOf(this.missedHash);
      if (this.count * 4 > this.table.length * 3) this.reserve(0);
      else this.table.put(position, slot + 1);
      this.remember(filePath, slot);
    }
    this.digests.set(slot, digest);
    // New content is written until the writer finds it unchanged.
    this.flags[slot]! &= ~UNCHANGED;
    this.spoolPlaces.clear(slot);
    if (slot < this.deferredOwners.length) this.deferredOwners[slot] = 0;
    if (slot < this.copyOfSlots.length) this.copyOfSlots[slot] = 0;
    if (this.isDropped(slot)) {
      this.flags[slot]! &= ~DROPPED;
      this.droppedCount -= 1;
      this.forgetOrder();
    }
  }

  /** The digest recorded for `filePath` (a copy). */
  get(filePath: string): Buffer | undefined {
    const slot = this.find(filePath);
    if (slot < 0 || this.isDropped(slot)) return undefined;
    return this.digests.get(slot);
  }

  /**
   * The digest recorded in a live slot, as a view (valid until the next digest is read or set):
   * the pack step reads its records' digests by slot, with no path made or looked up, in call-key
   * order (scattered: no block of the digests' file is kept for a next read, spilled-digests.ts).
   */
  digestAt(slot: number): Buffer {
    return this.digests.scatteredViewOf(slot);
  }

  /** Whether both paths are recorded (not dropped) with the same digest. */
  sameDigest(leftPath: string, rightPath: string): boolean {
    return this.sameDigestAt(this.slotOf(leftPath), this.slotOf(rightPath));
  }

  /** Whether both slots are live (slotOf's, -1: none) with the same digest. */
  sameDigestAt(left: number, right: number): boolean {
    if (left < 0 || right < 0 || !this.isLive(left) || !this.isLive(right)) return false;
    return this.digests.same(left, right);
  }

  /** The digests of `slots`, in that order (views: each valid until the next; spilled-digests.ts). */
  digestsInOrder(slots: Uint32Array): IterableIterator<Buffer> {
    return this.digests.inOrder(slots);
  }

  /** Drops the digests' file (the writer is done: committed or discarded). */
  close(): void {
    this.digests.close();
  }

  /** Marks a recorded file as held in the writer's spool at `offset`, `length` bytes long. */
  setSpooled(filePath: string, offset: number, length: number): void {
    const slot = this.find(filePath);
    if (slot < 0) return;
    this.spoolPlaces.set(slot, offset, length);
  }

  /** Where a spooled file's content is in the spool; undefined for a file written as a file (or dropped). */
  spooledAt(filePath: string): { offset: number; length: number } | undefined {
    const slot = this.find(filePath);
    if (slot < 0 || this.isDropped(slot) || !this.isSpooled(slot)) return undefined;
    return this.spoolPlaces.at(slot);
  }

  /** Marks a spooled or deferred file as written out as a file. */
  clearHeld(filePath: string): void {
    const slot = this.find(filePath);
    if (slot >= 0) this.spoolPlaces.clear(slot);
    if (slot >= 0 && slot < this.deferredOwners.length) this.deferredOwners[slot] = 0;
  }

  /**
   * The size of a live spooled or deferred file by its slot (the pack step's owners: no path made
   * or looked up); undefined for a file written as a file, whose size only the file has.
   */
  heldLengthAt(slot: number): number | undefined {
    if (!this.isLive(slot)) return undefined;
    if (this.isSpooled(slot)) return this.spoolPlaces.lengthAt(slot);
    return this.isDeferred(slot) ? this.deferredLengths[slot]! : undefined;
  }

  /** Every spooled path (not dropped), in the order first written. */
  *spooledPaths(): IterableIterator<string> {
    for (let slot = 0; slot < this.count; slot++)
      if (this.isSpooled(slot) && !this.isDropped(slot)) yield this.pathAt(slot);
  }

  /** Marks a recorded file as deferred: `length` bytes that the writer's source makes for `owner` when asked. */
  setDeferred(filePath: string, owner: number, length: number): void {
    const slot = this.find(filePath);
    if (slot >= 0) this.setDeferredAt(slot, owner, length);
  }

  private setDeferredAt(slot: number, owner: number, length: number): void {
    this.deferredOwners = grownTypedArray(this.deferredOwners, slot + 1);
    this.deferredLengths = grownTypedArray(this.deferredLengths, slot + 1);
    this.deferredOwners[slot] = owner + 1;
    this.deferredLengths[slot] = length;
  }

  /** A deferred file's owner and size; undefined for any other file (or a dropped one). */
  deferredAt(filePath: string): { owner: number; length: number } | undefined {
    const slot = this.find(filePath);
    if (slot < 0 || this.isDropped(slot) || !this.isDeferred(slot)) return undefined;
    return { owner: this.deferredOwners[slot]! - 1, length: this.deferredLengths[slot]! };
  }

  private isDeferred(slot: number): boolean {
    return slot < this.deferredOwners.length && this.deferredOwners[slot] !== 0;
  }

  /** Every deferred path (not dropped), in the order first written. */
  *deferredPaths(): IterableIterator<string> {
    for (let slot = 0; slot < Math.min(this.count, this.deferredOwners.length); slot++)
      if (this.isDeferred(slot) && !this.isDropped(slot)) yield this.pathAt(slot);
  }

  /**
   * Records `filePath` (not recorded, or dropped) as a copy (copyOf) of the held file in live slot
   * `first`, by slot (a content build copies each document to its raw name); its size, or undefined
   * (nothing recorded) when `first` is not deferred, nor spooled with `spooledToo`.
   */
  addHeldCopy(first: number, filePath: string, spooledToo: boolean): number | undefined {
    const deferred = this.isDeferred(first);
    const spooled = spooledToo && !deferred && this.isSpooled(first) ? this.spoolPlaces.at(first) : undefined;
    if (!deferred && spooled === undefined) return undefined;
    this.digests.viewOf(first).copy(this.copiedDigest);
    this.set(filePath, this.copiedDigest);
    const slot = this.find(filePath);
    const length = deferred ? this.deferredLengths[first]! : spooled!.length;
    if (deferred) this.setDeferredAt(slot, this.deferredOwners[first]! - 1, length);
    else this.spoolPlaces.set(slot, spooled!.offset, length);
    this.copyOfSlots = grownTypedArray(this.copyOfSlots, slot + 1);
    this.copyOfSlots[slot] = first + 1;
    return length;
  }

  /** Records that `filePath` was made a copy of `firstPath` (tree-writer.ts copySpooled); until it is set again. */
  setCopyOf(filePath: string, firstPath: string): void {
    const first = this.find(firstPath);
    const slot = this.find(filePath);
    if (slot < 0 || first < 0) return;
    this.copyOfSlots = grownTypedArray(this.copyOfSlots, slot + 1);
    this.copyOfSlots[slot] = first + 1;
  }

  /** The path `filePath` was recorded as a copy of, if it still is one (not dropped). */
  copyOf(filePath: string): string | undefined {
    const slot = this.find(filePath);
    const first = slot >= 0 && slot < this.copyOfSlots.length ? this.copyOfSlots[slot]! - 1 : -1;
    return first >= 0 && !this.isDropped(first) ? this.pathAt(first) : undefined;
  }

  /** Marks a recorded file as left where the previous tree has it, byte for byte. */
  setUnchanged(filePath: string): void {
    const slot = this.find(filePath);
    if (slot >= 0) this.flags[slot]! |= UNCHANGED;
  }

  isUnchanged(filePath: string): boolean {
    const slot = this.find(filePath);
    return slot >= 0 && (this.flags[slot]! & FLAG_BITS) === UNCHANGED;
  }

  /** Every path marked unchanged. */
  *unchangedPaths(): IterableIterator<string> {
    for (let slot = 0; slot < this.count; slot++)
      if ((this.flags[slot]! & FLAG_BITS) === UNCHANGED) yield this.pathAt(slot);
  }

  /** Every path, in the order first written. */
  *paths(): IterableIterator<string> {
    for (let slot = 0; slot < this.count; slot++) if (!this.isDropped(slot)) yield this.pathAt(slot);
  }

  /**
   * Every live slot (its path: bytesAt, at) with its digest, in the content hash's order
   * (content-hash.ts: by UTF-8 bytes), sorted here on the bytes themselves so no list of path
   * strings is ever built.
   */
  inHashOrder(): IterableIterator<[number, Buffer]> {
    return this.hashOrder.walk();
  }

  /** inHashOrder with no object made a file: `visit` is told each slot and its digest (valid during the call). */
  forEachInHashOrder(visit: (slot: number, digest: Buffer) => void): void {
    this.hashOrder.forEach(visit);
  }

  /**
   * The next inHashOrder walk is the last before a path changes (the build's hash stage): it gives
   * the order back as it goes, where it held it all (4 bytes a file) to its end.
   */
  lastWalkInOrder(): void {
    this.hashOrder.giveBackByNextWalk();
  }

  /**
   * Gives back the content hash's order (4 bytes a file) now rather than at the next new path: the
   * pack step does before it holds its own per-call arrays, which is the build's peak.
   */
  forgetOrder(): void {
    this.hashOrder.forget();
  }
}

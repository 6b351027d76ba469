// Where a search index part's packs and indexes close: content-defined boundaries (a record closes
// its pack once the pack holds half the target and its key's hash hits a mask, or when the pack
// reaches the target), so one edited document renames the packs its terms fall in, not every pack
// after them; and the least targets at which a part keeps to its file-count limits. Both search
// index writers cut by these, so they write the same bytes. A record's bytes include those that
// follow it in its pack with no index entry (a title block's excerpt sources: one read).
import { INDEX_ENTRY_BYTES, PACK_HEADER_BYTES } from '../core/packs/pack-format.js';
import { sipHash13Low } from '../core/tree/siphash.js';
import {
  MAX_SCALED_INDEX_BYTES,
  MAX_SCALED_PACK_BYTES,
  type SearchPartFileLimits,
  TARGET_STEP_BYTES,
} from './search-index-targets.js';

/** A key's own hash (low half of SipHash-1-3): where content-defined boundaries fall. */
export function boundaryHash(key: Uint8Array): number {
  return sipHash13Low(key);
}

/**
 * The power-of-two divisor that makes a boundary hit about every (target / 2) bytes of items of
 * `averageBytes`; a power of two, so a small edit that moves the average a little leaves it be.
 */
export function boundaryDivisor(target: number, averageBytes: number): number {
  const wanted = target / 2 / Math.max(1, averageBytes);
  return wanted <= 1 ? 1 : 2 ** Math.round(Math.log2(wanted));
}

/** A part's record counts and bytes: where its boundaries fall depends on them. */
export interface PartTotals {
  count: number;
  /** Encoded records' bytes. */
  totalBytes: number;
  keyBytes: number;
}

/**
 * Walks a part's records in key order: each key, and its encoded record's bytes with those of the
 * records that follow it in its pack unindexed.
 */
export type VisitRecordSizes = (visit: (key: Uint8Array, recordBytes: number) => void) => void;

/** Where a part's packs and indexes close: both writers (here and the spilling one) cut by it. */
export interface PartBoundaries {
  /** Whether a pack of `size` bytes closes after the record whose key hashed to `hash`. */
  closesPack(size: number, hash: number): boolean;
  /** The same for an index of `size` entry bytes (an index may reach twice its target). */
  closesIndex(size: number, hash: number): boolean;
  /** The pack and index targets and divisors: boundaries of equal `cut` close at the same records. */
  cut: readonly number[];
}

function boundariesAt(targetPackBytes: number, targetIndexBytes: number, totals: PartTotals): PartBoundaries {
  const packDivisor = boundaryDivisor(targetPackBytes, totals.totalBytes / totals.count);
  const indexDivisor = boundaryDivisor(targetIndexBytes, INDEX_ENTRY_BYTES + totals.keyBytes / totals.count);
  return {
    closesPack: (size, hash) => size >= targetPackBytes || (size >= targetPackBytes / 2 && hash % packDivisor === 0),
    closesIndex: (size, hash) =>
      size >= targetIndexBytes * 2 || (size >= targetIndexBytes / 2 && hash % indexDivisor === 0),
    cut: [targetPackBytes, targetIndexBytes, packDivisor, indexDivisor],
  };
}

/**
 * The least targets, from `targets` up in steps, at which the part's records make at most
 * `limits` packs and indexes, found by counting what a target would make (a pass over the record
 * sizes per target tried, bisecting between the base and the ceiling). Fewer, larger files than
 * needed cost every query on a host that ignores byte ranges (it streams a term's pack up to its
 * record): bounding the count by "every file but the last holds half its target" made the
 * 650,000-document term packs ~740 KB where smaller ones fit the limit. That bound is the ceiling,
 * taken without counting. Counts fall as targets grow, nearly always: where they do not, the
 * target chosen still fits, as every target chosen was counted or is the ceiling.
 */
export function fitPartBoundaries(
  targets: { targetPackBytes: number; targetIndexBytes: number },
  totals: PartTotals,
  limits: SearchPartFileLimits,
  visitSizes: VisitRecordSizes,
): PartBoundaries {
  const indexBytes = totals.count * INDEX_ENTRY_BYTES + totals.keyBytes;
  const pack = new TargetSearch(targets.targetPackBytes, totals.totalBytes, limits.maxPacks, MAX_SCALED_PACK_BYTES);
  const index = new TargetSearch(targets.targetIndexBytes, indexBytes, limits.maxIndexes, MAX_SCALED_INDEX_BYTES);
  while (!pack.found || !index.found) {
    const files = countFiles(boundariesAt(pack.trying, index.trying, totals), visitSizes);
    pack.learn(files.packs);
    index.learn(files.indexes);
  }
  return boundariesAt(pack.target, index.target, totals);
}

/**
 * fitPartBoundaries's boundaries when its targets follow from `totals` alone (the part fits its
 * limits at the given targets, no count of files needed), else undefined.
 */
export function uncountedBoundaries(
  targets: { targetPackBytes: number; targetIndexBytes: number },
  totals: PartTotals,
  limits: SearchPartFileLimits,
): PartBoundaries | undefined {
  const indexBytes = totals.count * INDEX_ENTRY_BYTES + totals.keyBytes;
  const pack = new TargetSearch(targets.targetPackBytes, totals.totalBytes, limits.maxPacks, MAX_SCALED_PACK_BYTES);
  const index = new TargetSearch(targets.targetIndexBytes, indexBytes, limits.maxIndexes, MAX_SCALED_INDEX_BYTES);
  return pack.found && index.found ? boundariesAt(pack.target, index.target, totals) : undefined;
}

/**
 * Bisects the steps from `base` (or TARGET_STEP_BYTES when smaller) to the ceiling that surely
 * fits `bytes` in `maxFiles` files (every file but the last holds half its target), within `max`.
 */
class TargetSearch {
  private readonly step: number;
  /** Step counts: `low` is not known to fit (or is the base, untried), `high` fits. */
  private low = 0;
  private high: number;
  private lowTried = false;

  constructor(
    private readonly base: number,
    bytes: number,
    private readonly maxFiles: number,
    private readonly max: number,
  ) {
    this.step = Math.min(base, TARGET_STEP_BYTES);
    const needed = Math.ceil((2 * bytes) / maxFiles);
    this.high = needed <= base ? 0 : Math.ceil((Math.min(needed, max) - base) / this.step);
  }

  get found(): boolean {
    return this.high - this.low <= (this.lowTried ? 1 : 0);
  }

  /** The target the next count is for (any, once found). */
  get trying(): number {
    return this.targetOf(this.lowTried ? (this.low + this.high) >> 1 : this.low);
  }

  get target(): number {
    return this.targetOf(this.high);
  }

  learn(files: number): void {
    if (this.found) return;
    const tried = this.lowTried ? (this.low + this.high) >> 1 : this.low;
    if (files <= this.maxFiles) this.high = tried;
    else this.low = tried;
    this.lowTried = true;
  }

  private targetOf(steps: number): number {
    return Math.max(this.base, Math.min(this.max, this.base + steps * this.step));
  }
}

/** The packs and indexes the part's records make with `boundaries`. */
function countFiles(boundaries: PartBoundaries, visitSizes: VisitRecordSizes): { packs: number; indexes: number } {
  let packs = 0;
  let indexes = 0;
  let packSize = PACK_HEADER_BYTES;
  let indexSize = 0;
  visitSizes((key, recordBytes) => {
    const hash = boundaryHash(key);
    packSize += recordBytes;
    // A record placed in another part's pack (0 bytes) opens no pack, so closes none.
    if (packSize > PACK_HEADER_BYTES && boundaries.closesPack(packSize, hash)) {
      packs += 1;
      packSize = PACK_HEADER_BYTES;
    }
    indexSize += INDEX_ENTRY_BYTES + key.length;
    if (boundaries.closesIndex(indexSize, hash)) {
      indexes += 1;
      indexSize = 0;
    }
  });
  return {
    packs: packs + (packSize > PACK_HEADER_BYTES ? 1 : 0),
    indexes: indexes + (indexSize > 0 ? 1 : 0),
  };
}

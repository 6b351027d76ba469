// A document's index keys with their counts, for the spilling search index writer: its words and,
// stemming, each word's stem key (the keys and counts indexKeysOf's list gives, in the same order).
// Every key gets a number the first time a document has it, and the writer's documents share the
// numbering: a token costs one lookup in one dictionary, a document makes no Map and no list of
// its tokens, and a word is stemmed once while it stays in the dictionary, not once per token
// (per-document Maps and per-token stemming were much of the index step's CPU and of its garbage).
// The dictionary is a hash table of its own over the text's units: a plain ASCII token is looked
// up where it lies in its text, and a string is made only for a key the dictionary lacks (a string
// per token, and hashing it, was most of what counting cost).
import { detachedString } from '../core/search/detached-string.js';
import { stemKeyOf, type Stemming } from '../core/search/stem.js';
import { type TermVisitor, visitTerms } from '../core/search/tokenize.js';

/**
 * Keys the dictionary holds before it starts again (as the stem cache does): bounds its memory
 * (~5 MB) on a corpus of any vocabulary, while the words most tokens are stay found.
 */
export const KEY_DICTIONARY_LIMIT = 65_536;

export interface KeyCounts {
  /** Distinct keys: the words in the order they first come, then their stem keys likewise. */
  keys: string[];
  counts: number[];
  /** The text's tokens (its length as BM25 counts it). */
  tokenCount: number;
  /** Each key's number in the counter's dictionary, valid while its `dictionary` is the counter's. */
  keyIds?: Uint32Array;
  /** Which dictionary the numbers are of (IndexKeyCounter.dictionary when counted). */
  dictionary?: number;
}

/** FNV-1a's step over one UTF-16 unit. */
function hashStep(hash: number, unit: number): number {
  return Math.imul(hash ^ unit, 0x01000193);
}
const HASH_SEED = 0x811c9dc5 | 0;

/** The hash of a key (its units). */
function hashOfString(key: string): number {
  let hash = HASH_SEED;
  for (let at = 0; at < key.length; at += 1) hash = hashStep(hash, key.charCodeAt(at));
  return hash;
}

export class IndexKeyCounter {
  /** Open addressing, linear probing: a key's number + 1 (0: empty), at its hash's slot or after. */
  private table = new Int32Array(1 << 12);
  private hashOf = new Int32Array(1024);
  private keyOf: string[] = [];
  /** By key number: its stem key's number (-1: not looked up yet). */
  private stemIdOf = new Int32Array(1024).fill(-1);
  /** By key number: the last document that had it, and its slot in that document's lists. */
  private lastDocument = new Int32Array(1024).fill(-1);
  private slotOf = new Uint32Array(1024);
  /** The current document's distinct keys (numbers) and counts, by slot. */
  private documentIds = new Uint32Array(1024);
  private documentCounts = new Uint32Array(1024);
  private distinct = 0;
  private tokens = 0;
  private document = -1;
  /** Counts up each time the dictionary starts again (key numbers of another are meaningless). */
  dictionary = 0;
  private readonly visitor: TermVisitor = {
    span: (text, start, end) => {
      this.tokens += 1;
      this.countKey(this.idOfSpan(text, start, end), 1);
    },
    term: (term) => {
      this.tokens += 1;
      this.countKey(this.idOf(term), 1);
    },
  };

  constructor(
    private readonly stemming: Stemming,
    private readonly limit = KEY_DICTIONARY_LIMIT,
  ) {}

  /**
   * The keys and counts of a document's title and text (counted as the two joined by a line
   * break, which no term crosses).
   */
  count(title: string, text?: string): KeyCounts {
    if (this.keyOf.length >= this.limit) this.startAgain();
    this.document += 1;
    this.distinct = 0;
    this.tokens = 0;
    visitTerms(title, this.visitor);
    if (text !== undefined) visitTerms(text, this.visitor);
    const words = this.distinct;
    if (this.stemming !== 'none') {
      for (let slot = 0; slot < words; slot += 1) {
        const id = this.documentIds[slot]!;
        let stemId = this.stemIdOf[id]!;
        if (stemId < 0) {
          stemId = this.idOf(stemKeyOf(this.keyOf[id]!));
          this.stemIdOf[id] = stemId;
        }
        this.countKey(stemId, this.documentCounts[slot]!);
      }
    }
    const keys = new Array<string>(this.distinct);
    const counts = new Array<number>(this.distinct);
    for (let slot = 0; slot < this.distinct; slot += 1) {
      keys[slot] = this.keyOf[this.documentIds[slot]!]!;
      counts[slot] = this.documentCounts[slot]!;
    }
    return {
      keys,
      counts,
      tokenCount: this.tokens,
      keyIds: this.documentIds.slice(0, this.distinct),
      dictionary: this.dictionary,
    };
  }

  private countKey(id: number, count: number): void {
    if (this.lastDocument[id] === this.document) {
      this.documentCounts[this.slotOf[id]!]! += count;
      return;
    }
    const slot = this.distinct;
    this.distinct += 1;
    if (this.distinct > this.documentIds.length) {
      this.documentIds = doubled(this.documentIds);
      this.documentCounts = doubled(this.documentCounts);
    }
    this.lastDocument[id] = this.document;
    this.slotOf[id] = slot;
    this.documentIds[slot] = id;
    this.documentCounts[slot] = count;
  }

  /** The number of the key `text`'s units `start`..`end` lowercased (plain ASCII), added if new. */
  private idOfSpan(text: string, start: number, end: number): number {
    let hash = HASH_SEED;
    for (let at = start; at < end; at += 1) {
      const unit = text.charCodeAt(at);
      hash = hashStep(hash, unit >= 65 && unit <= 90 ? unit + 32 : unit);
    }
    const mask = this.table.length - 1;
    const length = end - start;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = this.table[slot]!;
      if (entry === 0) return this.added(text.slice(start, end).toLowerCase(), hash, slot);
      const id = entry - 1;
      if (this.hashOf[id] !== hash) continue;
      const key = this.keyOf[id]!;
      if (key.length !== length) continue;
      let same = true;
      for (let at = 0; at < length; at += 1) {
        const unit = text.charCodeAt(start + at);
        if (key.charCodeAt(at) !== (unit >= 65 && unit <= 90 ? unit + 32 : unit)) {
          same = false;
          break;
        }
      }
      if (same) return id;
    }
  }

  /** The number of `key`, added if new. */
  private idOf(key: string): number {
    const hash = hashOfString(key);
    const mask = this.table.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = this.table[slot]!;
      if (entry === 0) return this.added(key, hash, slot);
      const id = entry - 1;
      if (this.hashOf[id] === hash && this.keyOf[id] === key) return id;
    }
  }

  /** A new key's number, put in the table's empty `slot` (its hash's). */
  private added(key: string, hash: number, slot: number): number {
    const id = this.keyOf.length;
    // A copy: the key is a view into its document's text, which the dictionary must not hold.
    this.keyOf.push(detachedString(key));
    this.table[slot] = id + 1;
    if (id >= this.lastDocument.length) {
      this.lastDocument = doubled(this.lastDocument, -1);
      this.stemIdOf = doubled(this.stemIdOf, -1);
      this.slotOf = doubled(this.slotOf);
      this.hashOf = doubled(this.hashOf);
    }
    this.hashOf[id] = hash;
    // At most half full, so a probe meets an empty slot soon.
    if ((id + 1) * 2 > this.table.length) this.rehash(this.table.length * 2);
    return id;
  }

  private rehash(slots: number): void {
    const table = new Int32Array(slots);
    const mask = slots - 1;
    for (let id = 0; id < this.keyOf.length; id += 1) {
      let slot = this.hashOf[id]! & mask;
      while (table[slot] !== 0) slot = (slot + 1) & mask;
      table[slot] = id + 1;
    }
    this.table = table;
  }

  /** An empty dictionary (between documents only: a document's numbers must hold while it is counted). */
  private startAgain(): void {
    this.table.fill(0);
    this.keyOf = [];
    this.stemIdOf.fill(-1);
    this.lastDocument.fill(-1);
    this.dictionary += 1;
  }
}

/** `array` copied into one twice its length, the new half `fill`. */
function doubled<T extends Uint32Array | Int32Array>(array: T, fill = 0): T {
  const View = array.constructor as new (length: number) => T;
  const larger = new View(array.length * 2);
  larger.set(array);
  if (fill !== 0) larger.fill(fill, array.length);
  return larger;
}

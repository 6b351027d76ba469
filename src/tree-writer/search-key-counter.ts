// A document's index keys with their counts, for the spilling search index writer: its words and,
// stemming, each word's stem key (the keys and counts indexKeysOf's list gives, in the same order).
// Every key gets a number the first time a document has it, and the writer's documents share the
// numbering: a token costs one lookup in one dictionary, a document makes no Map and no list of
// its tokens, and a word is stemmed once while it stays in the dictionary, not once per token
// (per-document Maps and per-token stemming were much of the index step's CPU and of its garbage).
import { detachedString } from '../core/search/detached-string.js';
import { stemKeyOf, type Stemming } from '../core/search/stem.js';
import { forEachTerm } from '../core/search/tokenize.js';

/**
 * Keys the dictionary holds before it starts again (as the stem caches do): bounds its memory
 * (~5 MB) on a corpus of any vocabulary, while the words most tokens are stay found.
 */
export const KEY_DICTIONARY_LIMIT = 65_536;

export interface KeyCounts {
  /** Distinct keys: the words in the order they first come, then their stem keys likewise. */
  keys: string[];
  counts: number[];
  /** The text's tokens (its length as BM25 counts it). */
  tokenCount: number;
}

export class IndexKeyCounter {
  private idOf = new Map<string, number>();
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
  private readonly visit = (term: string): void => {
    this.tokens += 1;
    this.countKey(this.idOf.get(term) ?? this.added(term), 1);
  };

  constructor(
    private readonly stemming: Stemming,
    private readonly limit = KEY_DICTIONARY_LIMIT,
  ) {}

  /** The keys and counts of `text` (a document's title and text joined by a line break). */
  count(text: string): KeyCounts {
    if (this.idOf.size >= this.limit) this.startAgain();
    this.document += 1;
    this.distinct = 0;
    this.tokens = 0;
    forEachTerm(text, this.visit);
    const words = this.distinct;
    if (this.stemming !== 'none') {
      for (let slot = 0; slot < words; slot += 1) {
        const id = this.documentIds[slot]!;
        let stemId = this.stemIdOf[id]!;
        if (stemId < 0) {
          const key = stemKeyOf(this.keyOf[id]!);
          stemId = this.idOf.get(key) ?? this.added(key);
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
    return { keys, counts, tokenCount: this.tokens };
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

  /** A new key's number. */
  private added(key: string): number {
    const id = this.keyOf.length;
    // A copy: the key is a view into its document's text, which the dictionary must not hold.
    const own = detachedString(key);
    this.keyOf.push(own);
    this.idOf.set(own, id);
    if (id >= this.lastDocument.length) {
      this.lastDocument = doubled(this.lastDocument, -1);
      this.stemIdOf = doubled(this.stemIdOf, -1);
      this.slotOf = doubled(this.slotOf);
    }
    return id;
  }

  /** An empty dictionary (between documents only: a document's numbers must hold while it is counted). */
  private startAgain(): void {
    this.idOf = new Map();
    this.keyOf = [];
    this.stemIdOf.fill(-1);
    this.lastDocument.fill(-1);
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

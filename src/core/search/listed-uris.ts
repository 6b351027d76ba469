// The resource URIs the document lister (resource-documents.ts) has listed, so that a repeated one
// is skipped. The build and merge write their resource lists in ascending URI order, where no URI
// can repeat one before it: while the URIs ascend, only the last is kept, not a set of every one
// (which grew with the number of documents through the index step, where a large build peaks).
// At the first URI that does not ascend, those listed before it are read again from the lists
// into a StringSet (string-set.ts), which then takes every later one: a list out of order costs a
// second read of its parts up to there, never a document skipped or listed twice.
// Portable: the lister runs in `staticmcp index` and the build alike.
import type { JsonObject } from '../tree/json-object.js';
import { isObject } from '../tree/json-object.js';
import { StringSet } from './string-set.js';

export class ListedUris {
  private last: string | undefined;
  private set: StringSet | undefined;
  /** URIs added so far, repeats included: how many the lists are read again for. */
  private added = 0;

  /**
   * `relist`: the same lists again from the start (the entries this was given, in the same order;
   * an entry that is not an object with a string `uri` is never given to `add`).
   */
  constructor(private readonly relist: () => AsyncIterable<readonly unknown[]>) {}

  /** Adds `uri`; false when it was listed before. A promise only for the first URI out of order. */
  add(uri: string): boolean | Promise<boolean> {
    if (this.set === undefined) {
      if (this.last === undefined || uri > this.last) {
        this.last = uri;
        this.added += 1;
        return true;
      }
      return this.setUp().then(() => this.addToSet(uri));
    }
    return this.addToSet(uri);
  }

  private addToSet(uri: string): boolean {
    this.added += 1;
    return this.set!.add(uri);
  }

  /** The set of the URIs added so far, from the lists read again. */
  private async setUp(): Promise<void> {
    const set = new StringSet();
    let left = this.added;
    for await (const entries of this.relist()) {
      for (const entry of entries) {
        if (left === 0) break;
        if (!isObject(entry) || typeof (entry as JsonObject).uri !== 'string') continue;
        set.add((entry as JsonObject).uri as string);
        left -= 1;
      }
      if (left === 0) break;
    }
    this.set = set;
    this.last = undefined;
  }
}
